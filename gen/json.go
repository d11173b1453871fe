package gen

import (
	"encoding/json"
	"fmt"
	"go/token"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// json renders decoding and encoding for every named type.
func (g *generator) json() *jen.File {
	f := g.newFile()
	for _, t := range g.m.Types {
		if t.Kind == model.Alias {
			continue
		}
		g.unmarshal(f, t)
		g.marshal(f, t)
	}
	return f
}

// recv is the receiver of a type's methods: a pointer for structs, whose
// values are large, the value for everything else.
func recv(t *model.Type) *jen.Statement {
	if t.Kind == model.Struct {
		return jen.Id("x").Op("*").Id(t.Name)
	}
	return jen.Id("x").Id(t.Name)
}

func (g *generator) unmarshal(f *jen.File, t *model.Type) {
	f.Comment("UnmarshalJSON decodes x from JSON without checking the schema's rules; Validate does.")
	f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Id("decodeWhole").Call(jen.Id("data"), jen.Id("x").Dot("decode"))),
	)
	var body []jen.Code
	switch {
	case t.Kind == model.Struct:
		body = g.decodeStruct(t)
	case t.Kind == model.Union && g.scalarUnion(t):
		body = g.decodeScalarUnion(t)
	case t.Kind == model.Union:
		body = g.decodeUnion(t)
	default:
		body = append(g.decodeInto(jen.Parens(jen.Op("*").Id("x")), t, jen.Id(t.Name), plainErr, 0), jen.Return(jen.Nil()))
	}
	f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("decode").Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(body...)
}

// decodePointee decodes into the value that pointer p, just allocated,
// points to.
func (g *generator) decodePointee(t *model.Type, p *jen.Statement) jen.Code {
	if g.foreign(t) {
		return jen.Id("decodeForeign").Call(jen.Id("s"), p)
	}
	return p.Dot("decode").Call(jen.Id("s"))
}

func (g *generator) decodeStruct(t *model.Type) []jen.Code {
	var cases []jen.Code
	for i, fd := range t.Fields {
		stmts := []jen.Code{jen.Id("seen").Op("|=").Add(g.presenceBit(t, i))}
		target := jen.Id("x").Dot(fd.GoName)
		switch {
		case isConst(fd):
			stmts = append(stmts, g.decodeConst(fd.Type, atField(fd.JSON))...)
		case g.pointerField(fd):
			stmts = append(stmts,
				jen.Add(target.Clone()).Op("=").New(g.goType(fd.Type)),
				jen.If(jen.Err().Op(":=").Add(g.decodePointee(fd.Type, target.Clone())), jen.Err().Op("!=").Nil()).Block(
					jen.Return(atField(fd.JSON)(jen.Err()))))
		default:
			stmts = append(stmts, g.decodeInto(target, fd.Type, nil, atField(fd.JSON), 0)...)
		}
		cases = append(cases, jen.Case(jen.Lit(fd.JSON)).Block(stmts...))
	}
	if t.Extra != nil {
		cases = append(cases, jen.Default().Block(
			jen.If(jen.Err().Op(":=").Id("decodeExtra").Call(jen.Id("s"), jen.Id("key"), jen.Op("&").Id("x").Dot("Extra")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Err()))))
	} else {
		cases = append(cases, jen.Default().Block(
			jen.Return(errCall("AtKey", errCall("UnknownProperty"), jen.String().Parens(jen.Id("key"))))))
	}
	// x starts zero, so missing needs setting only where t requires something.
	tail := []jen.Code{jen.Id("x").Dot("has").Op("=").Id("seen")}
	if name := g.names.required[t.Name]; name != "" {
		tail = append(tail, jen.Id("x").Dot("missing").Op("=").Id(name).Op("&^").Id("seen"))
	}
	tail = append(tail, jen.Return(jen.Nil()))
	return append([]jen.Code{
		jen.Op("*").Id("x").Op("=").Id(t.Name).Values(),
		jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Var().Id("seen").Uint64(),
		jen.For().Block(
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...),
		),
	}, tail...)
}

func (g *generator) decodeConst(t *model.Type, wrap func(jen.Code) jen.Code) []jen.Code {
	var call jen.Code
	if t.Prim == model.String {
		var s string
		if err := json.Unmarshal([]byte(t.Const), &s); err != nil {
			panic(fmt.Sprintf("gen: string const %s: %v", t.Const, err))
		}
		call = jen.Id("decodeConstString").Call(jen.Id("s"), jen.Lit(s), jen.Lit(t.Const))
	} else {
		var n int64
		if err := json.Unmarshal([]byte(t.Const), &n); err != nil {
			panic(fmt.Sprintf("gen: const %s: only string and integer constants are supported", t.Const))
		}
		call = jen.Id("decodeConstInt").Call(jen.Id("s"), jen.Lit(n), jen.Lit(t.Const))
	}
	return []jen.Code{jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err())))}
}

