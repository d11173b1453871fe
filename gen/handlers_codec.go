package gen

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Decoders read JSON with jsonrpc.Scanner straight into the handler's Go
// types and check each value against its schema keywords as soon as it is
// read: validation runs inside the decoder because only the decoder knows
// whether an optional field was present, and a keyword applies to a value
// only when it is. Encoders append JSON to a byte slice in field order.
// Objects are written here; every value inside one is lowered to the
// codec (codec.go) by codecValue and written there.

// handlerCodec is the codec as handler files use it: checks run inline.
var handlerCodec = &codec{inline: true}

func render(f *jen.File) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return groupImports(buf.Bytes()), nil
}

// decodeValue reads the next value into target, checking v's own rules and
// the field's (rules may be nil). Errors leave through wrap.
func (g *handlerGen) decodeValue(target *jen.Statement, v *model.Value, rules *model.Rules, wrap wrapFunc, d int) []jen.Code {
	return handlerCodec.decode(target, g.codecValue(v, rules), wrap, d)
}

// encodeValue appends src (an addressable expression) to dst.
func (g *handlerGen) encodeValue(src *jen.Statement, v *model.Value, wrap wrapFunc, d int) []jen.Code {
	return handlerCodec.encode(src, g.codecValue(v, nil), wrap, d)
}

// codecValue lowers a handler value, with the keywords of its field's tag
// (rules may be nil), to the codec.
func (g *handlerGen) codecValue(v *model.Value, rules *model.Rules) *codecValue {
	cv := &codecValue{GoType: g.goType(v), Conv: func(e jen.Code) jen.Code { return g.convert(v, e) }}
	switch v.Kind {
	case model.ValPointer:
		cv.Kind, cv.Conv, cv.Elem = codecPointer, nil, g.codecValue(v.Elem, rules)
	case model.ValBool, model.ValString, model.ValInt, model.ValUint, model.ValFloat:
		cv.Kind = codecScalar
		cv.Scan = map[model.ValueKind]scanKind{
			model.ValBool: scanBool, model.ValString: scanString, model.ValInt: scanInt, model.ValUint: scanUint, model.ValFloat: scanFloat,
		}[v.Kind]
		cv.Checks = g.valueChecks(v, rules)
	case model.ValTime:
		cv.Kind, cv.Scan, cv.Conv = codecScalar, scanTime, nil
	case model.ValBytes:
		cv.Kind, cv.Scan = codecScalar, scanBytes
	case model.ValText:
		cv.Kind, cv.Scan, cv.Conv = codecScalar, scanText, nil
	case model.ValRaw:
		cv.Kind, cv.Scan = codecScalar, scanCall
		cv.Read = jen.Id("s").Dot("Raw").Call()
		cv.Conv = func(e jen.Code) jen.Code {
			return g.goType(v).Call(jen.Append(jen.Index().Byte().Call(jen.Nil()), jen.Add(e).Op("...")))
		}
		cv.Append = func(x jen.Code, _ func(jen.Code) jen.Code, _ string) []jen.Code {
			return []jen.Code{jen.If(jen.Len(x).Op("==").Lit(0)).Block(
				jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit("null").Op("...")),
			).Else().Block(jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Add(x).Op("...")))}
		}
	case model.ValAny:
		cv.Kind, cv.Scan, cv.Conv = codecScalar, scanCall, nil
		cv.Read = jen.Qual(handlerPkg, "DecodeAny").Call(jen.Id("s"))
		cv.Append = func(x jen.Code, ret func(jen.Code) jen.Code, n string) []jen.Code {
			b := "b" + n
			return []jen.Code{
				jen.List(jen.Id(b), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(x),
				jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
				jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Id(b).Op("...")),
			}
		}
	case model.ValStruct:
		cv.Kind = codecNamed
		cv.Decode = func(target *jen.Statement) jen.Code {
			return jen.Id(g.names.object(objectRead, v.Object)).Call(jen.Id("s"), jen.Op("&").Add(target))
		}
		cv.Encode = func(x jen.Code) jen.Code {
			return jen.Id(g.names.object(objectAppend, v.Object)).Call(jen.Id("dst"), jen.Op("&").Add(x))
		}
	case model.ValSlice:
		cv.Kind, cv.Elem = codecSlice, g.codecValue(v.Elem, nil)
		if rules != nil {
			cv.Checks.MinItems, cv.Checks.MaxItems, cv.Checks.Unique = rules.MinItems, rules.MaxItems, rules.UniqueItems
		}
	case model.ValArray:
		cv.Kind, cv.Elem, cv.Len = codecArray, g.codecValue(v.Elem, nil), v.Len
		cv.Checks.Unique = rules != nil && rules.UniqueItems
	case model.ValMap:
		cv.Kind, cv.Elem, cv.KeyEnum = codecMap, g.codecValue(v.Elem, nil), v.Key.Enum
		cv.KeyConv = func(e jen.Code) jen.Code { return g.convert(v.Key, e) }
	default:
		panic("gen: no codec for handler value kind " + strconv.Itoa(int(v.Kind)))
	}
	return cv
}

