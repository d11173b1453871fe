package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// TestErrFuncs checks that fielderrFuncs names exactly the exported
// functions of runtime/fielderr: a name the package lacks would be emitted
// into code that does not compile, and a function missing from the table
// could not be emitted at all.
func TestErrFuncs(t *testing.T) {
	dir := filepath.Join("..", "runtime", "fielderr")
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				exported[fd.Name.Name] = true
			}
		}
	}
	got, want := slices.Sorted(maps.Keys(fielderrFuncs)), slices.Sorted(maps.Keys(exported))
	if !slices.Equal(got, want) {
		t.Errorf("fielderrFuncs = %v\nruntime/fielderr exports %v", got, want)
	}
}

func TestErrCall(t *testing.T) {
	f := jen.NewFile("p")
	f.ImportName(fielderrPkg, "fielderr")
	f.Var().Id("e").Op("=").Add(compose(atIndex("i"), compose(atKey("k"), atField("content")))(errCall("Required")))
	f.Var().Id("g").Op("=").Add(atFieldVar("string(key)")(fieldErr("bad")))
	src := f.GoString()
	for _, want := range []string{
		`fielderr.AtField(fielderr.AtKey(fielderr.AtIndex(fielderr.Required(), i), k), "content")`,
		`fielderr.AtField(fielderr.New("bad"), string(key))`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("emitted\n%s\nwant %s", src, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("errCall of a name fielderr lacks did not panic")
		}
	}()
	errCall("Err")
}
