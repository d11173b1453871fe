package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Every struct records which of its properties decoding saw, in has, and
// which required ones it did not, in missing: one bit per property, in
// schema order. The generator names each bit and each struct's required
// mask, so that generated code, a review and a debugger session read
// x.has&bitToolName rather than x.has&uint64(0x20). The names are made
// with the package's others (protonames.go).

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
	return jen.Id(g.names.bit[t.Fields[i]])
}

// presenceDecls renders, after struct t, the constants naming its presence
// bits and its required mask.
func (g *generator) presenceDecls(f *jen.File, t *model.Type) {
	if len(t.Fields) == 0 {
		return
	}
	var bits []jen.Code
	for i, fd := range t.Fields {
		name := jen.Id(g.names.bit[fd])
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
		parts = append(parts, jen.Id(g.names.bit[fd]))
	}
	f.Comment(g.names.required[t.Name] + " holds the bits of the properties some version of " + t.Name + " requires:")
	f.Comment("decoding sets those the input lacks in missing.")
	f.Const().Id(g.names.required[t.Name]).Op("=").Add(joinOr(parts))
}
