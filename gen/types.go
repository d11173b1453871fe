package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// types renders a Go type per named type of the model.
func (g *generator) types() *jen.File {
	f := g.newFile()
	for _, t := range g.m.Types {
		f.Add(g.typeDoc(t, g.unionNotes(t)))
		switch t.Kind {
		case model.Struct:
			g.structType(f, t)
		case model.Union:
			if g.scalarUnion(t) {
				g.scalarUnionType(f, t)
			} else {
				g.unionType(f, t)
			}
		case model.Enum:
			f.Type().Id(t.Name).String()
			var consts []jen.Code
			for _, v := range t.Values {
				consts = append(consts, g.valueDoc(t, v).Line().Id(v.GoName).Id(t.Name).Op("=").Lit(v.Value))
			}
			f.Comment("The values of " + t.Name + ", in schema order.")
			f.Const().Defs(consts...)
		case model.Alias:
			f.Type().Id(t.Name).Op("=").Id(t.Target)
		default:
			f.Type().Id(t.Name).Add(g.goType(t))
		}
		if unions := g.variantOf[t.Name]; len(unions) > 0 {
			recv := jen.Id(t.Name)
			if t.Kind == model.Struct {
				recv = jen.Op("*").Id(t.Name)
			}
			for _, u := range unions {
				f.Func().Params(recv.Clone()).Id("is" + g.names.variant[u]).Params().Block()
			}
		}
		if t.Kind == model.Struct {
			g.presenceDecls(f, t)
			g.setterDecls(f, t)
		}
	}
	return f
}

func (g *generator) newFile() *jen.File {
	f := jen.NewFile(g.cfg.Package)
	f.HeaderComment(Header)
	f.ImportName(jsonrpcPkg, "jsonrpc")
	f.ImportName(fielderrPkg, "fielderr")
	return f
}

func (g *generator) structType(f *jen.File, t *model.Type) {
	var fields []jen.Code
	for _, fd := range t.Fields {
		if isConst(fd) {
			continue
		}
		tag := fd.JSON
		if !g.emitAlways(t, fd) {
			tag += ",omitempty"
		}
		fields = append(fields, jen.Add(g.fieldDoc(t, fd)).Line().
			Id(fd.GoName).Add(g.fieldType(fd)).Tag(map[string]string{"json": tag}))
	}
	if t.Extra != nil {
		fields = append(fields, lineComments("Extra holds the properties the schema allows without naming them,\nkept as raw JSON and written back after the named ones in key order.").Line().
			Id("Extra").Map(jen.String()).Qual(jsonPkg, "RawMessage").Tag(map[string]string{"json": "-"}))
	}
	presence := "has marks the properties present in decoded input; missing marks\nrequired ones that were absent. Values built in Go leave both zero."
	if g.hasSetters(t) {
		presence = "has marks the properties present in decoded input or set with a Set\nmethod; missing marks required ones that decoded input lacked."
	}
	if len(t.Fields) > 0 {
		presence += "\nTheir bits, " + g.names.bit[t.Fields[0]] + " to " + g.names.bit[t.Fields[len(t.Fields)-1]] + ", follow " + t.Name + "."
	}
	fields = append(fields,
		jen.Line().Add(lineComments(presence)).Line().
			Id("has").Id("uint64"),
		jen.Id("missing").Id("uint64"))
	f.Type().Id(t.Name).Struct(fields...)
}

// unionType renders a union as a struct holding one value of a sealed
// interface, so that it decodes with json.Unmarshal like any other type.
func (g *generator) unionType(f *jen.File, t *model.Type) {
	iface := g.names.variant[t.Name]
	f.Type().Id(t.Name).Struct(
		jen.Comment("Value is the variant: " + g.variantList(t) + ".").Line().Id("Value").Id(iface),
	)
	f.Comment(iface + " is implemented by the variants of " + t.Name + " and by no other type.")
	f.Type().Id(iface).Interface(
		jen.Id("appendJSON").Params(jen.Index().Byte()).Params(jen.Index().Byte(), jen.Error()),
		jen.Id("validate").Params(jen.Id("VersionSet")).Error(),
		jen.Id("is"+iface).Params(),
	)
}

// unionNotes says, for the doc comment of union t, what the schema leaves
// unsaid: a discriminator the override table declares, and validation
// that accepts a value through another variant than its own.
func (g *generator) unionNotes(t *model.Type) string {
	if t.Kind != model.Union || t.Pick == nil || g.scalarUnion(t) {
		return ""
	}
	var paras []string
	for _, grp := range t.Pick.Groups {
		if grp.Discriminator == nil {
			continue
		}
		var sels []string
		for _, c := range grp.Cases {
			val := c.Value
			if c.Value == grp.Absent {
				val += " (or no " + grp.ConstKey + ")"
			}
			what := g.variantName(t, c.Variants[0])
			if len(c.Variants) > 1 {
				what = "the variant, among those no other value names, whose properties the value has"
			}
			sels = append(sels, val+" selects "+what)
		}
		paras = append(paras, "Decoding chooses the variant by "+grp.ConstKey+": "+strings.Join(sels, "; ")+
			"; any other value is an error. The variant a value selects is decoded even when it lacks required properties; Validate reports them.")
	}
	if len(t.Pick.Alternatives) > 0 {
		paras = append(paras, "Validate, like the schema's anyOf, also accepts a value that breaks the rules of its own variant when its JSON is valid as another variant; ValidateVariant holds the value to its own variant.")
	}
	for i, p := range paras {
		paras[i] = wrapText(p, 80)
	}
	return strings.Join(paras, "\n\n")
}

