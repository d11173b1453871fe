package gen

import (
	"bytes"
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Decoders read JSON with jsonrpc.Scanner straight into the handler's Go
// types and check each value against its schema keywords as soon as it is
// read: validation runs inside the decoder because only the decoder knows
// whether an optional field was present, and a keyword applies to a value
// only when it is. Encoders append JSON to a byte slice in field order.

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
	tgt := func() *jen.Statement { return target.Clone() }
	n := strconv.Itoa(d)
	ret := func(err jen.Code) jen.Code { return jen.Return(wrap(err)) }
	checkErr := func() jen.Code { return jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())) }
	scalar := func(method string) []jen.Code {
		val := "v" + n
		code := []jen.Code{jen.List(jen.Id(val), jen.Err()).Op(":=").Id("s").Dot(method).Call(), checkErr()}
		code = append(code, g.scalarChecks(val, v, rules, ret)...)
		return append(code, tgt().Op("=").Add(g.convert(v, jen.Id(val))))
	}
	switch v.Kind {
	case model.ValPointer:
		p := "p" + n
		code := []jen.Code{jen.Id(p).Op(":=").New(g.goType(v.Elem))}
		code = append(code, g.decodeValue(jen.Op("*").Id(p), v.Elem, rules, wrap, d+1)...)
		return append(code, tgt().Op("=").Id(p))
	case model.ValBool:
		return scalar("Bool")
	case model.ValString:
		return scalar("String")
	case model.ValInt, model.ValUint:
		return scalar("Int64")
	case model.ValFloat:
		return scalar("Float64")
	case model.ValTime:
		str, t := "str"+n, "t"+n
		return []jen.Code{
			jen.List(jen.Id(str), jen.Err()).Op(":=").Id("s").Dot("String").Call(), checkErr(),
			jen.List(jen.Id(t), jen.Err()).Op(":=").Qual("time", "Parse").Call(jen.Qual("time", "RFC3339Nano"), jen.Id(str)),
			jen.If(jen.Err().Op("!=").Nil()).Block(ret(fieldErr("not a valid date-time"))),
			tgt().Op("=").Id(t),
		}
	case model.ValBytes:
		str, b := "str"+n, "b"+n
		return []jen.Code{
			jen.List(jen.Id(str), jen.Err()).Op(":=").Id("s").Dot("StringBytes").Call(), checkErr(),
			jen.List(jen.Id(b), jen.Err()).Op(":=").Qual("encoding/base64", "StdEncoding").Dot("AppendDecode").Call(jen.Nil(), jen.Id(str)),
			jen.If(jen.Err().Op("!=").Nil()).Block(ret(fieldErr("not a valid byte"))),
			tgt().Op("=").Add(g.convert(v, jen.Id(b))),
		}
	case model.ValRaw:
		r := "raw" + n
		return []jen.Code{
			jen.List(jen.Id(r), jen.Err()).Op(":=").Id("s").Dot("Raw").Call(), checkErr(),
			tgt().Op("=").Add(g.goType(v)).Call(jen.Append(jen.Index().Byte().Call(jen.Nil()), jen.Id(r).Op("..."))),
		}
	case model.ValAny:
		a := "a" + n
		return []jen.Code{
			jen.List(jen.Id(a), jen.Err()).Op(":=").Qual(handlerPkg, "DecodeAny").Call(jen.Id("s")), checkErr(),
			tgt().Op("=").Id(a),
		}
	case model.ValStruct:
		return []jen.Code{
			jen.If(jen.Err().Op(":=").Id(g.names.object(objectRead, v.Object)).Call(jen.Id("s"), jen.Op("&").Add(tgt())), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
		}
	case model.ValSlice:
		sl, i, e := "sl"+n, "i"+n, "e"+n
		elemWrap := compose(atIndex(i), wrap)
		loop := []jen.Code{
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextElem").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Var().Id(e).Add(g.goType(v.Elem)),
		}
		loop = append(loop, g.decodeValue(jen.Id(e), v.Elem, nil, elemWrap, d+1)...)
		loop = append(loop, jen.Id(sl).Op("=").Append(jen.Id(sl), jen.Id(e)))
		code := []jen.Code{
			jen.If(jen.Err().Op(":=").Id("s").Dot("ArrayStart").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
			jen.Id(sl).Op(":=").Make(g.goType(v), jen.Lit(0)),
			jen.For(jen.Id(i).Op(":=").Lit(0), jen.Empty(), jen.Id(i).Op("++")).Block(loop...),
		}
		code = append(code, g.itemChecks(sl, v, rules, ret)...)
		return append(code, tgt().Op("=").Id(sl))
	case model.ValArray:
		i := "i" + n
		elemWrap := compose(atIndex(i), wrap)
		size := count(v.Len, "item", "items")
		loop := []jen.Code{
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextElem").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.If(jen.Id(i).Op(">=").Lit(v.Len)).Block(ret(fieldErr("must have at most " + size))),
		}
		loop = append(loop, g.decodeValue(jen.Parens(tgt()).Index(jen.Id(i)), v.Elem, nil, elemWrap, d+1)...)
		code := []jen.Code{
			jen.If(jen.Err().Op(":=").Id("s").Dot("ArrayStart").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
			jen.Id(i).Op(":=").Lit(0),
			jen.For(jen.Empty(), jen.Empty(), jen.Id(i).Op("++")).Block(loop...),
			jen.If(jen.Id(i).Op("<").Lit(v.Len)).Block(ret(fieldErr("must have at least " + size))),
		}
		if rules != nil && rules.UniqueItems {
			code = append(code, g.uniqueCheck(jen.Parens(tgt()), ret)...)
		}
		return code
	case model.ValMap:
		m, k, e := "m"+n, "k"+n, "e"+n
		elemWrap := compose(atFieldVar(k), wrap)
		loop := []jen.Code{
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Id(k).Op(":=").String().Call(jen.Id("key")),
		}
		if len(v.Key.Enum) > 0 {
			loop = append(loop, g.enumCheck(k, v.Key.Enum, func(err jen.Code) jen.Code { return jen.Return(elemWrap(err)) })...)
		}
		loop = append(loop, jen.Var().Id(e).Add(g.goType(v.Elem)))
		loop = append(loop, g.decodeValue(jen.Id(e), v.Elem, nil, elemWrap, d+1)...)
		loop = append(loop, jen.Id(m).Index(g.convert(v.Key, jen.Id(k))).Op("=").Id(e))
		return []jen.Code{
			jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
			jen.Id(m).Op(":=").Make(g.goType(v)),
			jen.For().Block(loop...),
			tgt().Op("=").Id(m),
		}
	}
	return []jen.Code{jen.Return(wrap(fieldErr("unsupported value")))}
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

// scalarChecks checks a decoded string, number or boolean held in val.
func (g *handlerGen) scalarChecks(val string, v *model.Value, rules *model.Rules, ret func(jen.Code) jen.Code) []jen.Code {
	var code []jen.Code
	r := rules
	if r == nil {
		r = &model.Rules{}
	}
	if v.Kind == model.ValInt || v.Kind == model.ValUint || v.Kind == model.ValFloat {
		lo, hi := effectiveBounds(v, r)
		cmp := func(op string, b *model.Bound, msg string) {
			if b == nil {
				return
			}
			if v.Kind != model.ValFloat && b.Int && (op == "<" && b.I == math.MinInt64 || op == ">" && b.I == math.MaxInt64) {
				return // an int64 cannot pass it
			}
			code = append(code, jen.If(jen.Id(val).Op(op).Id(b.JSON)).Block(ret(fieldErr(msg+" "+b.JSON))))
		}
		cmp("<", lo, "must be >=")
		cmp(">", hi, "must be <=")
		cmp("<=", r.ExclusiveMinimum, "must be >")
		cmp(">=", r.ExclusiveMaximum, "must be <")
	}
	if enum := enumOf(v, r); len(enum) > 0 {
		code = append(code, g.enumCheck(val, enum, ret)...)
	}
	if r.MinLength != nil {
		code = append(code, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(val)).Op("<").Lit(*r.MinLength)).
			Block(ret(fieldErr("must be at least "+count(*r.MinLength, "character", "characters")+" long"))))
	}
	if r.MaxLength != nil {
		code = append(code, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(val)).Op(">").Lit(*r.MaxLength)).
			Block(ret(fieldErr("must be at most "+count(*r.MaxLength, "character", "characters")+" long"))))
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
		code = append(code, jen.If(jen.Op("!").Id(g.names.pattern(idx)).Dot("MatchString").Call(jen.Id(val))).
			Block(ret(fieldErr("must match the pattern "+strconv.Quote(r.Pattern)))))
	}
	switch r.Format {
	case "date-time":
		code = append(code, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual("time", "Parse").Call(jen.Qual("time", "RFC3339Nano"), jen.Id(val)), jen.Err().Op("!=").Nil()).
			Block(ret(fieldErr("not a valid date-time"))))
	case "date":
		code = append(code, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual("time", "Parse").Call(jen.Lit("2006-01-02"), jen.Id(val)), jen.Err().Op("!=").Nil()).
			Block(ret(fieldErr("not a valid date"))))
	case "byte":
		code = append(code, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual("encoding/base64", "StdEncoding").Dot("DecodeString").Call(jen.Id(val)), jen.Err().Op("!=").Nil()).
			Block(ret(fieldErr("not a valid byte"))))
	}
	return code
}