// decodeInto decodes the next value, of type t, into target. conv, when
// set, converts a primitive to a named type.
func (g *generator) decodeInto(target *jen.Statement, t *model.Type, conv *jen.Statement, wrap func(jen.Code) jen.Code, depth int) []jen.Code {
	if t.Kind == model.Primitive && t.Const != "" {
		return g.decodeConst(t, wrap)
	}
	return protocolCodec.decode(target, g.codecType(t, conv), wrap, depth)
}

// decodePrim decodes the next value, a p, into target.
func (g *generator) decodePrim(target *jen.Statement, p model.Prim) []jen.Code {
	return g.decodeInto(target, &model.Type{Kind: model.Primitive, Prim: p}, nil, plainErr, 0)
}

func (g *generator) decodeScalarUnion(t *model.Type) []jen.Code {
	var cases []jen.Code
	var number *scalarVariant
	vs := scalarVariants(t)
	for i := range vs {
		v := &vs[i]
		body := append(g.decodePrim(jen.Id("x").Dot(v.field), v.prim),
			jen.Id("x").Dot("kind").Op("=").Lit(v.kind),
			jen.Return(jen.Nil()),
		)
		switch v.prim {
		case model.String:
			cases = append(cases, jen.Case(jen.Qual(jsonrpcPkg, "KindString")).Block(body...))
		case model.Boolean:
			cases = append(cases, jen.Case(jen.Qual(jsonrpcPkg, "KindBool")).Block(body...))
		case model.Integer:
			number = v
		case model.Number:
			if number == nil {
				number = v
			}
		}
	}
	if number != nil {
		cases = append(cases, jen.Case(jen.Qual(jsonrpcPkg, "KindNumber")).Block(append(g.decodePrim(jen.Id("x").Dot(number.field), number.prim),
			jen.Id("x").Dot("kind").Op("=").Lit(number.kind),
			jen.Return(jen.Nil()),
		)...))
	}
	return []jen.Code{
		jen.Op("*").Id("x").Op("=").Id(t.Name).Values(),
		jen.Id("k").Op(":=").Id("s").Dot("Peek").Call(),
		jen.Switch(jen.Id("k")).Block(cases...),
		jen.If(jen.Id("k").Op("==").Qual(jsonrpcPkg, "KindInvalid")).Block(jen.Return(jen.Id("s").Dot("Skip").Call())),
		jen.Return(errCall("NoVariant", jen.Lit(t.Name), jen.Id("k"))),
	}
}

var kindIdents = map[model.JSONKind]string{
	model.KindObject: "KindObject", model.KindArray: "KindArray", model.KindString: "KindString",
	model.KindInteger: "KindNumber", model.KindNumber: "KindNumber", model.KindBoolean: "KindBool",
}

