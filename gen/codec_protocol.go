package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// protocolCodec is the codec as the protocol package uses it: decoders
// only read, and the Validate methods check.
var protocolCodec = &codec{}

// codecType lowers a value of protocol type t to the codec. conv, when
// set, is the named type that t's Go value converts to (a named type's
// own decode and appendJSON methods decode and encode its underlying
// type).
func (g *generator) codecType(t *model.Type, conv *jen.Statement) *codecValue {
	var typ jen.Code
	switch {
	case conv != nil:
		typ = conv.Clone()
	case t.Kind == model.Enum || t.Kind == model.Struct || t.Kind == model.Union:
		typ = jen.Id(t.Name)
	default:
		typ = g.goType(t)
	}
	convert := func(e jen.Code) jen.Code { return conv.Clone().Call(e) }
	if conv == nil {
		convert = nil
	}
	validate := func(x jen.Code, ret func(jen.Code) jen.Code) []jen.Code {
		return []jen.Code{jen.If(jen.Err().Op(":=").Add(x).Dot("validate").Call(jen.Id("vb")), jen.Err().Op("!=").Nil()).Block(ret(jen.Err()))}
	}
	if g.foreign(t) {
		return foreignCodec(typ)
	}
	switch t.Kind {
	case model.Ref, model.Alias, model.Struct, model.Union:
		v := &codecValue{
			Kind:   codecNamed,
			GoType: typ,
			Decode: func(target *jen.Statement) jen.Code { return target.Dot("decode").Call(jen.Id("s")) },
			Encode: func(x jen.Code) jen.Code { return jen.Add(x).Dot("appendJSON").Call(jen.Id("dst")) },
		}
		if t.Kind == model.Struct || t.Kind == model.Union || !g.trivial(t) {
			v.Check = validate
		}
		return v
	case model.Enum:
		return &codecValue{Kind: codecScalar, Scan: scanString, GoType: jen.Id(t.Name), Conv: func(e jen.Code) jen.Code { return jen.Id(t.Name).Call(e) }, Check: validate}
	case model.Raw:
		read, def := "decodeRaw", "null"
		v := &codecValue{Kind: codecScalar, Scan: scanCall, GoType: typ, Conv: convert}
		if t.RawKind == model.AnyObject {
			read, def = "decodeRawObject", "{}"
			v.Check = func(x jen.Code, ret func(jen.Code) jen.Code) []jen.Code {
				return []jen.Code{jen.If(jen.Len(x).Op(">").Lit(0).Op("&&").Op("!").Id("rawIsObject").Call(x)).Block(
					ret(errCall("Type", jen.Lit("object"), jen.Id("kindOf").Call(x))))}
			}
		}
		v.Read = jen.Id(read).Call(jen.Id("s"))
		v.Append = func(x jen.Code, _ func(jen.Code) jen.Code, _ string) []jen.Code {
			return []jen.Code{jen.Id("dst").Op("=").Id("appendRaw").Call(jen.Id("dst"), x, jen.Lit(def))}
		}
		return v
	case model.Primitive:
		v := &codecValue{Kind: codecScalar, Scan: primScan(t.Prim), GoType: typ, Conv: convert, Checks: primChecks(t)}
		if t.Nullable {
			v.GoType = g.goType(&model.Type{Kind: model.Primitive, Prim: t.Prim})
			return &codecValue{Kind: codecPointer, GoType: typ, Elem: v, Nullable: true}
		}
		return v
	case model.Array:
		v := &codecValue{Kind: codecSlice, GoType: typ, Elem: g.codecType(t.Elem, nil)}
		v.Checks.MinItems, v.Checks.MaxItems = t.MinItems, t.MaxItems
		return v
	case model.Map:
		return &codecValue{Kind: codecMap, GoType: typ, Elem: g.codecType(t.Elem, nil)}
	}
	panic(fmt.Sprintf("gen: no codec for %s", t.Kind))
}

// foreign reports whether t refers to a type another package declares.
func (g *generator) foreign(t *model.Type) bool {
	if t.Kind != model.Ref || g.m == nil {
		return false
	}
	target := g.m.Lookup(t.Target)
	return target != nil && target.Package != ""
}

// foreignCodec moves a value of a type that another package declares
// through that package's exported API: UnmarshalJSON, MarshalJSON and
// Validate, which every generated named type has. Validate checks the
// newest version of that package's protocol that defines the type.
func foreignCodec(typ jen.Code) *codecValue {
	return &codecValue{
		Kind:   codecNamed,
		GoType: typ,
		Decode: func(target *jen.Statement) jen.Code {
			return jen.Id("decodeForeign").Call(jen.Id("s"), jen.Op("&").Add(target))
		},
		Encode: func(x jen.Code) jen.Code { return jen.Id("appendForeign").Call(jen.Id("dst"), x) },
		Check: func(x jen.Code, ret func(jen.Code) jen.Code) []jen.Code {
			return []jen.Code{jen.If(jen.Err().Op(":=").Add(x).Dot("Validate").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err()))}
		},
	}
}

func primScan(p model.Prim) scanKind {
	switch p {
	case model.String:
		return scanString
	case model.Integer:
		return scanInt
	case model.Number:
		return scanFloat
	}
	return scanBool
}

// primChecks are the keywords of a protocol primitive. Integers compare as
// float64, since the schema's limits need not be integral.
func primChecks(t *model.Type) valueChecks {
	k := valueChecks{AsFloat: t.Prim == model.Integer, AsString: true}
	if t.Prim == model.String {
		k.MinLength, k.MaxLength = t.MinLength, t.MaxLength
	}
	lim := func(f *float64) string {
		if f == nil {
			return ""
		}
		return fmtLimit(*f)
	}
	if t.Prim == model.Integer || t.Prim == model.Number {
		k.Minimum, k.Maximum = lim(t.Minimum), lim(t.Maximum)
		k.ExclusiveMinimum, k.ExclusiveMaximum = lim(t.ExclusiveMin), lim(t.ExclusiveMax)
	}
	if check := formatCheck(t.Format); check != "" && t.Prim == model.String {
		k.Format = t.Format
		k.FormatBad = func(x jen.Code) (init, cond jen.Code) { return nil, jen.Op("!").Id(check).Call(x) }
	}
	return k
}
