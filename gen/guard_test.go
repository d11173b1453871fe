package gen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// guardSource is a package whose scanned structs the edits of
// TestStaleStructGuard change.
const guardSource = `package guarded

import (
	"context"
	"time"
)

type AddInput struct {
	A    float64 ` + "`json:\"a\"`" + `
	B    float64 ` + "`json:\"b\" mcp:\"maximum=100\"`" + `
	Opts Options ` + "`json:\"opts\"`" + `
	note string
}

type Options struct {
	Due   *time.Time ` + "`json:\"due,omitempty\"`" + `
	Round bool       ` + "`json:\"round,omitempty\"`" + `
}

type AddOutput struct {
	Sum float64 ` + "`json:\"sum\"`" + `
}

//mcp:tool
func Add(ctx context.Context, in AddInput) (AddOutput, error) { return AddOutput{}, nil }
`

// TestStaleStructGuard generates a package, then edits one of its scanned
// structs without generating again: each edit must break go build at the
// guard, with an error that names mcpgenStaleRunGoGenerate. Generating
// again, with the stale file still on disk, must mend the build.
func TestStaleStructGuard(t *testing.T) {
	dir := tempModule(t, map[string]string{"guarded/guarded.go": guardSource})
	pkg := filepath.Join(dir, "guarded")
	generate := func() {
		t.Helper()
		h, err := gosrc.Parse(pkg)
		if err != nil {
			t.Fatal(err)
		}
		src, err := gen.Handlers(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.WriteHandlers(pkg, src); err != nil {
			t.Fatal(err)
		}
	}
	generate()
	if out, err := goCmd(dir, "build", "./..."); err != nil {
		t.Fatalf("the generated package does not build: %v\n%s", err, out)
	}
	edits := []struct{ name, old, new string }{
		{"tag", "`json:\"a\"`", "`json:\"alpha\"`"},
		{"mcp tag", "mcp:\"maximum=100\"", "mcp:\"maximum=10\""},
		{"type", "A    float64", "A    int"},
		{"new field", "note string", "note string\n\tC float64 `json:\"c\"`"},
		{"unexported field", "note string", "note []string"},
		{"nested struct", "Round bool       ", "Round string     "},
		{"pointer", "Due   *time.Time", "Due   time.Time "},
		{"output", "`json:\"sum\"`", "`json:\"total\"`"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			edited := strings.Replace(guardSource, e.old, e.new, 1)
			if edited == guardSource {
				t.Fatalf("%q is not in the source", e.old)
			}
			if err := os.WriteFile(filepath.Join(pkg, "guarded.go"), []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := goCmd(dir, "build", "./...")
			if err == nil {
				t.Fatal("go build succeeded after the struct changed")
			}
			if !strings.Contains(string(out), "in argument to mcpgenStaleRunGoGenerate[") || !strings.Contains(string(out), "mcpgen_gen.go:") {
				t.Errorf("go build failed elsewhere than at the guard:\n%s", out)
			}
		})
	}
	generate() // with the last edit, over the stale file
	if out, err := goCmd(dir, "build", "./..."); err != nil {
		t.Fatalf("go build after generating again: %v\n%s", err, out)
	}
}

// tempModule writes files into a temporary module that requires this
// repository through a replace directive, and sets the environment so
// that go/packages and go build work in it without the network.
func tempModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = fmt.Sprintf("module example.com/tmp\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => %s\n", root)
	files["go.sum"] = string(sum)
	for rel, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{"GOFLAGS": "-mod=mod -buildvcs=false", "GOPROXY": "off", "GOWORK": "off", "GOTOOLCHAIN": "local"} {
		t.Setenv(k, v)
	}
	return dir
}

func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