// enumCheck rejects val unless it is one of enum.
func (g *handlerGen) enumCheck(val string, enum []model.Literal, ret func(jen.Code) jen.Code) []jen.Code {
	cases := make([]jen.Code, len(enum))
	vals := make([]string, len(enum))
	for i, l := range enum {
		vals[i] = l.JSON()
		switch l.Kind {
		case model.LitString:
			cases[i] = jen.Lit(l.S)
		case model.LitBool:
			cases[i] = jen.Lit(l.B)
		default:
			cases[i] = jen.Id(l.JSON())
		}
	}
	return []jen.Code{jen.Switch(jen.Id(val)).Block(
		jen.Case(cases...),
		jen.Default().Block(ret(fieldErr("must be one of ["+join(vals)+"]"))),
	)}
}

// itemChecks checks a decoded slice held in sl.
func (g *handlerGen) itemChecks(sl string, v *model.Value, rules *model.Rules, ret func(jen.Code) jen.Code) []jen.Code {
	if rules == nil {
		return nil
	}
	var code []jen.Code
	if rules.MinItems != nil {
		code = append(code, jen.If(jen.Len(jen.Id(sl)).Op("<").Lit(*rules.MinItems)).Block(ret(fieldErr("must have at least "+count(*rules.MinItems, "item", "items")))))
	}
	if rules.MaxItems != nil {
		code = append(code, jen.If(jen.Len(jen.Id(sl)).Op(">").Lit(*rules.MaxItems)).Block(ret(fieldErr("must have at most "+count(*rules.MaxItems, "item", "items")))))
	}
	if rules.UniqueItems {
		code = append(code, g.uniqueCheck(jen.Id(sl), ret)...)
	}
	return code
}

