package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared"
)

// recorder is a testing.TB that records Fatalf instead of stopping the test,
// so the failure path of the helpers can be checked.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(shared.EnvVar, dir)
	r := &recorder{TB: t}
	if got := Dir(r); got != dir || r.fatal != "" {
		t.Errorf("Dir() = %q (fatal %q), want %q", got, r.fatal, dir)
	}
}

func TestDirFails(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv(shared.EnvVar, missing)
	r := &recorder{TB: t}
	if got := Dir(r); got != "" {
		t.Errorf("Dir() = %q, want \"\"", got)
	}
	if !strings.Contains(r.fatal, shared.EnvVar) || !strings.Contains(r.fatal, missing) {
		t.Errorf("Fatalf message %q does not name %s and %s", r.fatal, shared.EnvVar, missing)
	}
}

func TestSchemaPathAndExamplesDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schema", "2026-07-28"), 0o755); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "schema", "2026-07-28", "schema.json")
	if err := os.WriteFile(schema, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(shared.EnvVar, dir)

	r := &recorder{TB: t}
	if got := SchemaPath(r, "2026-07-28"); got != schema || r.fatal != "" {
		t.Errorf("SchemaPath() = %q (fatal %q), want %q", got, r.fatal, schema)
	}
	r = &recorder{TB: t}
	if got := SchemaPath(r, "2024-11-05"); got != "" || !strings.Contains(r.fatal, "2024-11-05") {
		t.Errorf("SchemaPath(missing) = %q, fatal %q", got, r.fatal)
	}
	r = &recorder{TB: t}
	if got := ExamplesDir(r, "2026-07-28"); got != "" || !strings.Contains(r.fatal, "examples") {
		t.Errorf("ExamplesDir(missing) = %q, fatal %q", got, r.fatal)
	}
}
