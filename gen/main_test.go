package gen_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
)

// update rewrites generated/mcp and the golden files instead of comparing
// with them: go test ./gen -update.
var update = flag.Bool("update", false, "rewrite generated/mcp and golden/*/*.golden from the generator")

// repoRoot is the absolute path of the module root (the parent of gen/).
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// isGenerated reports whether src starts with the generated-code header.
func isGenerated(src []byte) bool {
	line, _, _ := bytes.Cut(src, []byte("\n"))
	return string(line) == "// "+gen.Header
}

// compareFiles compares generated files with the files on disk in dir whose
// first line is the generated header, and returns one line per difference:
// changed, missing on disk, or on disk but no longer generated. skip leaves
// out files by name.
func compareFiles(t *testing.T, dir string, files map[string][]byte, suffix string, skip func(string) bool) []string {
	t.Helper()
	var problems []string
	onDisk := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), suffix)
		if e.IsDir() || !ok || skip(name) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if isGenerated(data) {
			onDisk[name] = data
		}
	}
	for _, name := range sortedKeys(files) {
		if skip(name) {
			continue
		}
		old, ok := onDisk[name]
		switch {
		case !ok:
			problems = append(problems, name+suffix+": generated but not on disk")
		case !bytes.Equal(old, files[name]):
			problems = append(problems, name+suffix+": differs"+firstDiff(old, files[name]))
		}
	}
	for _, name := range sortedKeys(onDisk) {
		if _, ok := files[name]; !ok {
			problems = append(problems, name+suffix+": on disk but no longer generated")
		}
	}
	return problems
}

// firstDiff names the first line where have and want part.
func firstDiff(have, want []byte) string {
	h := strings.Split(string(have), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b || i >= len(h) || i >= len(w) {
			return fmt.Sprintf(" at line %d:\n\ton disk:   %q\n\tgenerated: %q", i+1, a, b)
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// buildModule writes pkgs (directory → file name → source) into a
// temporary module that requires this repository through a replace
// directive, then runs go vet on it. Vet type-checks every package as the
// compiler would, so code that does not compile fails it; it skips the
// compiler's code generation, which for the five protocol packages cost
// most of gen's test time, and unlike a build of a fresh temporary module
// its results are cached by content. It needs no network: GOPROXY=off,
// and the module cache already holds the dependencies.
func buildModule(t *testing.T, pkgs map[string]map[string][]byte) {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	gomod := fmt.Sprintf("module example.com/tmp\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => %s\n", root)
	write := func(rel string, data []byte) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	for pkg, files := range pkgs {
		for name, src := range files {
			write(pkg+"/"+name, src)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GOFLAGS=-mod=mod -buildvcs=false",
			"GOPROXY=off",
			"GOWORK=off",
			"GOTOOLCHAIN=local",
		)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s in the temporary module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