func (g *handlerGen) uniqueCheck(list *jen.Statement, ret func(jen.Code) jen.Code) []jen.Code {
	return []jen.Code{jen.For(jen.Id("i").Op(":=").Range().Add(list.Clone())).Block(
		jen.For(jen.Id("j").Op(":=").Range().Id("i")).Block(
			jen.If(list.Clone().Index(jen.Id("i")).Op("==").Add(list.Clone()).Index(jen.Id("j"))).Block(
				ret(errCall("UniqueItems", jen.Id("j"), jen.Id("i"))),
			),
		),
	)}
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
	g.f.Commentf("%s reads a %s object into x, checking its schema (%s).", name, o.Go.Name, o.Pos)
	g.f.Func().Id(name).Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner"), jen.Id("x").Op("*").Add(g.goType(&model.Value{Go: o.Go}))).Error().Block(body...)
	g.f.Line()
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
		if v.Kind == model.ValPointer {
			v, val = v.Elem, jen.Op("*").Add(src.Clone())
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
	g.f.Commentf("%s appends x, a %s, to dst as JSON: nil slices as [], nil pointers left out (%s).", name, o.Go.Name, o.Pos)
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
	return nil // structs and arrays: always written
}

// encodeValue appends src (an addressable expression) to dst.
func (g *handlerGen) encodeValue(src *jen.Statement, v *model.Value, wrap wrapFunc, d int) []jen.Code {
	n := strconv.Itoa(d)
	s := func() *jen.Statement { return src.Clone() }
	dst := jen.Id("dst")
	set := func(c jen.Code) jen.Code { return jen.Id("dst").Op("=").Add(c) }
	retErr := func() jen.Code {
		return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), wrap(jen.Err())))
	}
	switch v.Kind {
	case model.ValBool:
		return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendBool").Call(dst, jen.Bool().Call(s())))}
	case model.ValInt:
		return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendInt").Call(dst, jen.Int64().Call(s())))}
	case model.ValUint:
		return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendUint").Call(dst, jen.Uint64().Call(s())))}
	case model.ValFloat:
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Qual(jsonrpcPkg, "AppendFloatChecked").Call(dst, jen.Float64().Call(s())),
			retErr(),
		}
	case model.ValString:
		return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendString").Call(dst, jen.String().Call(s())))}
	case model.ValBytes:
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('"'))),
			set(jen.Qual("encoding/base64", "StdEncoding").Dot("AppendEncode").Call(dst, s())),
			set(jen.Append(dst, jen.LitRune('"'))),
		}
	case model.ValTime:
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('"'))),
			set(s().Dot("AppendFormat").Call(dst, jen.Qual("time", "RFC3339Nano"))),
			set(jen.Append(dst, jen.LitRune('"'))),
		}
	case model.ValRaw:
		return []jen.Code{jen.If(jen.Len(s()).Op("==").Lit(0)).Block(set(jen.Append(dst, jen.Lit("null").Op("...")))).Else().Block(set(jen.Append(dst, s().Op("..."))))}
	case model.ValAny:
		b := "b" + n
		return []jen.Code{
			jen.List(jen.Id(b), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(s()),
			retErr(),
			set(jen.Append(dst, jen.Id(b).Op("..."))),
		}
	case model.ValStruct:
		return []jen.Code{
			jen.List(jen.Id("dst"), jen.Err()).Op("=").Id(g.names.object(objectAppend, v.Object)).Call(dst, jen.Op("&").Add(s())),
			retErr(),
		}
	case model.ValPointer:
		code := []jen.Code{jen.If(s().Op("==").Nil()).Block(jen.Return(jen.Nil(), wrap(fieldErr("is nil, which the output schema does not allow"))))}
		return append(code, g.encodeValue(jen.Parens(jen.Op("*").Add(s())), v.Elem, wrap, d+1)...)
	case model.ValSlice, model.ValArray:
		i := "i" + n
		loop := []jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(set(jen.Append(dst, jen.LitRune(','))))}
		loop = append(loop, g.encodeValue(jen.Parens(s()).Index(jen.Id(i)), v.Elem, compose(atIndex(i), wrap), d+1)...)
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('['))),
			jen.For(jen.Id(i).Op(":=").Range().Add(s())).Block(loop...),
			set(jen.Append(dst, jen.LitRune(']'))),
		}
	case model.ValMap:
		i, k, e := "i"+n, "k"+n, "e"+n
		loop := []jen.Code{
			jen.If(jen.Id(i).Op(">").Lit(0)).Block(set(jen.Append(dst, jen.LitRune(',')))),
			set(jen.Qual(jsonrpcPkg, "AppendString").Call(dst, jen.String().Call(jen.Id(k)))),
			set(jen.Append(dst, jen.LitRune(':'))),
			jen.Id(e).Op(":=").Add(s()).Index(jen.Id(k)),
		}
		loop = append(loop, g.encodeValue(jen.Id(e), v.Elem, compose(atFieldVar("string("+k+")"), wrap), d+1)...)
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('{'))),
			jen.For(jen.List(jen.Id(i), jen.Id(k)).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(s()))).Block(loop...),
			set(jen.Append(dst, jen.LitRune('}'))),
		}
	}
	return []jen.Code{jen.Return(jen.Nil(), wrap(fieldErr("unsupported value")))}
}

// count writes n with the singular or plural noun, as the protocol
// package's messages do ("1 item", "2 items").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
