package gen

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// The codec is the value-level back end of both generators. Given a
// codecValue, a description of one value (what the scanner reads for it,
// its Go type, its elements, the schema keywords that apply to it and how
// to call a named type's own decoder and encoder), it writes the code that
// reads the value with jsonrpc.Scanner, the code that checks it and the
// code that appends it to dst as JSON.
//
// The protocol generator lowers model.Type into codecValues (codecType in
// codec_protocol.go) and checks values in a separate pass, its Validate
// methods; the handler generator lowers model.Value with a field's
// model.Rules (codecValue in handlers_codec.go) and checks each value as
// it is read. Objects and unions — presence, versions, variants — stay
// with each generator: the codec starts where one member's value does.

// codecKind is the shape of a codecValue.
type codecKind int

const (
	codecScalar  codecKind = iota // one scanner read, one append
	codecSlice                    // a JSON array held in a Go slice
	codecArray                    // a JSON array of exactly Len items held in a Go array
	codecMap                      // a JSON object held in a Go map with string keys
	codecPointer                  // a pointer to Elem
	codecNamed                    // a type with its own decoder and encoder
)

// scanKind says how a scalar moves between JSON and Go.
type scanKind int

const (
	scanString scanKind = iota // s.String; jsonrpc.AppendString
	scanInt                    // s.Int64; jsonrpc.AppendInt
	scanUint                   // s.Int64, kept non-negative by a Minimum; jsonrpc.AppendUint
	scanFloat                  // s.Float64; jsonrpc.AppendFloatChecked
	scanBool                   // s.Bool; jsonrpc.AppendBool
	scanBytes                  // s.StringBytes decoded as base64; base64 in quotes
	scanTime                   // s.String parsed as RFC 3339; formatted back
	scanText                   // s.StringBytes read by UnmarshalText; MarshalText in quotes
	scanCall                   // Read and Append, given by the lowering (raw JSON, any)
)

// A codecValue describes one value to the codec. The lowerings build a
// fresh one for every use; the emitters only read it.
type codecValue struct {
	Kind   codecKind
	GoType jen.Code // the value's Go type, for temporaries and make
	Scan   scanKind // for codecScalar
	// Conv converts what was read, of the scanner's Go type, to GoType;
	// nil when the two are the same.
	Conv func(jen.Code) jen.Code
	// Read, for scanCall, yields the value and an error from s; Append
	// appends v to dst, leaving through ret on failure and naming its
	// temporaries with the depth n.
	Read   jen.Code
	Append func(v jen.Code, ret func(jen.Code) jen.Code, n string) []jen.Code
	Checks valueChecks
	// Check, when set, writes the value's checks beyond its keywords: a
	// named type's validator, the protocol's object test for raw JSON.
	Check func(v jen.Code, ret func(jen.Code) jen.Code) []jen.Code
	// Elem is the element of a slice, array or map and the target of a
	// pointer; Len the length of an array.
	Elem *codecValue
	Len  int
	// KeyConv converts a map key from string to the key's Go type (nil:
	// string itself); KeyEnum, when set, lists the keys allowed.
	KeyConv func(jen.Code) jen.Code
	KeyEnum []model.Literal
	// Nullable says that a pointer reads null as nil and writes nil as
	// null; otherwise nil is an error when writing.
	Nullable bool
	// Decode and Encode call a named type's own decoder and encoder:
	// Decode yields an error, Encode the new dst and an error.
	Decode func(target *jen.Statement) jen.Code
	Encode func(v jen.Code) jen.Code
}

// valueChecks are the schema keywords that apply to a value, limits
// already as JSON text. Zero values are keywords that do not apply.
type valueChecks struct {
	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum string
	// AsFloat compares a number as float64, for limits that need not be
	// integral; AsString converts a string of a named type for counting.
	AsFloat, AsString    bool
	MinLength, MaxLength *int
	// Pattern is the regular expression that the variable PatternVar
	// holds compiled.
	Pattern, PatternVar string
	// Format is the string format; FormatBad writes the test that v is
	// not of it: an optional init statement and the condition.
	Format    string
	FormatBad func(v jen.Code) (init, cond jen.Code)
	Enum      []model.Literal
	MinItems  *int
	MaxItems  *int
	Unique    bool
}