// variantName is the Go type of variant vi of union t, with its * when
// the union holds a pointer.
func (g *generator) variantName(t *model.Type, vi int) string {
	n := g.named(t.Variants[vi].Type)
	if n.Kind == model.Struct {
		return "*" + n.Name
	}
	return n.Name
}

func (g *generator) variantList(t *model.Type) string {
	s := ""
	for i, v := range t.Variants {
		if i > 0 {
			s += ", "
		}
		n := g.named(v.Type)
		if n.Kind == model.Struct {
			s += "*"
		}
		s += n.Name
	}
	return s
}

// scalarVariant describes one variant of a scalar union.
type scalarVariant struct {
	kind  int
	name  string // String, Integer, Number, Boolean
	field string // the struct field holding it
	typ   *jen.Statement
	prim  model.Prim
}

func scalarVariants(t *model.Type) []scalarVariant {
	var out []scalarVariant
	for i, v := range t.Variants {
		sv := scalarVariant{kind: i + 1, prim: v.Type.Prim}
		switch v.Type.Prim {
		case model.String:
			sv.name, sv.field, sv.typ = "String", "str", jen.String()
		case model.Integer:
			sv.name, sv.field, sv.typ = "Integer", "integer", jen.Int64()
		case model.Number:
			sv.name, sv.field, sv.typ = "Number", "number", jen.Float64()
		default:
			sv.name, sv.field, sv.typ = "Boolean", "boolean", jen.Bool()
		}
		out = append(out, sv)
	}
	return out
}

// scalarUnionType renders a union of primitives (string | integer) as a
// small value type that allocates nothing.
func (g *generator) scalarUnionType(f *jen.File, t *model.Type) {
	vs := scalarVariants(t)
	fields := []jen.Code{jen.Id("kind").Id("uint8")}
	for _, v := range vs {
		fields = append(fields, jen.Id(v.field).Add(v.typ.Clone()))
	}
	f.Type().Id(t.Name).Struct(fields...)
	for _, v := range vs {
		from := g.names.from[t.Name][v.name]
		f.Comment(from + " returns the " + t.Name + " holding v.")
		f.Func().Id(from).Params(jen.Id("v").Add(v.typ.Clone())).Id(t.Name).Block(
			jen.Return(jen.Id(t.Name).Values(jen.Dict{jen.Id("kind"): jen.Lit(v.kind), jen.Id(v.field): jen.Id("v")})),
		)
		f.Comment("As" + v.name + " returns the value and true when x holds a " + v.name + ".")
		f.Func().Params(jen.Id("x").Id(t.Name)).Id("As"+v.name).Params().Params(v.typ.Clone(), jen.Bool()).Block(
			jen.Return(jen.Id("x").Dot(v.field), jen.Id("x").Dot("kind").Op("==").Lit(v.kind)),
		)
	}
	f.Comment("IsZero reports whether x holds no value.")
	f.Func().Params(jen.Id("x").Id(t.Name)).Id("IsZero").Params().Bool().Block(
		jen.Return(jen.Id("x").Dot("kind").Op("==").Lit(0)),
	)
	var cases []jen.Code
	for _, v := range vs {
		var body jen.Code
		switch v.prim {
		case model.String:
			body = jen.Return(jen.Id("x").Dot(v.field))
		case model.Integer:
			body = jen.Return(jen.Qual("strconv", "FormatInt").Call(jen.Id("x").Dot(v.field), jen.Lit(10)))
		case model.Number:
			body = jen.Return(jen.Qual("strconv", "FormatFloat").Call(jen.Id("x").Dot(v.field), jen.LitByte('g'), jen.Lit(-1), jen.Lit(64)))
		default:
			body = jen.Return(jen.Qual("strconv", "FormatBool").Call(jen.Id("x").Dot(v.field)))
		}
		cases = append(cases, jen.Case(jen.Lit(v.kind)).Add(body))
	}
	f.Comment("String returns the value as text, for messages and logs.")
	f.Func().Params(jen.Id("x").Id(t.Name)).Id("String").Params().String().Block(
		jen.Switch(jen.Id("x").Dot("kind")).Block(cases...),
		jen.Return(jen.Lit("")),
	)
}
