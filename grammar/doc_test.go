package grammar_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReferenceCoversTheParser fails when parser/gosrc accepts a directive
// option or a tag keyword that this package's reference does not mention,
// so that the two cannot drift apart unnoticed.
func TestReferenceCoversTheParser(t *testing.T) {
	doc := packageDoc(t, "doc.go")
	src := filepath.Join("..", "parser", "gosrc")
	var words []string
	// The options of //mcp:tool: the case labels of toolDirective.
	ast.Inspect(funcDecl(t, filepath.Join(src, "directive.go"), "toolDirective"), func(n ast.Node) bool {
		if cc, ok := n.(*ast.CaseClause); ok {
			words = append(words, stringLits(cc.List)...)
		}
		return true
	})
	// The options of //mcp:prompt and //mcp:resource: the keys their
	// handlers pass to entryDirective.
	for _, fn := range []string{"prompt", "resource"} {
		ast.Inspect(funcDecl(t, filepath.Join(src, "entries.go"), fn), func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "entryDirective" {
					words = append(words, stringLits(call.Args)...)
				}
			}
			return true
		})
	}
	// The keywords of the mcp:"..." tag.
	tagKeys := constString(t, filepath.Join(src, "tag.go"), "tagKeys")
	words = append(words, strings.Split(tagKeys, ", ")...)
	if len(words) < 20 {
		t.Fatalf("found only %d options and keywords in parser/gosrc: %q; has the parser changed shape?", len(words), words)
	}
	for _, w := range words {
		if !regexp.MustCompile(`(^|[\s\[(,])` + regexp.QuoteMeta(w) + `($|[=\s\]),.;:])`).MatchString(doc) {
			t.Errorf("the grammar reference does not mention %q, which parser/gosrc accepts", w)
		}
	}
}

func packageDoc(t *testing.T, path string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	return f.Doc.Text()
}

func parseFile(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func funcDecl(t *testing.T, path, name string) *ast.FuncDecl {
	t.Helper()
	for _, d := range parseFile(t, path).Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return fd
		}
	}
	t.Fatalf("%s: no function %s", path, name)
	return nil
}

func constString(t *testing.T, path, name string) string {
	t.Helper()
	for _, d := range parseFile(t, path).Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					if v := stringLits(vs.Values[i : i+1]); len(v) == 1 {
						return v[0]
					}
				}
			}
		}
	}
	t.Fatalf("%s: no string constant %s", path, name)
	return ""
}

// stringLits returns the values of the string literals among exprs.
func stringLits(exprs []ast.Expr) []string {
	var out []string
	for _, e := range exprs {
		if bl, ok := e.(*ast.BasicLit); ok && bl.Kind == token.STRING {
			if s, err := strconv.Unquote(bl.Value); err == nil {
				out = append(out, s)
			}
		}
	}
	return out
}