// codec holds the one thing that differs between the two generators'
// code for the same value: when it is checked. Both put map keys on error
// paths with fielderr.AtKey, and both encoders return dst with an error,
// as jsonrpc.AppendFloatChecked does.
type codec struct {
	// inline checks each value as it is read (handlers); otherwise the
	// checks wait for the validation pass (protocol).
	inline bool
}

// read is the scanner call for a scalar.
func (v *codecValue) read() jen.Code {
	s := jen.Id("s")
	switch v.Scan {
	case scanString, scanTime:
		return s.Dot("String").Call()
	case scanInt, scanUint:
		return s.Dot("Int64").Call()
	case scanFloat:
		return s.Dot("Float64").Call()
	case scanBool:
		return s.Dot("Bool").Call()
	case scanBytes, scanText:
		return s.Dot("StringBytes").Call()
	}
	return v.Read
}

func (v *codecValue) conv(e jen.Code) jen.Code {
	if v.Conv == nil {
		return e
	}
	return v.Conv(e)
}

// decode reads the next value into target; errors leave through wrap. d
// is the nesting depth, which names the temporaries.
func (c *codec) decode(target *jen.Statement, v *codecValue, wrap wrapFunc, d int) []jen.Code {
	n := strconv.Itoa(d)
	tgt := func() *jen.Statement { return target.Clone() }
	ret := func(err jen.Code) jen.Code { return jen.Return(wrap(err)) }
	checkErr := func() jen.Code { return jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())) }
	try := func(call jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(ret(jen.Err()))
	}
	switch v.Kind {
	case codecNamed:
		return []jen.Code{try(v.Decode(tgt()))}
	case codecPointer:
		p := "p" + n
		code := []jen.Code{jen.Id(p).Op(":=").New(v.Elem.GoType)}
		code = append(code, c.decode(jen.Op("*").Id(p), v.Elem, wrap, d+1)...)
		code = append(code, tgt().Op("=").Id(p))
		if !v.Nullable {
			return code
		}
		return []jen.Code{jen.If(jen.List(jen.Id("null"), jen.Err()).Op(":=").Id("s").Dot("Null").Call(), jen.Err().Op("!=").Nil()).Block(
			ret(jen.Err()),
		).Else().If(jen.Id("null")).Block(tgt().Op("=").Nil()).Else().Block(code...)}
	case codecScalar:
		return c.decodeScalar(v, wrap, d, func(val jen.Code) jen.Code { return tgt().Op("=").Add(val) })
	case codecSlice:
		sl, i, e := "sl"+n, "i"+n, "e"+n
		loop := []jen.Code{
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextElem").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
		}
		loop = append(loop, c.decodeElem(v.Elem, compose(atIndex(i), wrap), d+1, e, func(val jen.Code) jen.Code {
			return jen.Id(sl).Op("=").Append(jen.Id(sl), val)
		})...)
		code := []jen.Code{
			try(jen.Id("s").Dot("ArrayStart").Call()),
			jen.Id(sl).Op(":=").Make(v.GoType, jen.Lit(0)),
			jen.For(jen.Id(i).Op(":=").Lit(0), jen.Empty(), jen.Id(i).Op("++")).Block(loop...),
		}
		if c.inline {
			code = append(code, c.keywordChecks(jen.Id(sl), v, ret)...)
		}
		return append(code, tgt().Op("=").Id(sl))
	case codecArray:
		i := "i" + n
		loop := []jen.Code{
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextElem").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.If(jen.Id(i).Op(">=").Lit(v.Len)).Block(ret(errCall("MaxItems", jen.Lit(v.Len)))),
		}
		loop = append(loop, c.decode(jen.Parens(tgt()).Index(jen.Id(i)), v.Elem, compose(atIndex(i), wrap), d+1)...)
		code := []jen.Code{
			try(jen.Id("s").Dot("ArrayStart").Call()),
			jen.Id(i).Op(":=").Lit(0),
			jen.For(jen.Empty(), jen.Empty(), jen.Id(i).Op("++")).Block(loop...),
			jen.If(jen.Id(i).Op("<").Lit(v.Len)).Block(ret(errCall("MinItems", jen.Lit(v.Len)))),
		}
		if c.inline {
			code = append(code, c.keywordChecks(jen.Parens(tgt()), v, ret)...)
		}
		return code
	case codecMap:
		m, k, e := "m"+n, "k"+n, "e"+n
		elemWrap := compose(atKey(k), wrap)
		loop := []jen.Code{
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(), checkErr(),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Id(k).Op(":=").String().Call(jen.Id("key")),
		}
		if len(v.KeyEnum) > 0 {
			loop = append(loop, enumCheck(jen.Id(k), scanString, v.KeyEnum, func(err jen.Code) jen.Code { return jen.Return(elemWrap(err)) }))
		}
		key := jen.Code(jen.Id(k))
		if v.KeyConv != nil {
			key = v.KeyConv(key)
		}
		loop = append(loop, c.decodeElem(v.Elem, elemWrap, d+1, e, func(val jen.Code) jen.Code {
			return jen.Id(m).Index(key).Op("=").Add(val)
		})...)
		return []jen.Code{
			try(jen.Id("s").Dot("ObjectStart").Call()),
			jen.Id(m).Op(":=").Make(v.GoType),
			jen.For().Block(loop...),
			tgt().Op("=").Id(m),
		}
	}
	panic("gen: codec cannot decode this value")
}