// effectiveBounds returns the inclusive bounds a number must keep: the
// tag's minimum and maximum, tightened by the range of a sized integer.
func effectiveBounds(v *model.Value, rules *model.Rules) (lo, hi *model.Bound) {
	if rules != nil {
		lo, hi = rules.Minimum, rules.Maximum
	}
	klo, khi := kindBounds(v)
	if klo != "" {
		k, _ := strconv.ParseInt(klo, 10, 64)
		if lo == nil || lo.Float < float64(k) {
			lo = &model.Bound{JSON: klo, Float: float64(k), Int: true, I: k}
		}
	}
	if khi != "" {
		k, _ := strconv.ParseInt(khi, 10, 64)
		if hi == nil || hi.Float > float64(k) {
			hi = &model.Bound{JSON: khi, Float: float64(k), Int: true, I: k}
		}
	}
	return lo, hi
}

// valueChecks are the keywords that apply to a string, number or
// boolean: its field's tag and its type's, with a sized integer's range.
func (g *handlerGen) valueChecks(v *model.Value, rules *model.Rules) valueChecks {
	r := rules
	if r == nil {
		r = &model.Rules{}
	}
	k := valueChecks{Enum: enumOf(v, r), MinLength: r.MinLength, MaxLength: r.MaxLength}
	if v.Kind == model.ValInt || v.Kind == model.ValUint || v.Kind == model.ValFloat {
		lo, hi := effectiveBounds(v, r)
		limit := func(op string, b *model.Bound) string {
			if b == nil {
				return ""
			}
			if v.Kind != model.ValFloat && b.Int && (op == "<" && b.I == math.MinInt64 || op == ">" && b.I == math.MaxInt64) {
				return "" // an int64 cannot pass it
			}
			return b.JSON
		}
		k.Minimum, k.Maximum = limit("<", lo), limit(">", hi)
		k.ExclusiveMinimum, k.ExclusiveMaximum = limit("<=", r.ExclusiveMinimum), limit(">=", r.ExclusiveMaximum)
	}
	if r.Pattern != "" {
		idx := len(g.patterns)
		for i, p := range g.patterns {
			if p == r.Pattern {
				idx = i
			}
		}
		if idx == len(g.patterns) {
			g.patterns = append(g.patterns, r.Pattern)
		}
		k.Pattern, k.PatternVar = r.Pattern, g.names.pattern(idx)
	}
	parses := func(call jen.Code) func(jen.Code) (jen.Code, jen.Code) {
		return func(jen.Code) (jen.Code, jen.Code) {
			return jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()
		}
	}
	switch r.Format {
	case "date-time", "date", "byte":
		k.Format = r.Format
		k.FormatBad = func(x jen.Code) (jen.Code, jen.Code) {
			switch r.Format {
			case "date-time":
				return parses(jen.Qual("time", "Parse").Call(jen.Qual("time", "RFC3339Nano"), x))(x)
			case "date":
				return parses(jen.Qual("time", "Parse").Call(jen.Lit("2006-01-02"), x))(x)
			}
			return parses(jen.Qual("encoding/base64", "StdEncoding").Dot("DecodeString").Call(x))(x)
		}
	}
	return k
}

// objectDecoder writes the reader of one struct.
func (g *handlerGen) objectDecoder(o *model.Object) {
	var cases []jen.Code
	var after []jen.Code
	tracked := 0
	for _, p := range o.Fields {
		target := jen.Id("x")
		for _, name := range p.GoPath {
			target = target.Dot(name)
		}
		body := []jen.Code{}
		if nullIsAbsent(p) {
			body = append(body,
				jen.List(jen.Id("null"), jen.Err()).Op(":=").Id("s").Dot("Null").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(atField(p.JSONName)(jen.Err()))),
				jen.If(jen.Id("null")).Block(jen.Break().Comment("null: as if left out")),
			)
		}
		if p.Required || p.Rules.Default != nil && p.Value.Kind != model.ValPointer {
			idx := jen.Lit(tracked)
			body = append(body, jen.Id("seen").Index(idx).Op("=").True())
			if p.Required {
				after = append(after, jen.If(jen.Op("!").Id("seen").Index(jen.Lit(tracked))).Block(
					jen.Return(atField(p.JSONName)(errCall("Required"))),
				))
			} else {
				after = append(after, jen.If(jen.Op("!").Id("seen").Index(jen.Lit(tracked))).Block(
					target.Clone().Op("=").Add(g.convert(p.Value, literal(*p.Rules.Default))),
				))
			}
			tracked++
		}
		rules := p.Rules
		body = append(body, g.decodeValue(target, p.Value, &rules, atField(p.JSONName), 0)...)
		cases = append(cases, jen.Case(jen.Lit(p.JSONName)).Block(body...))
	}
	cases = append(cases, jen.Default().Block(
		jen.Return(atFieldVar("string(key)")(errCall("UnknownProperty"))),
	))
	body := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	if tracked > 0 {
		body = append(body, jen.Var().Id("seen").Index(jen.Lit(tracked)).Bool())
	}
	body = append(body,
		jen.For().Block(
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
		),
	)
	body = append(body, after...)
	body = append(body, jen.Return(jen.Nil()))
	name := g.names.object(objectRead, o)
	g.f.Commentf("%s reads %s object into x, checking its schema (%s).", name, article(o.Go.Name), o.Pos)
	g.f.Func().Id(name).Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner"), jen.Id("x").Op("*").Add(g.goType(&model.Value{Go: o.Go}))).Error().Block(body...)
	g.f.Line()
}

