package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// mcpgen runs the command line and returns its exit code and stderr.
func mcpgen(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"mcpgen"}, args...), &stdout, &stderr)
	return code, stderr.String()
}

// oneLine fails t unless stderr is a single line naming want.
func oneLine(t *testing.T, stderr, want string) {
	t.Helper()
	if strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") != 0 {
		t.Errorf("stderr is not one line:\n%s", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
}

// copySchema copies the 2026-07-28 schema to dir/name and returns its path.
func copySchema(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(sharedtest.SchemaPath(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBareFileTakesVersionFromDirectory(t *testing.T) {
	file := sharedtest.SchemaPath(t, "2026-07-28")
	out := filepath.Join(t.TempDir(), "mcp")
	if code, stderr := mcpgen(t, "protocol", "--schema", file, "--out", out, "--package", "mcp"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(out, "versions_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(`"2026-07-28"`)) {
		t.Error("versions_gen.go does not name version 2026-07-28")
	}
}

func TestUserErrors(t *testing.T) {
	tmp := t.TempDir()
	unversioned := copySchema(t, filepath.Join(tmp, "schemas"))
	good := sharedtest.SchemaPath(t, "2026-07-28")
	out := filepath.Join(tmp, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"bare file, directory not a version", []string{"--schema", unversioned, "--out", out}, "cannot tell the version", exitInput},
		{"bad version", []string{"--schema", "2026-7-28=" + good, "--out", out}, "not of the form YYYY-MM-DD", exitInput},
		{"no file after =", []string{"--schema", "2026-07-28=", "--out", out}, "no file after =", exitInput},
		{"missing --out", []string{"--schema", good}, "protocol needs --out", exitUsage},
		{"missing --schema", []string{"--out", out}, "protocol needs --schema", exitUsage},
		{"bad package name", []string{"--schema", good, "--out", out, "--package", "no-dash"}, "not a Go identifier", exitInput},
		{"version twice", []string{"--schema", good, "--schema", "2026-07-28=" + good, "--out", out}, "given twice", exitInput},
		{"missing file", []string{"--schema", "2026-07-28=" + filepath.Join(tmp, "none.json"), "--out", out}, "none.json", exitInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := mcpgen(t, append([]string{"protocol"}, tc.args...)...)
			if want := tc.code; code != want {
				t.Errorf("exit code %d, want %d", code, want)
			}
			if tc.code == exitUsage {
				stderr, _, _ = strings.Cut(stderr, "\nhint: ") // a usage error has a hint
			}
			oneLine(t, stderr, tc.want)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out %s exists after a failure (%v)", out, err)
			}
		})
	}
}

// badCases lists the folders of golden/bad.
func badCases(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join("..", "..", "golden", "bad", "*", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatal("no cases in golden/bad")
	}
	return matches
}

// TestBadSchemaLeavesNoOutput runs every golden/bad schema through the
// command: exit code 1, a one-line cause naming the file, and no output
// directory left behind.
func TestBadSchemaLeavesNoOutput(t *testing.T) {
	for _, file := range badCases(t) {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "mcp")
			code, stderr := mcpgen(t, "protocol", "--schema", "2026-07-28="+file, "--out", out)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			oneLine(t, stderr, file)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out %s exists after a failure (%v)", out, err)
			}
			entries, err := os.ReadDir(filepath.Dir(out))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Errorf("files left beside --out: %v", entries)
			}
		})
	}
}

// TestBadSchemaKeepsExistingOutput checks that a failed run leaves an
// existing --out directory as it was.
func TestBadSchemaKeepsExistingOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mcp")
	good := sharedtest.SchemaPath(t, "2026-07-28")
	if code, stderr := mcpgen(t, "protocol", "--schema", good, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	hand := filepath.Join(out, "doc.go")
	if err := os.WriteFile(hand, []byte("package mcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	bad := badCases(t)[0]
	if code, _ := mcpgen(t, "protocol", "--schema", "2026-07-28="+bad, "--out", out); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	after := snapshot(t, out)
	if len(before) != len(after) {
		t.Errorf("%d files before, %d after", len(before), len(after))
	}
	for name, data := range before {
		if !bytes.Equal(data, after[name]) {
			t.Errorf("%s changed", name)
		}
	}
	siblings, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(siblings) != 1 {
		t.Errorf("files left beside --out: %v", siblings)
	}
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}
