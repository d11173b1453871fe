package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// TestSetters generates golden/setters (three versions of one struct) and
// checks which fields get a Set method: integer, number and boolean
// properties that some version requires but that are written only when
// set. Fields written always, optional everywhere, strings and nullable
// pointers get none. The golden files show the code; this test pins the
// choice, so that an -update cannot quietly change it.
func TestSetters(t *testing.T) {
	caseDir := filepath.Join(repoRoot(t), "golden", "setters")
	files, err := pipeline.Protocol(caseSchemas(t, caseDir), "setters")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "types_gen.go", files["types_gen.go"], parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	type method struct{ param, doc string }
	got := map[string]method{}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "Set") {
			continue
		}
		recv := fn.Recv.List[0].Type.(*ast.StarExpr).X.(*ast.Ident).Name
		param := fn.Type.Params.List[0].Type.(*ast.Ident).Name
		got[recv+"."+fn.Name.Name] = method{param, strings.Join(strings.Fields(fn.Doc.Text()), " ")}
	}
	want := map[string]method{
		"Page.SetLegacy": {"bool", "SetLegacy sets Legacy and marks it present, so that it is encoded even when false: versions 2025-06-18 and 2025-11-25 require it."},
		"Page.SetTTL":    {"int64", "SetTTL sets TTL and marks it present, so that it is encoded even when zero: version 2026-07-28 requires it."},
		"Page.SetFresh":  {"bool", "SetFresh sets Fresh and marks it present, so that it is encoded even when false: version 2026-07-28 requires it."},
		"Page.SetRatio":  {"float64", "SetRatio sets Ratio and marks it present, so that it is encoded even when zero: version 2026-07-28 requires it."},
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		switch g, ok := got[name]; {
		case !ok:
			t.Errorf("no %s", name)
		case g != want[name]:
			t.Errorf("%s(%s) %q, want (%s) %q", name, g.param, g.doc, want[name].param, want[name].doc)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected %s", name)
		}
	}
	// Every setter sets the bit that encoding and validation test.
	for _, src := range []string{"json_gen.go", "validate_gen.go"} {
		for _, bit := range []string{"bitPageLegacy", "bitPageTTL", "bitPageFresh", "bitPageRatio"} {
			if !strings.Contains(string(files[src]), "x.has&"+bit) {
				t.Errorf("%s does not test x.has&%s", src, bit)
			}
		}
	}
}