// decodeScalar reads the scalar v and hands it, converted, to store.
func (c *codec) decodeScalar(v *codecValue, wrap wrapFunc, d int, store func(jen.Code) jen.Code) []jen.Code {
	n := strconv.Itoa(d)
	ret := func(err jen.Code) jen.Code { return jen.Return(wrap(err)) }
	val := "v" + n
	code := []jen.Code{
		jen.List(jen.Id(val), jen.Err()).Op(":=").Add(v.read()),
		jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
	}
	got := val
	switch v.Scan {
	case scanBytes:
		got = "b" + n
		code = append(code,
			// Onto an empty slice, not nil: "" reads as empty bytes, as
			// in encoding/json, and a round trip keeps them.
			jen.List(jen.Id(got), jen.Err()).Op(":=").Qual("encoding/base64", "StdEncoding").Dot("AppendDecode").Call(jen.Index().Byte().Values(), jen.Id(val)),
			jen.If(jen.Err().Op("!=").Nil()).Block(ret(errCall("Format", jen.Lit("byte")))))
	case scanTime:
		got = "t" + n
		code = append(code,
			jen.List(jen.Id(got), jen.Err()).Op(":=").Qual("time", "Parse").Call(jen.Qual("time", "RFC3339Nano"), jen.Id(val)),
			jen.If(jen.Err().Op("!=").Nil()).Block(ret(errCall("Format", jen.Lit("date-time")))))
	case scanText:
		// The type's own parser judges the text; its error, on the
		// value's path, is the message.
		got = "t" + n
		code = append(code,
			jen.Var().Id(got).Add(v.GoType),
			jen.If(jen.Err().Op(":=").Id(got).Dot("UnmarshalText").Call(jen.Id(val)), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())))
	}
	if c.inline {
		code = append(code, c.keywordChecks(jen.Id(val), v, ret)...)
	}
	return append(code, store(v.conv(jen.Id(got))))
}

// decodeElem reads an element of a slice or map and hands it to store: a
// scalar straight from the scanner, anything else through the variable e.
func (c *codec) decodeElem(v *codecValue, wrap wrapFunc, d int, e string, store func(jen.Code) jen.Code) []jen.Code {
	if v.Kind == codecScalar {
		return c.decodeScalar(v, wrap, d, store)
	}
	code := []jen.Code{jen.Var().Id(e).Add(v.GoType)}
	code = append(code, c.decode(jen.Id(e), v, wrap, d)...)
	return append(code, store(jen.Id(e)))
}

