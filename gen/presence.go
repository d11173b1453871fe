package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Every struct records which of its properties decoding saw, in has, and
// which required ones it did not, in missing: one bit per property, in
// schema order. The generator names each bit and each struct's required
// mask, so that generated code, a review and a debugger session read
// x.has&bitToolName rather than x.has&uint64(0x20).

// presenceNames names the presence bit of every struct field,
// "bit" + the struct's name + the field's Go name, as the version bits
// are "bit" + the version's name, and the required mask of every struct
// that has required properties, "required" + the struct's name. A name
// the package already declares is refused: pkgNames maps each declared
// name to what declares it, and gains the names given here.
func (g *generator) presenceNames(pkgNames map[string]string) error {
	g.bits = map[*model.Field]string{}
	g.required = map[string]string{}
	claim := func(name, what string, pos model.Pos) error {
		if prev, dup := pkgNames[name]; dup {
			return &model.Error{Pos: pos, Msg: fmt.Sprintf("%s needs the name %s, already %s", what, name, prev)}
		}
		pkgNames[name] = what
		return nil
	}
	for _, t := range g.m.Types {
		if t.Kind != model.Struct {
			continue
		}
		for _, fd := range t.Fields {
			name := "bit" + t.Name + fd.GoName
			if err := claim(name, fmt.Sprintf("the presence bit of %s.%s", t.Name, fd.JSON), fd.Pos); err != nil {
				return err
			}
			g.bits[fd] = name
		}
		if requiredFields(t) == nil {
			continue
		}
		name := "required" + t.Name
		if err := claim(name, "the required properties of "+t.Name, t.Pos); err != nil {
			return err
		}
		g.required[t.Name] = name
	}
	return nil
}

// requiredFields lists the fields of t that some version requires.
func requiredFields(t *model.Type) []*model.Field {
	var out []*model.Field
	for _, fd := range t.Fields {
		if fd.Required != 0 {
			out = append(out, fd)
		}
	}
	return out
}

// presenceBit is the name of the presence bit of field i of t.
func (g *generator) presenceBit(t *model.Type, i int) jen.Code {
	return jen.Id(g.bits[t.Fields[i]])
}

// presenceDecls renders, after struct t, the constants naming its presence
// bits and its required mask.
func (g *generator) presenceDecls(f *jen.File, t *model.Type) {
	if len(t.Fields) == 0 {
		return
	}
	var bits []jen.Code
	for i, fd := range t.Fields {
		name := jen.Id(g.bits[fd])
		if i == 0 {
			name = name.Uint64().Op("=").Lit(1).Op("<<").Iota()
		}
		bits = append(bits, name)
	}
	f.Comment("The presence bits of " + t.Name + "'s properties in has and missing, in schema order.")
	f.Const().Defs(bits...)
	req := requiredFields(t)
	if req == nil {
		return
	}
	var parts []jen.Code
	for _, fd := range req {
		parts = append(parts, jen.Id(g.bits[fd]))
	}
	f.Comment(g.required[t.Name] + " holds the bits of the properties some version of " + t.Name + " requires:")
	f.Comment("decoding sets those the input lacks in missing.")
	f.Const().Id(g.required[t.Name]).Op("=").Add(joinOr(parts))
}
