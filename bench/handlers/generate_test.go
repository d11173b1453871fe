package handlers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGenerate100Tools writes a package of 100 tools into a temporary
// directory inside this module, builds mcpgen once, and times one mcpgen
// run over the package, as go generate would run it (go test -v shows the
// time; there is no assertion on it). The package must then compile.
func TestGenerate100Tools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpgen and a 100-tool package")
	}
	dir, err := os.MkdirTemp(".", "tmp-gen100-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var b strings.Builder
	b.WriteString("package gen100\n\nimport \"context\"\n")
	for i := range 100 {
		fmt.Fprintf(&b, `
// Input%[1]d is the input of tool %[1]d.
type Input%[1]d struct {
	// A name.
	Name string `+"`json:\"name\" mcp:\"minLength=1\"`"+`
	// A count.
	Count int `+"`json:\"count,omitempty\" mcp:\"minimum=0,maximum=1000\"`"+`
	// Some tags.
	Tags []string `+"`json:\"tags,omitempty\" mcp:\"maxItems=5\"`"+`
	Next *Input%[1]d `+"`json:\"next,omitempty\"`"+`
}

// Output%[1]d is the output of tool %[1]d.
type Output%[1]d struct {
	Total int `+"`json:\"total\"`"+`
}

// Tool%[1]d is tool number %[1]d.
//
//mcp:tool readonly
func Tool%[1]d(ctx context.Context, in Input%[1]d) (Output%[1]d, error) {
	return Output%[1]d{Total: in.Count}, nil
}
`, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mcpgen")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/mcpgen/mcpgen/cmd/mcpgen").CombinedOutput(); err != nil {
		t.Fatalf("build mcpgen: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFILE=tools.go")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("mcpgen: %v\n%s", err, out)
	}
	t.Logf("mcpgen on a package of 100 tools: %.2fs", elapsed.Seconds())
	if out, err := exec.Command("go", "vet", "./"+filepath.Base(dir)).CombinedOutput(); err != nil {
		t.Fatalf("the generated package does not compile: %v\n%s", err, out)
	}
}