// nullIsAbsent reports whether the decoder reads a null given for p as
// p left out. Models send null for an optional argument they mean to leave
// out, so an optional field (a pointer, omitempty or omitzero) takes it as
// absent, though its schema, which has no null, refuses it. A field of
// any JSON by value (any, json.RawMessage) keeps its null as a value, as
// in encoding/json, which sets only pointers to nil for null. A required
// field's null is refused by its reader ("expected string, got null").
func nullIsAbsent(p *model.Property) bool {
	if p.Value.Kind == model.ValPointer {
		return true
	}
	return !p.Required && p.Value.Kind != model.ValAny && p.Value.Kind != model.ValRaw
}

// literal writes a Literal as an untyped Go constant.
func literal(l model.Literal) jen.Code {
	switch l.Kind {
	case model.LitString:
		return jen.Lit(l.S)
	case model.LitBool:
		return jen.Lit(l.B)
	}
	return jen.Id(l.JSON())
}

// objectEncoder writes the appender of one struct.
func (g *handlerGen) objectEncoder(o *model.Object) {
	body := []jen.Code{jen.Var().Err().Error(), jen.Id("start").Op(":=").Len(jen.Id("dst"))}
	for _, p := range o.Fields {
		src := jen.Id("x")
		for _, name := range p.GoPath {
			src = src.Dot(name)
		}
		wrap := atField(p.JSONName)
		emit := []jen.Code{jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(","+jsonString(p.JSONName)+":").Op("..."))}
		v := p.Value
		val := src.Clone()
		if v.Kind == model.ValPointer { // written only when not nil: see omitCond
			v, val = v.Elem, jen.Op("*").Add(src.Clone())
			if derefInParens(g.codecValue(v, nil)) {
				val = jen.Parens(val)
			}
		}
		emit = append(emit, g.encodeValue(val, v, wrap, 0)...)
		if cond := omitCond(src, p); cond != nil {
			body = append(body, jen.If(cond).Block(emit...))
		} else {
			body = append(body, emit...)
		}
	}
	body = append(body,
		jen.Id("_").Op("=").Err(),
		jen.If(jen.Len(jen.Id("dst")).Op("==").Id("start")).Block(jen.Return(jen.Append(jen.Id("dst"), jen.Lit("{}").Op("...")), jen.Nil())),
		jen.Id("dst").Index(jen.Id("start")).Op("=").LitRune('{'),
		jen.Return(jen.Append(jen.Id("dst"), jen.LitRune('}')), jen.Nil()),
	)
	name := g.names.object(objectAppend, o)
	g.f.Commentf("%s appends x, %s, to dst as JSON: nil slices as [], nil pointers left out (%s).", name, article(o.Go.Name), o.Pos)
	g.f.Func().Id(name).Params(jen.Id("dst").Index().Byte(), jen.Id("x").Op("*").Add(g.goType(&model.Value{Go: o.Go}))).Params(jen.Index().Byte(), jen.Error()).Block(body...)
	g.f.Line()
}

// omitCond returns the condition under which a field is written, nil for always.
func omitCond(src *jen.Statement, p *model.Property) jen.Code {
	v := p.Value
	if v.Kind == model.ValPointer {
		return src.Clone().Op("!=").Nil()
	}
	if !p.OmitEmpty && !p.OmitZero {
		return nil
	}
	switch v.Kind {
	case model.ValBool:
		return src.Clone()
	case model.ValInt, model.ValUint, model.ValFloat:
		return src.Clone().Op("!=").Lit(0)
	case model.ValString:
		return src.Clone().Op("!=").Lit("")
	case model.ValSlice, model.ValMap, model.ValBytes, model.ValRaw:
		if p.OmitEmpty {
			return jen.Len(src.Clone()).Op("!=").Lit(0)
		}
		return src.Clone().Op("!=").Nil()
	case model.ValAny:
		return src.Clone().Op("!=").Nil()
	case model.ValTime:
		if p.OmitZero {
			return jen.Op("!").Add(src.Clone()).Dot("IsZero").Call()
		}
	}
	// Structs, arrays and text types are always written: whether
	// encoding/json would leave a text type out depends on its kind,
	// which the model does not keep, and writing it is never wrong.
	return nil
}

// article puts "a" or "an" before a type name, by its first letter.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}
