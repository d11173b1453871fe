package pipeline

import (
	"bytes"
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// registerName matches the names of the Register functions mcpgen
// generates: Register for a package's functions, Register<Recv> for the
// methods of a receiver type.
var registerName = regexp.MustCompile(`^Register(\p{Lu}\w*)?$`)

// errNoImports is what checkRegisterCalls's importer answers: the check
// needs the package's own names only.
var errNoImports = errors.New("imports are not read")

// checkRegisterCalls refuses a handler file, src (nil for none), that
// would leave the package calling a Register function no file declares:
// turning a scaffolded project's tools into methods replaces Register with
// Register<Recv>, which main.go does not call, and go build would only say
// "undefined: Register". The error names the call and what to call
// instead. Calls from other packages are out of its sight.
//
// The check type-checks the package's files (its tests included) with src
// and without their imports, whose names go/types then leaves unchecked,
// and keeps the "undefined: Register..." errors: scoping is the type
// checker's, so a local variable named Register is not taken for a call
// of the generated function.
func checkRegisterCalls(dir string, src []byte) error {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil // the load has reported it
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, group := range [][]string{bp.GoFiles, bp.CgoFiles, bp.TestGoFiles} {
		for _, name := range group {
			if name == gosrc.GeneratedFile {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil // the load has reported it
			}
			files = append(files, f)
		}
	}
	var regs []*ast.FuncDecl
	if src != nil {
		f, err := parser.ParseFile(fset, gosrc.GeneratedFile, src, parser.SkipObjectResolution)
		if err != nil {
			return &InternalError{err}
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && registerName.MatchString(fd.Name.Name) {
				regs = append(regs, fd)
			}
		}
	}
	var missing *types.Error
	conf := types.Config{
		Importer: importerFunc(func(string) (*types.Package, error) { return nil, errNoImports }),
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok || missing != nil {
				return
			}
			if name, ok := strings.CutPrefix(te.Msg, "undefined: "); ok && registerName.MatchString(name) {
				missing = &te
			}
		},
	}
	conf.Check(bp.ImportPath, fset, files, nil) // the errors that matter reach Error
	if missing == nil {
		return nil
	}
	name := strings.TrimPrefix(missing.Msg, "undefined: ")
	p := fset.Position(missing.Pos)
	pos := model.SrcPos{File: filepath.Base(p.Filename), Line: p.Line}
	if len(regs) == 0 {
		return hint.Wrap(model.SrcErrorf(pos, "%s is called here, but package %s has no //mcp: directives: mcpgen generates no Register function for it", name, bp.Name),
			"mark the handlers with //mcp:tool, //mcp:prompt or //mcp:resource, or stop calling "+name)
	}
	var sigs, calls []string
	methodsOnly := true
	for _, fd := range regs {
		sigs = append(sigs, signature(fset, fd))
		calls = append(calls, callOf(fd))
		if fd.Name.Name == "Register" {
			methodsOnly = false
		}
	}
	msg := name + " is called here, but " + gosrc.GeneratedFile + " declares " + strings.Join(sigs, " and ")
	if name == "Register" && methodsOnly {
		msg += ": every handler is a method, registered with a value of its receiver type"
	}
	h := "call " + strings.Join(calls, " and ") + " in place of " + name + ", then run go generate again"
	return hint.Wrap(model.SrcErrorf(pos, "%s", msg), h)
}

// signature writes a generated Register function's name, parameters and
// result: RegisterStore(s *server.Server, r *Store) error.
func signature(fset *token.FileSet, fd *ast.FuncDecl) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, &ast.FuncDecl{Name: fd.Name, Type: fd.Type}); err != nil {
		return fd.Name.Name
	}
	return strings.TrimPrefix(b.String(), "func ")
}

// callOf writes how to call a generated Register function: Register(s),
// or RegisterStore(s, r) with what r is.
func callOf(fd *ast.FuncDecl) string {
	var args, recv []string
	for _, field := range fd.Type.Params.List {
		for _, n := range field.Names {
			args = append(args, n.Name)
			if n.Name != "s" {
				recv = append(recv, n.Name+": the "+types.ExprString(field.Type))
			}
		}
	}
	call := fd.Name.Name + "(" + strings.Join(args, ", ") + ")"
	if len(recv) > 0 {
		call += " (" + strings.Join(recv, ", ") + " whose methods serve the requests)"
	}
	return call
}

// importerFunc is a types.Importer made of a function.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