// needsCheck reports whether check writes anything for v.
func (v *codecValue) needsCheck() bool {
	if v.Check != nil || !v.Checks.empty() {
		return true
	}
	switch v.Kind {
	case codecSlice, codecArray, codecMap, codecPointer:
		return v.Elem.needsCheck()
	}
	return false
}

func (k *valueChecks) empty() bool {
	return k.Minimum == "" && k.Maximum == "" && k.ExclusiveMinimum == "" && k.ExclusiveMaximum == "" &&
		k.MinLength == nil && k.MaxLength == nil && k.Pattern == "" && k.Format == "" && len(k.Enum) == 0 &&
		k.MinItems == nil && k.MaxItems == nil && !k.Unique
}

// check writes the checks of a value that has been read, x, and of its
// elements, for a validation pass; errors leave through ret.
func (c *codec) check(x *jen.Statement, v *codecValue, wrap wrapFunc, d int) []jen.Code {
	ret := func(err jen.Code) jen.Code { return jen.Return(wrap(err)) }
	n := strconv.Itoa(d)
	switch v.Kind {
	case codecPointer:
		if !v.Elem.needsCheck() {
			return nil
		}
		return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(c.check(jen.Parens(jen.Op("*").Add(x.Clone())), v.Elem, wrap, d)...)}
	case codecSlice, codecArray:
		code := c.keywordChecks(x, v, ret)
		if v.Elem.needsCheck() {
			i := "i" + n
			code = append(code, jen.For(jen.Id(i).Op(":=").Range().Add(x.Clone())).Block(
				c.check(x.Clone().Index(jen.Id(i)), v.Elem, compose(atIndex(i), wrap), d+1)...))
		}
		return code
	case codecMap:
		if !v.Elem.needsCheck() {
			return nil
		}
		k, e := "k"+n, "e"+n
		return []jen.Code{jen.For(jen.List(jen.Id(k), jen.Id(e)).Op(":=").Range().Add(x.Clone())).Block(
			c.check(jen.Id(e), v.Elem, compose(atKey(k), wrap), d+1)...)}
	}
	return c.keywordChecks(x, v, ret)
}

// keywordChecks writes the keyword checks of v, held in x, and its own
// Check, without descending into elements.
func (c *codec) keywordChecks(x jen.Code, v *codecValue, ret func(jen.Code) jen.Code) []jen.Code {
	k := &v.Checks
	var code []jen.Code
	fail := func(cond, err jen.Code) { code = append(code, jen.If(cond).Block(ret(err))) }
	num := jen.Add(x)
	if k.AsFloat {
		num = jen.Float64().Parens(x)
	}
	limit := func(op, lim, name string) {
		if lim != "" {
			fail(num.Clone().Op(op).Id(lim), errCall(name, jen.Lit(lim)))
		}
	}
	limit("<", k.Minimum, "Minimum")
	limit(">", k.Maximum, "Maximum")
	limit("<=", k.ExclusiveMinimum, "ExclusiveMinimum")
	limit(">=", k.ExclusiveMaximum, "ExclusiveMaximum")
	if len(k.Enum) > 0 {
		code = append(code, enumCheck(x, v.Scan, k.Enum, ret))
	}
	str := jen.Add(x)
	if k.AsString {
		str = jen.String().Parens(x)
	}
	if k.MinLength != nil {
		fail(jen.Qual("unicode/utf8", "RuneCountInString").Call(str.Clone()).Op("<").Lit(*k.MinLength), errCall("MinLength", jen.Lit(*k.MinLength)))
	}
	if k.MaxLength != nil {
		fail(jen.Qual("unicode/utf8", "RuneCountInString").Call(str.Clone()).Op(">").Lit(*k.MaxLength), errCall("MaxLength", jen.Lit(*k.MaxLength)))
	}
	if k.Pattern != "" {
		fail(jen.Op("!").Id(k.PatternVar).Dot("MatchString").Call(str.Clone()), errCall("Pattern", jen.Lit(k.Pattern)))
	}
	if k.Format != "" {
		init, cond := k.FormatBad(str.Clone())
		if init != nil {
			code = append(code, jen.If(init, cond).Block(ret(errCall("Format", jen.Lit(k.Format)))))
		} else {
			fail(cond, errCall("Format", jen.Lit(k.Format)))
		}
	}
	if k.MinItems != nil {
		fail(jen.Len(x).Op("<").Lit(*k.MinItems), errCall("MinItems", jen.Lit(*k.MinItems)))
	}
	if k.MaxItems != nil {
		fail(jen.Len(x).Op(">").Lit(*k.MaxItems), errCall("MaxItems", jen.Lit(*k.MaxItems)))
	}
	if k.Unique {
		list := jen.Add(x)
		code = append(code, jen.For(jen.Id("i").Op(":=").Range().Add(list.Clone())).Block(
			jen.For(jen.Id("j").Op(":=").Range().Id("i")).Block(
				jen.If(list.Clone().Index(jen.Id("i")).Op("==").Add(list.Clone()).Index(jen.Id("j"))).Block(
					ret(errCall("UniqueItems", jen.Id("j"), jen.Id("i"))),
				),
			),
		))
	}
	if v.Check != nil {
		code = append(code, v.Check(x, ret)...)
	}
	return code
}

