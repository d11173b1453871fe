package gen_test

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/internal/shared"
	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// allSchemas lists every supported schema version in the shared folder.
func allSchemas(tb testing.TB) []pipeline.Schema {
	tb.Helper()
	var schemas []pipeline.Schema
	for _, v := range shared.Versions {
		schemas = append(schemas, pipeline.Schema{Version: v, File: sharedtest.SchemaPath(tb, v)})
	}
	return schemas
}

// TestStale regenerates generated/mcp in memory and fails when the
// committed files differ. With -update it rewrites them instead.
// protocolOnce is the protocol package generated from every schema, made
// once for the tests that only read it: generating it is the slowest step
// of gen's tests under the race detector.
var protocolOnce struct {
	sync.Once
	files map[string][]byte
	err   error
}

// allProtocol returns the protocol package of every schema, which the
// caller must not modify.
func allProtocol(t *testing.T) map[string][]byte {
	t.Helper()
	schemas := allSchemas(t)
	protocolOnce.Do(func() { protocolOnce.files, protocolOnce.err = pipeline.Protocol(schemas, "mcp") })
	if protocolOnce.err != nil {
		t.Fatal(protocolOnce.err)
	}
	return protocolOnce.files
}

func TestStale(t *testing.T) {
	files := allProtocol(t)
	// Doc comments name the schema file each type comes from, but never by
	// the path this machine keeps it at.
	for name, src := range files {
		if bytes.Contains(src, []byte(sharedtest.Dir(t))) {
			t.Errorf("%s holds the path of the shared folder, %s", name, sharedtest.Dir(t))
		}
	}
	dir := filepath.Join(repoRoot(t), "generated", "mcp")
	if *update {
		if err := gen.WriteDir(dir, files); err != nil {
			t.Fatal(err)
		}
		return
	}
	never := func(string) bool { return false }
	if problems := compareFiles(t, dir, files, "", never); len(problems) > 0 {
		t.Errorf("generated/mcp is stale: run make generate (or go test ./gen -run TestStale -update)\n%s", strings.Join(problems, "\n"))
	}
}

// TestDeterministic generates twice from freshly built models and wants the
// same bytes.
func TestDeterministic(t *testing.T) {
	first := allProtocol(t)
	second, err := pipeline.Protocol(allSchemas(t), "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Errorf("first run gave %d files, second %d", len(first), len(second))
	}
	for name, src := range first {
		if !bytes.Equal(src, second[name]) {
			t.Errorf("%s differs between two runs%s", name, firstDiff(src, second[name]))
		}
	}
}

// TestEachVersionAlone generates the package from each schema by itself
// and builds and vets all five in one temporary module.
func TestEachVersionAlone(t *testing.T) {
	pkgs := map[string]map[string][]byte{}
	for _, s := range allSchemas(t) {
		files, err := pipeline.Protocol([]pipeline.Schema{s}, "mcp")
		if err != nil {
			t.Errorf("%s alone: %v", s.Version, err)
			continue
		}
		pkgs["mcp"+strings.ReplaceAll(s.Version, "-", "_")] = files
	}
	buildModule(t, pkgs)
}

// BenchmarkGenerate measures the whole pipeline for all five schemas:
// load, metaschema check, model, merge and render.
func BenchmarkGenerate(b *testing.B) {
	schemas := allSchemas(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pipeline.Protocol(schemas, "mcp"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWriteDirKeeps writes a package over a folder that holds an old
// generated file, a hand-written one and a testdata folder: the old
// generated file goes, the others stay as they were.
func TestWriteDirKeeps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old_gen.go", "// "+gen.Header+"\n\npackage mcp\n")
	write("hand_test.go", "package mcp\n")
	write("testdata/examples/2026-07-28/X/x.json", "{}\n")
	if err := gen.WriteDir(dir, map[string][]byte{"types_gen.go": []byte("// " + gen.Header + "\n\npackage mcp\n")}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, file, want string
	}{
		{"the new generated file", "types_gen.go", "// " + gen.Header + "\n\npackage mcp\n"},
		{"a hand-written file", "hand_test.go", "package mcp\n"},
		{"a testdata file", "testdata/examples/2026-07-28/X/x.json", "{}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil || string(got) != tt.want {
				t.Errorf("%s = %q, %v; want %q", tt.file, got, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "old_gen.go")); !os.IsNotExist(err) {
		t.Errorf("old_gen.go survived: %v", err)
	}
}

// TestParallelOnOneModel renders one model from two goroutines at once
// (under -race in make test): the back end leaves the model as it is, so
// both renders give the same files.
func TestParallelOnOneModel(t *testing.T) {
	m, err := pipeline.Model(allSchemas(t))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([]map[string][]byte, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Go(func() { outs[i], errs[i] = gen.Protocol(m, gen.Config{Package: "mcp"}) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(outs[0]) == 0 || len(outs[0]) != len(outs[1]) {
		t.Fatalf("renders gave %d and %d files", len(outs[0]), len(outs[1]))
	}
	for name, src := range outs[0] {
		if !bytes.Equal(outs[1][name], src) {
			t.Errorf("the two renders differ in %s", name)
		}
	}
}

// TestDeclsSpaced wants a blank line between every two top-level
// declarations of every file of the protocol package, the support files'
// copies included, and each file as gofmt writes it.
func TestDeclsSpaced(t *testing.T) {
	files := allProtocol(t)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if formatted, err := format.Source(files[name]); err != nil || !bytes.Equal(formatted, files[name]) {
			t.Errorf("%s is not gofmt'ed (%v)", name, err)
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, files[name], parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		prevEnd := 0
		for _, d := range file.Decls {
			start := d.Pos()
			if doc := declDoc(d); doc != nil {
				start = doc.Pos()
			}
			if line := fset.Position(start).Line; prevEnd > 0 && line <= prevEnd+1 {
				t.Errorf("%s:%d: no blank line before the declaration", name, line)
			}
			prevEnd = fset.Position(d.End()).Line
		}
	}
}

func declDoc(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

// TestStaleTasks regenerates generated/tasks, the tasks extension's
// package over generated/mcp, in memory and fails when the committed files
// differ. With -update it rewrites them instead.
func TestStaleTasks(t *testing.T) {
	ext := pipeline.Schema{Version: "draft", File: filepath.Join(sharedtest.Dir(t), "schema", "ext-tasks", "draft", "schema.json")}
	core := pipeline.Core{File: sharedtest.SchemaPath(t, shared.Versions[len(shared.Versions)-1]), Package: "github.com/mcpgen/mcpgen/generated/mcp"}
	m, err := pipeline.ExtensionModel(ext, core)
	if err != nil {
		t.Fatal(err)
	}
	files, err := gen.Protocol(m, gen.Config{Package: "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repoRoot(t), "generated", "tasks")
	if *update {
		if err := gen.WriteDir(dir, files); err != nil {
			t.Fatal(err)
		}
		return
	}
	never := func(string) bool { return false }
	if problems := compareFiles(t, dir, files, "", never); len(problems) > 0 {
		t.Errorf("generated/tasks is stale: run make generate (or go test ./gen -run TestStaleTasks -update)\n%s", strings.Join(problems, "\n"))
	}
}