// decodeVariant decodes raw as variant vi of u and returns.
func (g *generator) decodeVariant(u *model.Type, vi int) []jen.Code {
	n := g.named(u.Variants[vi].Type)
	if n.Kind == model.Struct {
		return []jen.Code{
			jen.Id("v").Op(":=").New(jen.Id(n.Name)),
			jen.If(jen.Err().Op(":=").Id("decodeSub").Call(jen.Id("raw"), jen.Id("v").Dot("decode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("x").Dot("Value").Op("=").Id("v"),
			jen.Return(jen.Nil()),
		}
	}
	return []jen.Code{
		jen.Var().Id("v").Id(n.Name),
		jen.If(jen.Err().Op(":=").Id("decodeSub").Call(jen.Id("raw"), jen.Id("v").Dot("decode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("x").Dot("Value").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	}
}

func (g *generator) decodeUnion(t *model.Type) []jen.Code {
	var cases []jen.Code
	numberDone := false
	for _, grp := range t.Pick.Groups {
		kind := kindIdents[grp.Kind]
		if kind == "KindNumber" {
			if numberDone {
				continue
			}
			numberDone = true
		}
		cases = append(cases, jen.Case(jen.Qual(jsonrpcPkg, kind)).Block(g.decodeGroup(t, grp)...))
	}
	return []jen.Code{
		jen.Id("x").Dot("Value").Op("=").Nil(),
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("s").Dot("Raw").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("k").Op(":=").Id("kindOf").Call(jen.Id("raw")),
		jen.Switch(jen.Id("k")).Block(cases...),
		jen.Return(errCall("NoVariant", jen.Lit(t.Name), jen.Id("k"))),
	}
}

func (g *generator) decodeGroup(t *model.Type, grp *model.PickGroup) []jen.Code {
	if grp.Kind == model.KindInteger || grp.Kind == model.KindNumber {
		// An integer variant takes integral numbers; a number variant the rest.
		var intVar, numVar = -1, -1
		for _, gg := range t.Pick.Groups {
			switch gg.Kind {
			case model.KindInteger:
				intVar = gg.Variants[0]
			case model.KindNumber:
				numVar = gg.Variants[0]
			}
		}
		if intVar >= 0 && numVar >= 0 {
			return []jen.Code{
				jen.If(jen.Id("isIntegral").Call(jen.Id("raw"))).Block(g.decodeVariant(t, intVar)...),
				jen.Block(g.decodeVariant(t, numVar)...),
			}
		}
	}
	if grp.ConstKey == "" {
		return g.decodeCase(t, grp.Cases[0])
	}
	var cases []jen.Code
	var absent *model.PickCase
	for _, c := range grp.Cases {
		if c.Value == "" {
			absent = c
			continue
		}
		var val string
		json.Unmarshal([]byte(c.Value), &val)
		cases = append(cases, jen.Case(jen.Lit(val)).Block(g.decodeCase(t, c)...))
	}
	tag := jen.List(jen.Id("tag"), jen.Id("ok")).Op(":=").Id("stringAt").Call(jen.Id("raw"), jen.Lit(grp.ConstKey))
	wrongType := jen.Return(atField(grp.ConstKey)(errCall("Type", jen.Lit("string"), jen.Id("kindOfValueAt").Call(jen.Id("raw"), jen.Lit(grp.ConstKey)))))
	var out []jen.Code
	if d := grp.Discriminator; d != nil {
		out = append(out, lineComments(sanitizeComment(wrapText("The override table makes "+d.Key+" the discriminator: "+d.Reason+".", 76))))
	}
	if grp.Absent != "" {
		// A missing key reads as the value it stands for.
		var val string
		json.Unmarshal([]byte(grp.Absent), &val)
		out = append(out, tag, jen.If(jen.Op("!").Id("ok")).Block(
			jen.If(jen.Id("hasValueAt").Call(jen.Id("raw"), jen.Lit(grp.ConstKey))).Block(wrongType),
			jen.Comment("An absent "+grp.ConstKey+" stands for "+grp.Absent+"."),
			jen.Id("tag").Op("=").Index().Byte().Parens(jen.Lit(val)),
		))
	} else {
		missing := []jen.Code{jen.Return(atField(grp.ConstKey)(errCall("Required")))}
		if absent != nil {
			missing = g.decodeCase(t, absent)
		}
		out = append(out, tag, jen.If(jen.Op("!").Id("ok")).Block(
			jen.If(jen.Op("!").Id("hasValueAt").Call(jen.Id("raw"), jen.Lit(grp.ConstKey))).Block(missing...),
			wrongType,
		))
	}
	return append(out,
		jen.Switch(jen.String().Parens(jen.Id("tag"))).Block(cases...),
		// The error sits at the discriminator, as a missing or non-string
		// one does above: that member holds the value to fix.
		jen.Return(atField(grp.ConstKey)(errCall("UnknownVariant", jen.Lit(t.Name), jen.Lit(grp.ConstKey), jen.Id("tag")))),
	)
}

// decodeCase chooses among a case's candidates and decodes the winner. It
// names, in constants local to the case, the bits of the keys it looks for
// (bits of present) and of the candidates (bits of top).
func (g *generator) decodeCase(t *model.Type, c *model.PickCase) []jen.Code {
	if len(c.Variants) == 1 {
		return g.decodeVariant(t, c.Variants[0])
	}
	keyNames := localNames("key", c.Keys)
	var variants []string
	for _, vi := range c.Variants {
		variants = append(variants, t.Variants[vi].Name())
	}
	variantNames := localNames("variant", variants)
	index := map[string]int{}
	for i, v := range variants {
		index[v] = i
	}
	variant := func(i int) *jen.Statement { return jen.Id(variantNames[i]) }
	var out []jen.Code
	present := jen.Lit(0)
	if len(c.Keys) > 0 {
		var keys []jen.Code
		for _, k := range c.Keys {
			keys = append(keys, jen.Lit(k))
		}
		out = append(out,
			jen.Comment("The keys that tell the variants apart, as bits of present."),
			bitConsts(keyNames),
			jen.List(jen.Id("present"), jen.Err()).Op(":=").Id("objectKeys").Call(jen.Id("raw"), jen.Index().String().Values(keys...)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		present = jen.Id("present")
	}
	var req, decl []jen.Code
	for i := range c.Variants {
		// A row a line, in the order of the variants.
		req = append(req, jen.Line().Add(keyMask(c.Required[i], keyNames)))
		decl = append(decl, jen.Line().Add(keyMask(c.Declared[i], keyNames)))
	}
	req, decl = append(req, jen.Line()), append(decl, jen.Line())
	n := len(c.Variants)
	out = append(out,
		jen.Comment("The variants, as bits of top, and the keys each requires and declares."),
		bitConsts(variantNames),
		jen.Id("required").Op(":=").Index(jen.Lit(n)).Uint64().Values(req...),
		jen.Id("declared").Op(":=").Index(jen.Lit(n)).Uint64().Values(decl...))
	// Gates: a conditional rule whose condition fails rules its variant out.
	var ties []jen.Code
	for _, r := range c.Rules {
		pi := index[r.Prefer]
		cond := ruleCond(r)
		if len(r.Path) > 0 {
			gate := jen.Id("required").Index(jen.Lit(pi)).Op("=").Op("^").Uint64().Call(jen.Lit(0))
			var when jen.Code = jen.Op("!").Add(cond.Clone())
			if r.Over != "" {
				oi := index[r.Over]
				when = jen.Op("!").Add(cond.Clone()).Op("&&").Id("required").Index(jen.Lit(oi)).Op("&^").Add(present).Op("==").Lit(0)
			}
			out = append(out, jen.Comment(r.Reason), jen.If(when).Block(gate))
		}
		both := jen.Id("top").Op("&").Add(variant(pi)).Op("!=").Lit(0)
		if r.Over != "" {
			both = both.Op("&&").Id("top").Op("&").Add(variant(index[r.Over])).Op("!=").Lit(0)
		}
		if len(r.Path) > 0 {
			both = both.Op("&&").Add(cond)
		}
		ties = append(ties, jen.If(both).Block(jen.Id("top").Op("=").Add(variant(pi))))
	}
	out = append(out, jen.Id("top").Op(":=").Id("topVariants").Call(present, jen.Id("required").Index(jen.Empty(), jen.Empty()), jen.Id("declared").Index(jen.Empty(), jen.Empty())))
	if len(ties) > 0 {
		out = append(out, jen.If(jen.Qual("math/bits", "OnesCount64").Call(jen.Id("top")).Op(">").Lit(1)).Block(ties...))
	}
	var cases []jen.Code
	for i := range c.Variants {
		cases = append(cases, jen.Case(variant(i)).Block(g.decodeVariant(t, c.Variants[i])...))
	}
	cases = append(cases, jen.Case(jen.Lit(0)).Block(jen.Return(errCall("NoVariant", jen.Lit(t.Name), jen.Qual(jsonrpcPkg, "KindObject")))))
	out = append(out, jen.Switch(jen.Id("top")).Block(cases...),
		jen.Return(fieldErr("matches more than one "+t.Name+" variant equally well")))
	return out
}

// localNames names the constants of a decoder's local bits: prefix and
// each of names as a Go identifier ("_meta" gives keyMeta), numbered when
// that leaves nothing or a name already given.
func localNames(prefix string, names []string) []string {
	out := make([]string, len(names))
	used := map[string]bool{}
	for i, name := range names {
		var b strings.Builder
		upper := true
		for _, r := range name {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) && b.Len() > 0:
				if upper {
					r = unicode.ToUpper(r)
				}
				b.WriteRune(r)
				upper = false
			default:
				upper = true
			}
		}
		id := prefix + b.String()
		if b.Len() == 0 || used[id] || !token.IsIdentifier(id) {
			id = fmt.Sprintf("%s%d", prefix, i)
		}
		used[id] = true
		out[i] = id
	}
	return out
}

// bitConsts declares names as the bits 1, 2, 4, ... of a uint64.
func bitConsts(names []string) jen.Code {
	var defs []jen.Code
	for i, name := range names {
		d := jen.Id(name)
		if i == 0 {
			d = d.Uint64().Op("=").Lit(1).Op("<<").Iota()
		}
		defs = append(defs, d)
	}
	return jen.Const().Defs(defs...)
}

// keyMask writes mask, a set of bits of keys, with their names.
func keyMask(mask uint64, names []string) jen.Code {
	var parts []jen.Code
	for i, name := range names {
		if mask&(1<<uint(i)) != 0 {
			parts = append(parts, jen.Id(name))
		}
	}
	if len(parts) == 0 {
		return jen.Lit(0)
	}
	return joinOr(parts)
}

func ruleCond(r *model.PickRule) *jen.Statement {
	var path []jen.Code
	for _, p := range r.Path {
		path = append(path, jen.Lit(p))
	}
	switch {
	case len(r.Path) == 0:
		return jen.True()
	case r.Equals != "":
		var s string
		json.Unmarshal([]byte(r.Equals), &s)
		return jen.Id("stringValueAt").Call(append([]jen.Code{jen.Id("raw"), jen.Lit(s)}, path...)...)
	}
	return jen.Id("hasValueAt").Call(append([]jen.Code{jen.Id("raw")}, path...)...)
}

// ---- encoding ----

func (g *generator) marshal(f *jen.File, t *model.Type) {
	self := jen.Id("x")
	if t.Kind == model.Struct {
		self = jen.Parens(jen.Op("&").Id("x"))
	}
	f.Comment("MarshalJSON encodes x as JSON.")
	f.Func().Params(jen.Id("x").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(self.Dot("appendJSON").Call(jen.Nil())),
	)
	var body []jen.Code
	switch {
	case t.Kind == model.Struct:
		body = g.encodeStruct(t)
	case t.Kind == model.Union && g.scalarUnion(t):
		var cases []jen.Code
		for _, v := range scalarVariants(t) {
			code, _ := g.appendPrim(jen.Id("x").Dot(v.field), v.prim, plainErr)
			cases = append(cases, jen.Case(jen.Lit(v.kind)).Block(code...))
		}
		cases = append(cases, jen.Default().Block(jen.Return(jen.Id("dst"), fieldErr(t.Name+" holds no value"))))
		body = []jen.Code{jen.Var().Err().Error(), jen.Switch(jen.Id("x").Dot("kind")).Block(cases...), jen.Return(jen.Id("dst"), jen.Err())}
	case t.Kind == model.Union:
		body = []jen.Code{
			jen.If(jen.Id("x").Dot("Value").Op("==").Nil()).Block(jen.Return(jen.Id("dst"), fieldErr(t.Name+" holds no value"))),
			jen.Return(jen.Id("x").Dot("Value").Dot("appendJSON").Call(jen.Id("dst"))),
		}
	default:
		code, assignsErr := g.appendValue(jen.Id("x"), t, plainErr, 0)
		if assignsErr {
			body = append(body, jen.Var().Err().Error())
		}
		body = append(append(body, code...), jen.Return(jen.Id("dst"), jen.Nil()))
	}
	f.Func().Params(recv(t)).Id("appendJSON").Params(jen.Id("dst").Index().Byte()).Params(jen.Index().Byte(), jen.Error()).Block(body...)
}

func (g *generator) encodeStruct(t *model.Type) []jen.Code {
	var body []jen.Code
	needErr := false
	for i, fd := range t.Fields {
		key := jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(fmt.Sprintf(",%s:", quoteJSON(fd.JSON))).Op("..."))
		var value []jen.Code
		var assignsErr bool
		target := jen.Id("x").Dot(fd.GoName)
		if isConst(fd) {
			value = []jen.Code{jen.Id("dst").Op("=").Append(jen.Id("dst"), jen.Lit(fd.Type.Const).Op("..."))}
		} else {
			value, assignsErr = g.appendValue(target, fd.Type, atField(fd.JSON), 0)
		}
		needErr = needErr || assignsErr
		var cond jen.Code
		switch {
		case g.emitAlways(t, fd), isConst(fd) && fd.Required.Has(fd.Versions.Newest()):
			cond = jen.Id("x").Dot("missing").Op("&").Add(g.presenceBit(t, i)).Op("==").Lit(0)
		case isConst(fd):
			cond = jen.Id("x").Dot("has").Op("&").Add(g.presenceBit(t, i)).Op("!=").Lit(0)
		default:
			nz := g.nonZero(target, fd)
			cond = jen.Id("x").Dot("has").Op("&").Add(g.presenceBit(t, i)).Op("!=").Lit(0).Op("||").Add(nz)
			if g.pointerField(fd) || isNilable(g.named(fd.Type), fd.Type) {
				// A present value that is nil still encodes as JSON.
				cond = nz
				if !g.pointerField(fd) {
					cond = jen.Add(nz).Op("||").Id("x").Dot("has").Op("&").Add(g.presenceBit(t, i)).Op("!=").Lit(0)
				}
			}
		}
		body = append(body, jen.If(cond).Block(append([]jen.Code{key}, value...)...))
	}
	if t.Extra != nil {
		body = append(body, jen.List(jen.Id("dst"), jen.Id("_")).Op("=").Id("appendExtra").Call(jen.Id("dst"), jen.Id("x").Dot("Extra"), jen.False()))
	}
	body = append(body,
		jen.If(jen.Len(jen.Id("dst")).Op("==").Id("start")).Block(jen.Return(jen.Append(jen.Id("dst"), jen.Lit("{}").Op("...")), jen.Nil())),
		jen.Id("dst").Index(jen.Id("start")).Op("=").LitRune('{'),
		jen.Return(jen.Append(jen.Id("dst"), jen.LitRune('}')), jen.Nil()),
	)
	head := []jen.Code{jen.Id("start").Op(":=").Len(jen.Id("dst"))}
	if needErr {
		head = append(head, jen.Var().Err().Error())
	}
	return append(head, body...)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// isNilable reports whether the Go type of t has nil as its absent value.
func isNilable(n, t *model.Type) bool {
	switch n.Kind {
	case model.Array, model.Map, model.Raw:
		return true
	case model.Primitive:
		return n.Nullable
	}
	return false
}

// nonZero is the condition under which an optional field built in Go is
// written: its value is not the Go zero of its type.
func (g *generator) nonZero(target *jen.Statement, fd *model.Field) jen.Code {
	return g.zeroTest(target, fd, false)
}

// zero is the negation of nonZero, written directly: the field holds the Go
// zero of its type.
func (g *generator) zero(target *jen.Statement, fd *model.Field) jen.Code {
	return g.zeroTest(target, fd, true)
}

// zeroTest compares target with the zero of its type: == when isZero,
// != otherwise.
func (g *generator) zeroTest(target *jen.Statement, fd *model.Field, isZero bool) jen.Code {
	op := "!="
	if isZero {
		op = "=="
	}
	if g.pointerField(fd) {
		return jen.Add(target.Clone()).Op(op).Nil()
	}
	n := g.named(fd.Type)
	switch n.Kind {
	case model.Array, model.Map, model.Raw:
		return jen.Add(target.Clone()).Op(op).Nil()
	case model.Enum:
		return jen.Add(target.Clone()).Op(op).Lit("")
	case model.Union:
		if g.scalarUnion(n) {
			if isZero {
				return jen.Add(target.Clone()).Dot("IsZero").Call()
			}
			return jen.Op("!").Add(target.Clone()).Dot("IsZero").Call()
		}
		return jen.Add(target.Clone()).Dot("Value").Op(op).Nil()
	case model.Primitive:
		if n.Nullable {
			return jen.Add(target.Clone()).Op(op).Nil()
		}
		switch n.Prim {
		case model.String:
			return jen.Add(target.Clone()).Op(op).Lit("")
		case model.Boolean:
			if isZero {
				return jen.Op("!").Add(target.Clone())
			}
			return target.Clone()
		}
		return jen.Add(target.Clone()).Op(op).Lit(0)
	case model.Struct:
		return jen.Lit(!isZero)
	}
	panic(fmt.Sprintf("gen: no zero test for %s", n.Kind))
}

// appendPrim appends v, a p, to dst. assignsErr reports whether the code
// assigns err, which its caller then declares.
func (g *generator) appendPrim(v *jen.Statement, p model.Prim, wrap func(jen.Code) jen.Code) (code []jen.Code, assignsErr bool) {
	return g.appendValue(v, &model.Type{Kind: model.Primitive, Prim: p}, wrap, 0)
}

// appendValue appends v, of type t, to dst; a nil slice or map is written
// as empty. assignsErr reports whether the code assigns err, which its
// caller then declares.
func (g *generator) appendValue(v *jen.Statement, t *model.Type, wrap func(jen.Code) jen.Code, depth int) (code []jen.Code, assignsErr bool) {
	cv := g.codecType(t, nil)
	return protocolCodec.encode(v, cv, wrap, depth), encodeAssignsErr(cv)
}