// enumCheck rejects x, read as scan, unless it is one of enum. The message
// is fielderr.Enum's, "must be one of [...], got <x>", for every kind.
func enumCheck(x jen.Code, scan scanKind, enum []model.Literal, ret func(jen.Code) jen.Code) jen.Code {
	cases := make([]jen.Code, len(enum))
	vals := make([]string, len(enum))
	for i, l := range enum {
		vals[i] = l.JSON()
		cases[i] = literal(l)
	}
	allowed := "[" + join(vals) + "]"
	var err jen.Code
	switch scan {
	case scanString:
		err = errCall("Enum", x, jen.Lit(allowed))
	case scanInt, scanUint:
		err = errCall("New", jen.Lit("must be one of "+allowed+", got ").Op("+").Qual("strconv", "FormatInt").Call(x, jen.Lit(10)))
	case scanFloat:
		err = errCall("New", jen.Lit("must be one of "+allowed+", got ").Op("+").Qual("strconv", "FormatFloat").Call(x, jen.LitRune('g'), jen.Lit(-1), jen.Lit(64)))
	case scanBool:
		err = errCall("New", jen.Lit("must be one of "+allowed+", got ").Op("+").Qual("strconv", "FormatBool").Call(x))
	default:
		err = fieldErr("must be one of " + allowed)
	}
	return jen.Switch(x).Block(jen.Case(cases...), jen.Default().Block(ret(err)))
}

// encodeAssignsErr reports whether the code encode writes for v assigns
// err, which the enclosing function must then declare: a named type's
// encoder and a number's checked append do; an Append of the lowering's
// declares what it uses itself.
func encodeAssignsErr(v *codecValue) bool {
	switch v.Kind {
	case codecNamed:
		return true
	case codecScalar:
		return v.Scan == scanFloat
	case codecPointer, codecSlice, codecArray, codecMap:
		return encodeAssignsErr(v.Elem)
	}
	return false
}

// derefInParens reports whether *p, p a pointer to v, must be written
// (*p) to be used as the encoder uses v: indexed, passed to a function
// with &, or given a method call (time.Time's AppendFormat, a text
// type's MarshalText). Conversions such as string(*p) need no parentheses.
func derefInParens(v *codecValue) bool {
	return v.Kind != codecScalar || v.Scan == scanTime || v.Scan == scanText
}

