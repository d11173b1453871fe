package gen

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// versions renders the protocol versions the model knows, their bits in a
// VersionSet and their eras. The types they have are support code
// (support/versions.go).
func (g *generator) versions() *jen.File {
	f := g.newFile()
	m := g.m
	var consts, bits, list, cases []jen.Code
	var legacy, modern []jen.Code
	for i, v := range m.Versions {
		id := g.names.version[i]
		era := "the modern era: stateless, with protocol details in each request's _meta"
		if g.hasInitialize(model.Version(i)) {
			era = "the legacy era: sessions begin with initialize"
			legacy = append(legacy, jen.Id(id))
		} else {
			modern = append(modern, jen.Id(id))
		}
		consts = append(consts, jen.Comment(id+" is MCP "+v+", of "+era+".").Line().Id(id).Id("ProtocolVersion").Op("=").Lit(v))
		bits = append(bits, jen.Id(g.names.versionBit[i]).Id("VersionSet").Op("=").Lit(1).Op("<<").Lit(i))
		list = append(list, jen.Id(id))
		cases = append(cases, jen.Case(jen.Id(id)).Block(jen.Return(jen.Id(g.names.versionBit[i]), jen.Nil())))
	}
	f.Comment("The protocol versions this package knows, oldest first.")
	f.Const().Defs(consts...)
	f.Comment("The bits of the versions in a VersionSet, oldest first, and the set of them all.")
	f.Const().Defs(append(bits, jen.Id("allVersions").Id("VersionSet").Op("=").Lit(int(m.All())))...)
	f.Comment("LatestVersion is the newest protocol version this package knows.")
	f.Const().Id("LatestVersion").Op("=").Id(g.names.version[len(m.Versions)-1])
	f.Comment("SupportedVersions lists the protocol versions this package knows, oldest first.")
	f.Func().Id("SupportedVersions").Params().Index().Id("ProtocolVersion").Block(
		jen.Return(jen.Index().Id("ProtocolVersion").Values(list...)))
	f.Comment("bit returns the set holding v alone, or an error for a version this package does not know.")
	f.Func().Params(jen.Id("v").Id("ProtocolVersion")).Id("bit").Params().Params(jen.Id("VersionSet"), jen.Error()).Block(
		jen.Switch(jen.Id("v")).Block(cases...),
		jen.Return(jen.Lit(0), jen.Qual("fmt", "Errorf").Call(jen.Lit("unsupported protocol version %q"), jen.String().Parens(jen.Id("v")))))
	f.Comment("Supported reports whether this package knows v.")
	f.Func().Params(jen.Id("v").Id("ProtocolVersion")).Id("Supported").Params().Bool().Block(
		jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
		jen.Return(jen.Err().Op("==").Nil()))
	f.Comment("Has reports whether v is in the set.")
	f.Func().Params(jen.Id("s").Id("VersionSet")).Id("Has").Params(jen.Id("v").Id("ProtocolVersion")).Bool().Block(
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
		jen.Return(jen.Err().Op("==").Nil().Op("&&").Id("s").Op("&").Id("b").Op("!=").Lit(0)))

	eraBody := []jen.Code{jen.Return(jen.Id("EraModern"))}
	if len(legacy) > 0 {
		eraBody = append([]jen.Code{jen.Switch(jen.Id("v")).Block(jen.Case(legacy...).Block(jen.Return(jen.Id("EraLegacy"))))}, eraBody...)
	}
	f.Comment("Era returns the era of v; versions newer than this package are taken to be modern.")
	f.Func().Params(jen.Id("v").Id("ProtocolVersion")).Id("Era").Params().Id("Era").Block(eraBody...)
	f.Add(lineComments("Versions lists the protocol versions of era e this package knows, newest first:\nthe order of preference when two sides negotiate."))
	f.Func().Params(jen.Id("e").Id("Era")).Id("Versions").Params().Index().Id("ProtocolVersion").Block(
		jen.Switch(jen.Id("e")).Block(
			jen.Case(jen.Id("EraLegacy")).Block(jen.Return(eraList(legacy))),
			jen.Case(jen.Id("EraModern")).Block(jen.Return(eraList(modern))),
		),
		jen.Return(jen.Nil()))
	return f
}

// eraList is the literal of a Versions list, newest first, from the
// era's versions oldest first: nil when the era has none.
func eraList(ids []jen.Code) jen.Code {
	if len(ids) == 0 {
		return jen.Nil()
	}
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	return jen.Index().Id("ProtocolVersion").Values(newest...)
}

func (g *generator) hasInitialize(v model.Version) bool {
	for _, me := range g.m.Methods {
		if me.Name == "initialize" && me.Versions.Has(v) {
			return true
		}
	}
	return false
}
