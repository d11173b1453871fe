package gen

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// methods renders the method names and the method table, sorted by name.
// The table's types are support code (support/methodinfo.go).
func (g *generator) methods() *jen.File {
	f := g.newFile()
	var consts []jen.Code
	for _, me := range g.m.Methods {
		consts = append(consts, jen.Comment(g.names.method[me]+" is the method of "+me.Message+".").Line().Id(g.names.method[me]).Op("=").Lit(me.Name))
	}
	if len(consts) > 0 {
		f.Comment("Method names.")
		f.Const().Defs(consts...)
	}

	sorted := slices.Clone(g.m.Methods)
	slices.SortFunc(sorted, func(a, b *model.Method) int { return strings.Compare(a.Name, b.Name) })
	dirs := map[model.Direction]string{model.ClientToServer: "ClientToServer", model.ServerToClient: "ServerToClient", model.Both: "BothDirections"}
	var rows []jen.Code
	for _, me := range sorted {
		d := jen.Dict{
			jen.Id("Name"):      jen.Id(g.names.method[me]),
			jen.Id("Direction"): jen.Id(dirs[me.Direction]),
			jen.Id("Versions"):  g.versionMask(me.Versions),
			jen.Id("Message"):   jen.Lit(me.Message),
		}
		if me.Notification {
			d[jen.Id("Notification")] = jen.True()
		}
		if me.Params != "" {
			d[jen.Id("Params")] = jen.Lit(me.Params)
			d[jen.Id("newParams")] = jen.Id("newOf").Index(jen.Id(me.Params))
		}
		if me.Result != "" {
			d[jen.Id("Result")] = jen.Lit(me.Result)
			d[jen.Id("newResult")] = jen.Id("newOf").Index(jen.Id(me.Result))
		}
		rows = append(rows, jen.Values(d))
	}
	f.Comment("methods is the method table, sorted by name for findMethod.")
	f.Var().Id("methods").Op("=").Index(jen.Op("...")).Id("MethodInfo").Values(rows...)
	f.Comment("Methods returns the method table, sorted by name.")
	f.Func().Id("Methods").Params().Index().Id("MethodInfo").Block(
		jen.Return(jen.Append(jen.Index().Id("MethodInfo").Values(), jen.Id("methods").Index(jen.Empty(), jen.Empty()).Op("..."))))
	f.Comment("LookupMethod returns the table entry for a method name.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(jen.Op("*").Id("MethodInfo"), jen.Bool()).Block(
		jen.Return(jen.Id("findMethod").Call(jen.Id("methods").Index(jen.Empty(), jen.Empty()), jen.Id("name"))))
	f.Add(lineComments("DecodeResult decodes the result of a request for method from data,\nas the method table says: the request decides the type, never the data."))
	f.Func().Id("DecodeResult").Params(jen.Id("method").String(), jen.Id("data").Index().Byte()).Params(jen.Id("Message"), jen.Error()).Block(
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("LookupMethod").Call(jen.Id("method")),
		jen.If(jen.Op("!").Id("ok").Op("||").Id("m").Dot("newResult").Op("==").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%q is not a request method"), jen.Id("method")))),
		jen.Id("r").Op(":=").Id("m").Dot("newResult").Call(),
		jen.If(jen.Err().Op(":=").Id("decodeWhole").Call(jen.Id("data"), jen.Id("r").Dot("decode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("r"), jen.Nil()))
	return f
}

// messages renders the table of the package's types by name, which the
// package's tests use to make a value of a type the schema names.
func (g *generator) messages() *jen.File {
	f := g.newFile()
	names := make([]string, 0, len(g.m.Types))
	for _, t := range g.m.Types {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	var rows []jen.Code
	for _, name := range names {
		rows = append(rows, jen.Line().Values(jen.Lit(name), jen.Id("newOf").Index(jen.Id(name))))
	}
	rows = append(rows, jen.Line()) // one row a line, and a closing brace of its own
	f.Comment("messageTypes lists every type of the package, sorted by name for newMessage.")
	f.Var().Id("messageTypes").Op("=").Index(jen.Op("...")).Id("messageType").Values(rows...)
	f.Comment("newMessage returns a new value of the type named name, nil when there is none.")
	f.Func().Id("newMessage").Params(jen.Id("name").String()).Id("Message").Block(
		jen.List(jen.Id("i"), jen.Id("ok")).Op(":=").Qual("slices", "BinarySearchFunc").Call(
			jen.Id("messageTypes").Index(jen.Empty(), jen.Empty()), jen.Id("name"),
			jen.Func().Params(jen.Id("t").Id("messageType"), jen.Id("name").String()).Int().Block(
				jen.Return(jen.Qual("strings", "Compare").Call(jen.Id("t").Dot("name"), jen.Id("name"))))),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("messageTypes").Index(jen.Id("i")).Dot("new").Call()))
	return f
}
