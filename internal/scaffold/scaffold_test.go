package scaffold

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/hint"
)

var update = flag.Bool("update", false, "rewrite golden/init from the scaffold")

// replaceMark stands for the checkout's absolute path in golden files.
const replaceMark = "/path/to/mcpgen"

// checkout returns the root of this checkout.
func checkout(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := ModuleRoot(filepath.Dir(file))
	if root == "" {
		t.Fatal("no mcpgen checkout above the test")
	}
	return root
}

// offline makes go mod tidy use the module cache alone.
func offline(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// With the proxy off the checksum database is out of reach too; the
	// modules in the cache were checked against it when downloaded.
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOTOOLCHAIN", "local")
}

// readTree reads every file under dir but go.sum, with the checkout's path
// replaced by replaceMark.
func readTree(t *testing.T, dir, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "go.sum" {
			return nil
		}
		data, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = bytes.ReplaceAll(data, []byte(root), []byte(replaceMark))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// compareGolden compares files with golden/init/<name>/<file>.golden.
func compareGolden(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join(checkout(t), "golden", "init", name)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for file, data := range files {
			path := filepath.Join(dir, filepath.FromSlash(file)+".golden")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := readTree(t, dir, "\x00")
	var names []string
	for file := range want {
		names = append(names, strings.TrimSuffix(file, ".golden"))
	}
	for file := range files {
		if _, ok := want[file+".golden"]; !ok {
			t.Errorf("%s: %s is not in the golden files (go test -update)", name, file)
		}
	}
	sort.Strings(names)
	for _, file := range names {
		got, ok := files[file]
		if !ok {
			t.Errorf("%s: %s was not written", name, file)
			continue
		}
		if !bytes.Equal(got, want[file+".golden"]) {
			t.Errorf("%s: %s differs from its golden file (go test -update refreshes it):\n%s", name, file, got)
		}
	}
}

// TestRenderGolden renders the stdio-only and HTTP-only projects, checks
// that their Go files are gofmt'ed and compares them with golden/init.
func TestRenderGolden(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			files, err := Render(Options{Name: "demo", Module: "example.com/demo", Transport: transport, Replace: replaceMark})
			if err != nil {
				t.Fatal(err)
			}
			checkFormatted(t, files)
			compareGolden(t, transport, files)
		})
	}
}

func checkFormatted(t *testing.T, files map[string][]byte) {
	t.Helper()
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		out, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !bytes.Equal(out, src) {
			t.Errorf("%s is not gofmt'ed", name)
		}
	}
}

// TestCreateGolden creates the default project (both transports) as mcpgen
// init does, offline against this checkout, and compares every file but
// go.sum with golden/init/both.
func TestCreateGolden(t *testing.T) {
	offline(t)
	root := checkout(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if err := Create(context.Background(), dir, Options{Name: "demo", Replace: root}, false, nil); err != nil {
		t.Fatalf("%v (hint: %s)", err, hint.Of(err))
	}
	files := readTree(t, dir, root)
	checkFormatted(t, files)
	for _, want := range []string{"go.mod", "main.go", "tools.go", "tools_test.go", "mcpgen_gen.go", "README.md", "Makefile", ".mcp.json", ".vscode/mcp.json", "clients/claude_desktop_config.json"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s is missing", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		t.Errorf("go.sum: %v", err)
	}
	for _, s := range []string{"tool github.com/mcpgen/mcpgen/cmd/mcpgen", "replace github.com/mcpgen/mcpgen => " + replaceMark} {
		if !bytes.Contains(files["go.mod"], []byte(s)) {
			t.Errorf("go.mod lacks %q:\n%s", s, files["go.mod"])
		}
	}
	if !bytes.Contains(files["tools.go"], []byte("//go:generate go tool mcpgen")) {
		t.Error("tools.go lacks the go:generate line")
	}
	compareGolden(t, "both", files)
	siblings, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(siblings) != 1 {
		t.Errorf("left beside the project: %v", siblings)
	}
}

// TestCreateRefuses checks the refusals, and that they leave nothing behind.
func TestCreateRefuses(t *testing.T) {
	parent := t.TempDir()
	full := filepath.Join(parent, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		o         Options
		msg, hint string
	}{
		{"non-empty", full, Options{Name: "full", Replace: replaceMark}, "is not empty", "--force"},
		{"bad name", filepath.Join(parent, "x"), Options{Name: "1x", Replace: replaceMark}, `"1x" is not a valid name`, "starts with a letter"},
		{"bad module", filepath.Join(parent, "x"), Options{Name: "x", Module: "a//b", Replace: replaceMark}, `module path "a//b" is not valid`, "slash-separated"},
		{"bad transport", filepath.Join(parent, "x"), Options{Name: "x", Transport: "smoke", Replace: replaceMark}, `unknown transport "smoke"`, "stdio, http, both"},
		{"no version", filepath.Join(parent, "x"), Options{Name: "x"}, "no mcpgen version", "--replace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Create(context.Background(), tc.dir, tc.o, false, nil)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(hint.Of(err), tc.hint) {
				t.Errorf("err = %v (hint %q), want %q with hint %q", err, hint.Of(err), tc.msg, tc.hint)
			}
		})
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("left in %s: %v", parent, entries)
	}
	if data, err := os.ReadFile(filepath.Join(full, "keep.txt")); err != nil || string(data) != "mine" {
		t.Errorf("keep.txt: %q, %v", data, err)
	}
}

// TestCreateForce writes into a non-empty directory, keeping its other files.
func TestCreateForce(t *testing.T) {
	offline(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "NOTES"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Create(context.Background(), dir, Options{Name: "forced", Replace: checkout(t)}, true, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "NOTES")); string(data) != "mine" {
		t.Error("NOTES was lost")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "README.md")); !bytes.HasPrefix(data, []byte("# forced")) {
		t.Errorf("README.md = %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcpgen_gen.go")); err != nil {
		t.Error(err)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"demo", "weather-server", "a_b", "X1"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1demo", "-x", "a b", "a/b", "..", "é", strings.Repeat("a", 65)} {
		var h *hint.Error
		if err := CheckName(bad); !errors.As(err, &h) {
			t.Errorf("%q: err %v, want a hinted error", bad, err)
		}
	}
}

func TestRunningFindsCheckout(t *testing.T) {
	// A test binary's main module is mcpgen at "(devel)".
	src := Running()
	if src.Version != "" || src.Checkout != checkout(t) {
		t.Errorf("Running() = %+v, want the checkout %s", src, checkout(t))
	}
}
