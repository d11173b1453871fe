package gen_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/parser/schema"
)

// goldenVersion is the protocol version every golden case is generated as.
const goldenVersion = "2026-07-28"

// isSupport reports whether name is one of the hand-written support files,
// the same for every case and so not kept as golden files.
func isSupport(name string) bool { return strings.HasPrefix(name, "support_") }

// goldenCases lists the folders of golden/ that hold a schema.json.
func goldenCases(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "schema.json")); e.IsDir() && err == nil {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	return cases
}

// caseSchemas lists the schemas of a case: schema.json as goldenVersion,
// merged with schema.<version>.json files beside it for the older versions
// of cases whose subject is the multi-version merge.
func caseSchemas(t *testing.T, caseDir string) []pipeline.Schema {
	t.Helper()
	schemas := []pipeline.Schema{{Version: goldenVersion, File: filepath.Join(caseDir, "schema.json")}}
	older, err := filepath.Glob(filepath.Join(caseDir, "schema.*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range older {
		v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "schema."), ".json")
		if v >= goldenVersion {
			t.Fatalf("%s: an older version must come before %s", f, goldenVersion)
		}
		schemas = append(schemas, pipeline.Schema{Version: v, File: f})
	}
	return schemas
}

// packageName turns a case folder name into a Go package name.
func packageName(c string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(c)
}

// TestGolden generates each golden/<case>/schema.json (with the older
// versions beside it, see caseSchemas) and compares the output with
// golden/<case>/*.golden; -update rewrites them. The outputs
// are then built and vetted together in a temporary module.
func TestGolden(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "golden")
	pkgs := map[string]map[string][]byte{}
	for _, c := range goldenCases(t, dir) {
		t.Run(c, func(t *testing.T) {
			caseDir := filepath.Join(dir, c)
			files, err := pipeline.Protocol(caseSchemas(t, caseDir), packageName(c))
			if err != nil {
				t.Fatal(err)
			}
			pkgs[c] = files
			if *update {
				writeGolden(t, caseDir, files)
				return
			}
			if problems := compareFiles(t, caseDir, files, ".golden", isSupport); len(problems) > 0 {
				t.Errorf("golden/%s is stale: run go test ./gen -run TestGolden -update\n%s", c, strings.Join(problems, "\n"))
			}
		})
	}
	if t.Failed() {
		return
	}
	buildModule(t, pkgs)
}

// writeGolden replaces the *.golden files of a case.
func writeGolden(t *testing.T, caseDir string, files map[string][]byte) {
	t.Helper()
	old, err := filepath.Glob(filepath.Join(caseDir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range files {
		if isSupport(name) {
			continue
		}
		if err := os.WriteFile(filepath.Join(caseDir, name+".golden"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoldenBad generates each golden/bad/<case>/schema.json and wants an
// error that names the file and a JSON pointer and contains the text of
// golden/bad/<case>/error.golden.
func TestGoldenBad(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "golden", "bad")
	for _, c := range goldenCases(t, dir) {
		t.Run(c, func(t *testing.T) {
			caseDir := filepath.Join(dir, c)
			want, err := os.ReadFile(filepath.Join(caseDir, "error.golden"))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(caseDir, "schema.json")
			files, err := pipeline.Protocol([]pipeline.Schema{{Version: goldenVersion, File: file}}, packageName(c))
			if err == nil {
				t.Fatalf("generated %d files, want an error containing %q", len(files), want)
			}
			if !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
				t.Errorf("error %q does not contain %q", err, strings.TrimSpace(string(want)))
			}
			var pos struct{ file, ptr string }
			var se *schema.Error
			var me *model.Error
			switch {
			case errors.As(err, &se):
				pos.file, pos.ptr = se.File, se.Pointer
			case errors.As(err, &me):
				pos.file, pos.ptr = me.Pos.File, me.Pos.Pointer
			default:
				t.Fatalf("error %q (%T) is neither a *schema.Error nor a *model.Error", err, err)
			}
			if pos.file != file {
				t.Errorf("error %q names file %q, want %q", err, pos.file, file)
			}
			if pos.ptr == "" && c != "malformed_json" {
				t.Errorf("error %q has no JSON pointer", err)
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("error %q does not print the file", err)
			}
		})
	}
}