// encode appends x, of value v, to dst; errors leave through wrap.
func (c *codec) encode(x *jen.Statement, v *codecValue, wrap wrapFunc, d int) []jen.Code {
	n := strconv.Itoa(d)
	dst := jen.Id("dst")
	set := func(e jen.Code) jen.Code { return jen.Id("dst").Op("=").Add(e) }
	ret := func(err jen.Code) jen.Code { return jen.Return(jen.Id("dst"), wrap(err)) }
	checkErr := func() jen.Code { return jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())) }
	switch v.Kind {
	case codecNamed:
		return []jen.Code{jen.List(jen.Id("dst"), jen.Err()).Op("=").Add(v.Encode(x.Clone())), checkErr()}
	case codecPointer:
		deref := jen.Op("*").Add(x.Clone())
		if derefInParens(v.Elem) {
			deref = jen.Parens(deref)
		}
		elem := c.encode(deref, v.Elem, wrap, d+1)
		if v.Nullable {
			return []jen.Code{jen.If(x.Clone().Op("==").Nil()).Block(set(jen.Append(dst, jen.Lit("null").Op("...")))).Else().Block(elem...)}
		}
		return append([]jen.Code{jen.If(x.Clone().Op("==").Nil()).Block(ret(fieldErr("is nil, which the output schema does not allow")))}, elem...)
	case codecScalar:
		switch v.Scan {
		case scanString:
			return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendString").Call(dst, jen.String().Parens(x.Clone())))}
		case scanInt:
			return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendInt").Call(dst, jen.Int64().Parens(x.Clone())))}
		case scanUint:
			return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendUint").Call(dst, jen.Uint64().Parens(x.Clone())))}
		case scanFloat:
			return []jen.Code{
				jen.List(jen.Id("dst"), jen.Err()).Op("=").Qual(jsonrpcPkg, "AppendFloatChecked").Call(dst, jen.Float64().Parens(x.Clone())),
				checkErr(),
			}
		case scanBool:
			return []jen.Code{set(jen.Qual(jsonrpcPkg, "AppendBool").Call(dst, jen.Bool().Parens(x.Clone())))}
		case scanBytes:
			return []jen.Code{
				set(jen.Append(dst, jen.LitRune('"'))),
				set(jen.Qual("encoding/base64", "StdEncoding").Dot("AppendEncode").Call(dst, x.Clone())),
				set(jen.Append(dst, jen.LitRune('"'))),
			}
		case scanTime:
			return []jen.Code{
				set(jen.Append(dst, jen.LitRune('"'))),
				set(x.Clone().Dot("AppendFormat").Call(dst, jen.Qual("time", "RFC3339Nano"))),
				set(jen.Append(dst, jen.LitRune('"'))),
			}
		case scanText:
			b := "b" + n
			return []jen.Code{jen.If(jen.List(jen.Id(b), jen.Err()).Op(":=").Add(x.Clone()).Dot("MarshalText").Call(), jen.Err().Op("!=").Nil()).Block(
				ret(jen.Err()),
			).Else().Block(set(jen.Qual(jsonrpcPkg, "AppendStringBytes").Call(dst, jen.Id(b))))}
		}
		return v.Append(x.Clone(), ret, n)
	case codecSlice, codecArray:
		i := "i" + n
		loop := []jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(set(jen.Append(dst, jen.LitRune(','))))}
		loop = append(loop, c.encode(x.Clone().Index(jen.Id(i)), v.Elem, compose(atIndex(i), wrap), d+1)...)
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('['))),
			jen.For(jen.Id(i).Op(":=").Range().Add(x.Clone())).Block(loop...),
			set(jen.Append(dst, jen.LitRune(']'))),
		}
	case codecMap:
		i, k, e := "i"+n, "k"+n, "e"+n
		loop := []jen.Code{
			jen.If(jen.Id(i).Op(">").Lit(0)).Block(set(jen.Append(dst, jen.LitRune(',')))),
			set(jen.Qual(jsonrpcPkg, "AppendString").Call(dst, jen.String().Call(jen.Id(k)))),
			set(jen.Append(dst, jen.LitRune(':'))),
			jen.Id(e).Op(":=").Add(x.Clone()).Index(jen.Id(k)),
		}
		loop = append(loop, c.encode(jen.Id(e), v.Elem, compose(atKey("string("+k+")"), wrap), d+1)...)
		return []jen.Code{
			set(jen.Append(dst, jen.LitRune('{'))),
			jen.For(jen.List(jen.Id(i), jen.Id(k)).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(x.Clone()))).Block(loop...),
			set(jen.Append(dst, jen.LitRune('}'))),
		}
	}
	panic("gen: codec cannot encode this value")
}
