package gen

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// validate renders Validate, ValidateVersion and the version-aware
// validate method of every named type.
func (g *generator) validate() *jen.File {
	f := g.newFile()
	for _, t := range g.m.Types {
		if t.Kind == model.Alias {
			continue
		}
		newest := t.Versions.Newest()
		f.Comment("Validate checks x against the rules of " + g.names.version[newest] + ", the newest version that defines " + t.Name + ".")
		f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("Validate").Params().Error().Block(
			jen.Return(jen.Id("x").Dot("validate").Call(jen.Id(g.names.versionBit[newest]))))
		f.Comment("ValidateVersion checks x against the rules of protocol version v.")
		f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("ValidateVersion").Params(jen.Id("v").Id("ProtocolVersion")).Error().Block(
			jen.List(jen.Id("vb"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Return(jen.Id("x").Dot("validate").Call(jen.Id("vb"))))
		if g.hasAlternatives(t) {
			g.validateUnionAnyOf(f, t)
			continue
		}
		f.Func().Params(recv(t)).Id("validate").Params(jen.Id("vb").Id("VersionSet")).Error().Block(g.validateBody(t)...)
	}
	if g.anyAlternatives() {
		f.Add(lineComments("validAs reports whether raw, the JSON of a union's value, decodes as alt and\n" +
			"passes alt's rules for vb: whether the value is an instance of the union's\n" +
			"anyOf through a variant other than its own."))
		f.Func().Id("validAs").Params(jen.Id("raw").Index().Byte(), jen.Id("vb").Id("VersionSet"), jen.Id("alt").Id("Message")).Bool().Block(
			jen.Return(jen.Id("decodeSub").Call(jen.Id("raw"), jen.Id("alt").Dot("decode")).Op("==").Nil().Op("&&").
				Id("alt").Dot("validate").Call(jen.Id("vb")).Op("==").Nil()))
	}
	return f
}

// hasAlternatives reports whether validating union t may accept a value
// through a variant other than its own (see model.Pick.Alternatives).
func (g *generator) hasAlternatives(t *model.Type) bool {
	return t.Kind == model.Union && !g.scalarUnion(t) && t.Pick != nil && len(t.Pick.Alternatives) > 0
}

func (g *generator) anyAlternatives() bool {
	for _, t := range g.m.Types {
		if g.hasAlternatives(t) {
			return true
		}
	}
	return false
}

// validateUnionAnyOf renders the validation of a union whose value may be
// an instance of the schema's anyOf through another variant than its own:
// ValidateVariant and validateVariant check the held variant alone, and
// validate, when that fails, tries the value's JSON as each alternative.
func (g *generator) validateUnionAnyOf(f *jen.File, t *model.Type) {
	f.Add(lineComments("ValidateVariant checks the variant x holds against its own rules in\n" +
		"protocol version v. ValidateVersion and Validate follow the schema's anyOf:\n" +
		"they also accept a value that breaks its own variant's rules when its JSON\n" +
		"is valid as another variant. ValidateVariant does not, and reports what the\n" +
		"held variant lacks, such as a required property."))
	f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("ValidateVariant").Params(jen.Id("v").Id("ProtocolVersion")).Error().Block(
		jen.List(jen.Id("vb"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("x").Dot("validateVariant").Call(jen.Id("vb"))))
	f.Func().Params(recv(t)).Id("validateVariant").Params(jen.Id("vb").Id("VersionSet")).Error().Block(g.validateBody(t)...)
	body := []jen.Code{
		jen.Err().Op(":=").Id("x").Dot("validateVariant").Call(jen.Id("vb")),
		jen.If(jen.Err().Op("==").Nil().Op("||").Id("x").Dot("Value").Op("==").Nil()).Block(jen.Return(jen.Err())),
		jen.Comment("As the schema's anyOf, accept a value that is valid as another variant."),
		jen.List(jen.Id("raw"), jen.Id("encErr")).Op(":=").Id("x").Dot("Value").Dot("appendJSON").Call(jen.Nil()),
		jen.If(jen.Id("encErr").Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	for _, vi := range t.Pick.Alternatives {
		v := t.Variants[vi]
		n := g.named(v.Type)
		typ := jen.Id(n.Name)
		if n.Kind == model.Struct {
			typ = jen.Op("*").Id(n.Name)
		}
		cond := jen.Op("!").Id("held")
		if v.Versions&t.Versions != t.Versions {
			cond = cond.Op("&&").Id("vb").Op("&").Add(g.versionMask(v.Versions)).Op("!=").Lit(0)
		}
		cond = cond.Op("&&").Id("validAs").Call(jen.Id("raw"), jen.Id("vb"), jen.New(jen.Id(n.Name)))
		body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("held")).Op(":=").Id("x").Dot("Value").Assert(typ), cond).Block(jen.Return(jen.Nil())))
	}
	// A property every variant requires is the error to name when it is
	// missing: the value is an instance of none of them without it.
	var shared []jen.Code
	for _, k := range t.Pick.Shared {
		cond := jen.Op("!").Id("hasValueAt").Call(jen.Id("raw"), jen.Lit(k.Key))
		if k.Versions&t.Versions != t.Versions {
			cond = jen.Id("vb").Op("&").Add(g.versionMask(k.Versions)).Op("!=").Lit(0).Op("&&").Add(cond)
		}
		shared = append(shared, jen.If(cond).Block(jen.Return(atField(k.Key)(errCall("Required")))))
	}
	if len(shared) > 0 {
		comment := jen.Comment("No variant accepts a value without a property they all require.")
		if len(t.Pick.Groups) > 1 {
			body = append(body, comment, jen.If(jen.Id("kindOf").Call(jen.Id("raw")).Op("==").Qual(jsonrpcPkg, "KindObject")).Block(shared...))
		} else {
			body = append(append(body, comment), shared...)
		}
	}
	body = append(body, jen.Return(jen.Err()))
	f.Func().Params(recv(t)).Id("validate").Params(jen.Id("vb").Id("VersionSet")).Error().Block(body...)
}

func (g *generator) validateBody(t *model.Type) []jen.Code {
	var out []jen.Code
	switch t.Kind {
	case model.Struct:
		for i, fd := range t.Fields {
			out = append(out, g.validateField(t, i, fd)...)
		}
	case model.Union:
		if g.scalarUnion(t) {
			out = append(out, jen.If(jen.Id("x").Dot("kind").Op("==").Lit(0)).Block(jen.Return(errCall("Required"))))
			break
		}
		out = append(out, jen.If(jen.Id("x").Dot("Value").Op("==").Nil()).Block(jen.Return(errCall("Required"))))
		// A variant that some versions of the union lack is an error there.
		var cases []jen.Code
		for _, v := range t.Variants {
			if v.Versions&t.Versions == t.Versions {
				continue
			}
			n := g.named(v.Type)
			typ := jen.Id(n.Name)
			if n.Kind == model.Struct {
				typ = jen.Op("*").Id(n.Name)
			}
			cases = append(cases, jen.Case(typ).Block(
				jen.If(jen.Id("vb").Op("&").Add(g.versionMask(v.Versions)).Op("==").Lit(0)).Block(
					jen.Return(fieldErr(n.Name+" is not a "+t.Name+" in this protocol version")))))
		}
		if len(cases) > 0 {
			out = append(out, jen.Switch(jen.Id("x").Dot("Value").Assert(jen.Type())).Block(cases...))
		}
		out = append(out, jen.Return(jen.Id("x").Dot("Value").Dot("validate").Call(jen.Id("vb"))))
		return out
	case model.Enum:
		var always []jen.Code
		var names []string
		var cases []jen.Code
		for _, v := range t.Values {
			names = append(names, v.Value)
			if v.Versions&t.Versions == t.Versions {
				always = append(always, jen.Id(v.GoName))
				continue
			}
			// A value that some versions lack is valid only in the others.
			cases = append(cases, jen.Case(jen.Id(v.GoName)).Block(
				jen.If(jen.Id("vb").Op("&").Add(g.versionMask(v.Versions)).Op("!=").Lit(0)).Block(jen.Return(jen.Nil())),
				jen.Return(fieldErr(quoteJSON(v.Value)+" is not a value of "+t.Name+" in this protocol version"))))
		}
		if len(always) > 0 {
			cases = append([]jen.Code{jen.Case(always...).Block(jen.Return(jen.Nil()))}, cases...)
		}
		allowed, _ := json.Marshal(names)
		out = append(out,
			jen.Switch(jen.Id("x")).Block(cases...),
			jen.Return(errCall("Enum", jen.String().Parens(jen.Id("x")), jen.Lit(string(allowed)))))
		return out
	default:
		out = append(out, g.validateValue(jen.Id("x"), t, plainErr, 0)...)
	}
	return append(out, jen.Return(jen.Nil()))
}

func (g *generator) validateField(t *model.Type, i int, fd *model.Field) []jen.Code {
	wrap := atField(fd.JSON)
	target := jen.Id("x").Dot(fd.GoName)
	var out []jen.Code
	n := g.named(fd.Type)
	if fd.Required != 0 {
		absent := jen.Id("x").Dot("missing").Op("&").Add(g.presenceBit(t, i)).Op("!=").Lit(0)
		switch {
		case isConst(fd):
		case g.pointerField(fd):
			absent = jen.Add(absent).Op("||").Add(target.Clone()).Op("==").Nil()
		case n.Kind == model.Union && !g.scalarUnion(n):
			absent = jen.Add(absent).Op("||").Add(target.Clone()).Dot("Value").Op("==").Nil()
		case !g.emitAlways(t, fd):
			// Written only when set: a zero value built in Go is absent.
			absent = jen.Add(absent).Op("||").Id("x").Dot("has").Op("&").Add(g.presenceBit(t, i)).Op("==").Lit(0).Op("&&").Add(g.zero(target, fd))
		}
		// vb is always one version, so a property every version requires
		// needs no version test.
		cond := absent
		if fd.Required != g.m.All() {
			cond = jen.Parens(absent).Op("&&").Id("vb").Op("&").Add(g.versionMask(fd.Required)).Op("!=").Lit(0)
		}
		out = append(out, jen.If(cond).Block(jen.Return(wrap(errCall("Required")))))
	}
	if isConst(fd) {
		return out
	}
	checks := g.validateValue(target, fd.Type, wrap, 0)
	if n.Kind == model.Raw && n.RawKind == model.AnyValue && fd.ObjectIn != 0 {
		// Widened to any value by the merge; some versions want an object.
		checks = append(checks, jen.If(jen.Id("vb").Op("&").Add(g.versionMask(fd.ObjectIn)).Op("!=").Lit(0).Op("&&").
			Len(target.Clone()).Op(">").Lit(0).Op("&&").Op("!").Id("rawIsObject").Call(target.Clone())).Block(
			jen.Return(wrap(errCall("Type", jen.Lit("object"), jen.Id("kindOf").Call(target.Clone()))))))
	}
	if c := g.partialConst[fd]; c != "" {
		checks = append(checks, jen.If(jen.Add(target.Clone()).Op("!=").Lit(unquote(c))).Block(jen.Return(wrap(errCall("Const", jen.Lit(c))))))
	}
	if g.pointerField(fd) {
		checks = nil
		if check := g.codecType(fd.Type, nil).Check; check != nil {
			checks = []jen.Code{jen.If(jen.Add(target.Clone()).Op("!=").Nil()).Block(
				check(target.Clone(), func(err jen.Code) jen.Code { return jen.Return(wrap(err)) })...)}
		}
	}
	if len(checks) == 0 {
		return out
	}
	var present jen.Code
	switch {
	case g.emitAlways(t, fd):
		present = jen.Id("x").Dot("missing").Op("&").Add(g.presenceBit(t, i)).Op("==").Lit(0)
	case g.pointerField(fd):
		present = nil
	default:
		present = jen.Id("x").Dot("has").Op("&").Add(g.presenceBit(t, i)).Op("!=").Lit(0).Op("||").Add(g.nonZero(target, fd))
		if n.Kind == model.Union && !g.scalarUnion(n) {
			present = g.nonZero(target, fd)
		}
	}
	if fd.Versions&t.Versions != t.Versions {
		inVersion := jen.Id("vb").Op("&").Add(g.versionMask(fd.Versions)).Op("!=").Lit(0)
		if present == nil {
			present = inVersion
		} else {
			present = jen.Add(inVersion).Op("&&").Parens(present)
		}
	}
	if present == nil {
		return append(out, checks...)
	}
	return append(out, jen.If(present).Block(checks...))
}

// trivial reports whether values of t need no check beyond decoding.
func (g *generator) trivial(t *model.Type) bool {
	n := g.named(t)
	switch n.Kind {
	case model.Primitive:
		return n.Format == "" && n.Minimum == nil && n.Maximum == nil && n.ExclusiveMin == nil && n.ExclusiveMax == nil &&
			n.MinLength == nil && n.MaxLength == nil
	case model.Raw:
		return n.RawKind == model.AnyValue
	case model.Array, model.Map:
		return n.MinItems == nil && n.MaxItems == nil && g.trivial(n.Elem)
	}
	return false
}

func fmtLimit(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// validateValue checks v, of type t, that is present.
func (g *generator) validateValue(v *jen.Statement, t *model.Type, wrap func(jen.Code) jen.Code, depth int) []jen.Code {
	return protocolCodec.check(v, g.codecType(t, nil), wrap, depth)
}

func formatCheck(format string) string {
	switch strings.ToLower(format) {
	case "uri":
		return "isURI"
	case "uri-template":
		return "isURITemplate"
	case "byte":
		return "isByte"
	case "date-time":
		return "isDateTime"
	}
	return ""
}
