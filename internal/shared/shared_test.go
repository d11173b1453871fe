package shared

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree builds, under a temporary folder,
//
//	repo/go.mod                 module github.com/mcpgen/mcpgen
//	repo/bench/go.mod           module github.com/mcpgen/mcpgen/bench
//	repo/bench/protocol/
//	shared/schema/2026-07-28/schema.json   (when withShared)
//	shared/examples/2026-07-28/            (when withShared)
//
// and returns the temporary folder.
func tree(t *testing.T, withShared bool) string {
	t.Helper()
	top := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		path := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/go.mod", "// The main module.\nmodule github.com/mcpgen/mcpgen // here\n\ngo 1.26\n")
	write("repo/bench/go.mod", "module github.com/mcpgen/mcpgen/bench\n\ngo 1.26\n")
	if err := os.MkdirAll(filepath.Join(top, "repo", "bench", "protocol"), 0o755); err != nil {
		t.Fatal(err)
	}
	if withShared {
		write("shared/schema/2026-07-28/schema.json", "{}")
		if err := os.MkdirAll(filepath.Join(top, "shared", "examples", "2026-07-28"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return top
}

func samePath(t *testing.T, got, want string) {
	t.Helper()
	g, err := filepath.EvalSymlinks(got)
	if err != nil {
		t.Fatalf("got %s: %v", got, err)
	}
	w, err := filepath.EvalSymlinks(want)
	if err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	if g != w {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestDirFromEnv(t *testing.T) {
	top := tree(t, true)
	want := filepath.Join(top, "shared")
	t.Setenv(EnvVar, want)
	t.Chdir(t.TempDir()) // the working directory must not matter
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	samePath(t, got, want)
}

func TestDirFromEnvRelative(t *testing.T) {
	top := tree(t, true)
	t.Chdir(filepath.Join(top, "repo"))
	t.Setenv(EnvVar, "../shared")
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(got) {
		t.Errorf("Dir() = %s, want an absolute path", got)
	}
	samePath(t, got, filepath.Join(top, "shared"))
}

func TestDirFromEnvBad(t *testing.T) {
	top := tree(t, true)
	tests := []struct{ name, value string }{
		{"missing", filepath.Join(top, "nowhere")},
		{"file", filepath.Join(top, "repo", "go.mod")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value := tt.value
			t.Setenv(EnvVar, value)
			_, err := Dir()
			if err == nil {
				t.Fatalf("Dir() with %s=%s succeeded", EnvVar, value)
			}
			for _, part := range []string{EnvVar, value} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not name %s", err, part)
				}
			}
		})
	}
}

func TestDirBesideModuleRoot(t *testing.T) {
	top := tree(t, true)
	t.Setenv(EnvVar, "")
	for _, rel := range []string{"repo", "repo/bench", "repo/bench/protocol"} {
		t.Run(rel, func(t *testing.T) {
			t.Chdir(filepath.Join(top, filepath.FromSlash(rel)))
			got, err := Dir()
			if err != nil {
				t.Fatal(err)
			}
			samePath(t, got, filepath.Join(top, "shared"))
		})
	}
}

func TestDirNoSharedBesideRoot(t *testing.T) {
	top := tree(t, false)
	t.Setenv(EnvVar, "")
	t.Chdir(filepath.Join(top, "repo", "bench"))
	_, err := Dir()
	if err == nil {
		t.Fatal("Dir() succeeded without a shared folder")
	}
	for _, part := range []string{EnvVar, filepath.Join(top, "shared")} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not name %s", err, part)
		}
	}
}

func TestDirOutsideModule(t *testing.T) {
	t.Setenv(EnvVar, "")
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := Dir()
	if err == nil {
		t.Fatal("Dir() succeeded outside the module")
	}
	for _, part := range []string{EnvVar, ModulePath} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not name %s", err, part)
		}
	}
}

func TestModulePath(t *testing.T) {
	for _, tc := range []struct {
		gomod, want string
	}{
		{"module github.com/mcpgen/mcpgen\n", "github.com/mcpgen/mcpgen"},
		{"module \"github.com/mcpgen/mcpgen\"\n", "github.com/mcpgen/mcpgen"},
		{"// comment\n\tmodule   github.com/mcpgen/mcpgen // trailing\ngo 1.26\n", "github.com/mcpgen/mcpgen"},
		{"module github.com/mcpgen/mcpgen/bench\n", "github.com/mcpgen/mcpgen/bench"},
		{"modules github.com/mcpgen/mcpgen\n", ""},
		{"go 1.26\n", ""},
	} {
		name := filepath.Join(t.TempDir(), "go.mod")
		if err := os.WriteFile(name, []byte(tc.gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := modulePath(name)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("modulePath(%q) = %q, want %q", tc.gomod, got, tc.want)
		}
	}
}

func TestSchemaPath(t *testing.T) {
	top := tree(t, true)
	t.Setenv(EnvVar, filepath.Join(top, "shared"))
	got, err := SchemaPath("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	samePath(t, got, filepath.Join(top, "shared", "schema", "2026-07-28", "schema.json"))

	for _, version := range []string{"2024-11-05", "", "..", "../2026-07-28", `a\b`} {
		if got, err := SchemaPath(version); err == nil {
			t.Errorf("SchemaPath(%q) = %s, want an error", version, got)
		}
	}
}

func TestExamplesDir(t *testing.T) {
	top := tree(t, true)
	t.Setenv(EnvVar, filepath.Join(top, "shared"))
	got, err := ExamplesDir("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	samePath(t, got, filepath.Join(top, "shared", "examples", "2026-07-28"))

	for _, version := range []string{"2025-11-25", "..", "x/y"} {
		if got, err := ExamplesDir(version); err == nil {
			t.Errorf("ExamplesDir(%q) = %s, want an error", version, got)
		}
	}
}

// TestCheckoutHasEveryVersion checks the real shared folder that this
// repository is run against: every supported version has its schema.
func TestCheckoutHasEveryVersion(t *testing.T) {
	if !slices.IsSorted(Versions) {
		t.Errorf("Versions %v is not oldest first", Versions)
	}
	for _, v := range Versions {
		if _, err := SchemaPath(v); err != nil {
			t.Error(err)
		}
	}
	if _, err := ExamplesDir(Versions[len(Versions)-1]); err != nil {
		t.Error(err)
	}
}
