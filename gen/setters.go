package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// A setter is the Set method the model names for a field whose zero value
// is legitimate but would read as absent (model.Field.Setter): assigning
// the field cannot say "present and 0", the setter does, by also setting
// the field's presence bit, which the generator names as a constant.
type setter struct {
	// method is the setter's name, from the model.
	method string
	// bit is the name of the constant holding the field's presence bit
	// (protonames.go).
	bit string
}

// collectSetters collects the model's setters, with the presence bit each
// sets.
func (g *generator) collectSetters() error {
	g.setters = map[*model.Field]*setter{}
	for _, t := range g.m.Types {
		if t.Kind != model.Struct {
			continue
		}
		for _, fd := range t.Fields {
			if fd.Setter == "" {
				continue
			}
			if g.emitAlways(t, fd) || g.pointerField(fd) {
				return fmt.Errorf("%s: %s.%s has the setter %s but is written without it", fd.Pos, t.Name, fd.GoName, fd.Setter)
			}
			g.setters[fd] = &setter{method: fd.Setter, bit: g.names.bit[fd]}
		}
	}
	return nil
}

// supportNames returns the package-level names the support files declare,
// each mapped to a description for error messages.
func supportNames() (map[string]string, error) {
	names := map[string]string{}
	paths, err := fs.Glob(supportFS, "support/*.go")
	if err != nil {
		return nil, err
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := supportFS.ReadFile(path)
		if err != nil {
			return nil, err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for name, kind := range declaredNames(file) {
			names[name] = "the support " + kind + " " + name
		}
	}
	return names, nil
}

// declaredNames maps each package-level name a file declares to what it
// is: function, type or declaration.
func declaredNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = "function"
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					names[spec.Name.Name] = "type"
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						names[id.Name] = "declaration"
					}
				}
			}
		}
	}
	return names
}

// hasSetters reports whether any field of t has a setter.
func (g *generator) hasSetters(t *model.Type) bool {
	for _, fd := range t.Fields {
		if g.setters[fd] != nil {
			return true
		}
	}
	return false
}

// setterDecls renders, after struct t, the setter of each field that
// needs one.
func (g *generator) setterDecls(f *jen.File, t *model.Type) {
	for _, fd := range t.Fields {
		s := g.setters[fd]
		if s == nil {
			continue
		}
		zero := "zero"
		if g.named(fd.Type).Prim == model.Boolean {
			zero = "false"
		}
		f.Add(lineComments(fmt.Sprintf("%s sets %s and marks it present, so that it is encoded even\nwhen %s: %s.", s.method, fd.GoName, zero, g.requiredBy(fd.Required))))
		f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id(s.method).Params(jen.Id("v").Add(g.fieldType(fd))).Block(
			jen.Id("x").Dot(fd.GoName).Op("=").Id("v"),
			jen.Id("x").Dot("has").Op("|=").Id(s.bit),
		)
	}
}

// requiredBy says which versions require a property: "version 2026-07-28
// requires it", "versions 2025-06-18 and 2026-07-28 require it".
func (g *generator) requiredBy(vs model.VersionSet) string {
	names := g.m.VersionNames(vs)
	if len(names) == 1 {
		return "version " + names[0] + " requires it"
	}
	return "versions " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " require it"
}
