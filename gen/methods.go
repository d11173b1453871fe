package gen

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// methods renders the versions, the Message interface, method names,
// error codes and the method table.
func (g *generator) methods() *jen.File {
	f := g.newFile()
	m := g.m

	f.Comment("ProtocolVersion names a version of the MCP specification.")
	f.Type().Id("ProtocolVersion").String()
	var consts, bits []jen.Code
	var list []jen.Code
	var cases []jen.Code
	var legacy, modern []jen.Code
	for i, v := range m.Versions {
		id := g.versionIdents[i]
		era := "the modern era: stateless, with protocol details in each request's _meta"
		if g.hasInitialize(model.Version(i)) {
			era = "the legacy era: sessions begin with initialize"
			legacy = append(legacy, jen.Id(id))
		} else {
			modern = append(modern, jen.Id(id))
		}
		consts = append(consts, jen.Comment(id+" is MCP "+v+", of "+era+".").Line().Id(id).Id("ProtocolVersion").Op("=").Lit(v))
		bits = append(bits, jen.Id("bit"+id).Id("VersionSet").Op("=").Lit(1).Op("<<").Lit(i))
		list = append(list, jen.Id(id))
		cases = append(cases, jen.Case(jen.Id(id)).Block(jen.Return(jen.Id("bit"+id), jen.Nil())))
	}
	f.Comment("The protocol versions this package knows, oldest first.")
	f.Const().Defs(consts...)
	f.Const().Defs(append(bits, jen.Id("allVersions").Id("VersionSet").Op("=").Lit(int(m.All())))...)
	f.Comment("LatestVersion is the newest protocol version this package knows.")
	f.Const().Id("LatestVersion").Op("=").Id(g.versionIdents[len(m.Versions)-1])
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

	f.Comment("Era is a family of protocol versions that share a lifecycle.")
	f.Type().Id("Era").Int()
	f.Const().Defs(
		jen.Comment("EraLegacy versions begin each session with initialize.").Line().Id("EraLegacy").Id("Era").Op("=").Iota().Op("+").Lit(1),
		jen.Comment("EraModern versions are stateless: each request carries its protocol version and capabilities in _meta.").Line().Id("EraModern"),
	)
	eraBody := []jen.Code{jen.Return(jen.Id("EraModern"))}
	if len(legacy) > 0 {
		eraBody = append([]jen.Code{jen.Switch(jen.Id("v")).Block(jen.Case(legacy...).Block(jen.Return(jen.Id("EraLegacy"))))}, eraBody...)
	}
	f.Comment("Era returns the era of v; versions newer than this package are taken to be modern.")
	f.Func().Params(jen.Id("v").Id("ProtocolVersion")).Id("Era").Params().Id("Era").Block(eraBody...)
	f.Comment("Versions lists the protocol versions of era e this package knows, newest first:\nthe order of preference when two sides negotiate.")
	f.Func().Params(jen.Id("e").Id("Era")).Id("Versions").Params().Index().Id("ProtocolVersion").Block(
		jen.Switch(jen.Id("e")).Block(
			jen.Case(jen.Id("EraLegacy")).Block(jen.Return(eraList(legacy))),
			jen.Case(jen.Id("EraModern")).Block(jen.Return(eraList(modern))),
		),
		jen.Return(jen.Nil()))

	f.Comment("VersionSet is a set of the protocol versions this package knows.")
	f.Type().Id("VersionSet").Uint32()
	f.Comment("Has reports whether v is in the set.")
	f.Func().Params(jen.Id("s").Id("VersionSet")).Id("Has").Params(jen.Id("v").Id("ProtocolVersion")).Bool().Block(
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
		jen.Return(jen.Err().Op("==").Nil().Op("&&").Id("s").Op("&").Id("b").Op("!=").Lit(0)))

	f.Comment("Message is implemented by a pointer to every type of this package.")
	f.Type().Id("Message").Interface(
		jen.Qual(jsonPkg, "Marshaler"),
		jen.Comment("Validate checks the value against the newest version that defines its type."),
		jen.Id("Validate").Params().Error(),
		jen.Comment("ValidateVersion checks the value against the rules of version v."),
		jen.Id("ValidateVersion").Params(jen.Id("v").Id("ProtocolVersion")).Error(),
		jen.Id("appendJSON").Params(jen.Index().Byte()).Params(jen.Index().Byte(), jen.Error()),
		jen.Id("validate").Params(jen.Id("VersionSet")).Error(),
		jen.Id("decode").Params(jen.Op("*").Qual(jsonrpcPkg, "Scanner")).Error(),
	)
	f.Comment("AppendJSON appends the JSON encoding of m to dst and returns the extended\nbuffer. It is MarshalJSON for callers that encode often: it writes into their\nbuffer, and copies nothing of m.")
	f.Func().Id("AppendJSON").Params(jen.Id("dst").Index().Byte(), jen.Id("m").Id("Message")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("m").Dot("appendJSON").Call(jen.Id("dst"))),
	)

	g.errorCodes(f)
	g.methodTable(f)

	var byName []jen.Code
	for _, t := range g.m.Types {
		byName = append(byName, jen.Case(jen.Lit(t.Name)).Block(jen.Return(jen.New(jen.Id(t.Name)))))
	}
	f.Comment("newMessage returns a new value of the type named name, nil when there is none.")
	f.Func().Id("newMessage").Params(jen.Id("name").String()).Id("Message").Block(
		jen.Switch(jen.Id("name")).Block(byName...),
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

// errorCodes renders a constant per error type whose code the schema fixes.
func (g *generator) errorCodes(f *jen.File) {
	var defs []jen.Code
	seen := map[string]bool{}
	for _, t := range g.m.Types {
		if t.Kind != model.Struct || t.Synthetic || !strings.HasSuffix(t.Name, "Error") {
			continue
		}
		code := constField(t, "code")
		if code == "" {
			if ef := fieldOf(t, "error"); ef != nil {
				if et := g.named(ef.Type); et.Kind == model.Struct {
					code = constField(et, "code")
				}
			}
		}
		if code == "" {
			continue
		}
		name := "Code" + strings.TrimSuffix(t.Name, "Error")
		if seen[name] || g.m.Lookup(name) != nil {
			continue
		}
		seen[name] = true
		defs = append(defs, jen.Comment(name+" is the JSON-RPC error code of "+t.Name+".").Line().Id(name).Op("=").Id(code))
	}
	if len(defs) > 0 {
		f.Comment("Error codes fixed by the schema.")
		f.Const().Defs(defs...)
	}
}

func fieldOf(t *model.Type, json string) *model.Field {
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

func constField(t *model.Type, json string) string {
	if f := fieldOf(t, json); f != nil && f.Type.Kind == model.Primitive && f.Type.Prim != model.String {
		return f.Type.Const
	}
	return ""
}

// methodIdent names a method's constant after its message type.
func methodIdent(me *model.Method) string {
	return "Method" + strings.TrimSuffix(me.Message, "Request")
}

func (g *generator) methodTable(f *jen.File) {
	var consts []jen.Code
	for _, me := range g.m.Methods {
		consts = append(consts, jen.Comment(methodIdent(me)+" is the method of "+me.Message+".").Line().Id(methodIdent(me)).Op("=").Lit(me.Name))
	}
	f.Comment("Method names.")
	f.Const().Defs(consts...)

	f.Comment("Direction says which side sends a method.")
	f.Type().Id("Direction").Uint8()
	f.Const().Defs(
		jen.Comment("ClientToServer methods are sent by clients.").Line().Id("ClientToServer").Id("Direction").Op("=").Lit(1).Op("<<").Iota(),
		jen.Comment("ServerToClient methods are sent by servers.").Line().Id("ServerToClient"),
		jen.Comment("BothDirections methods are sent by either side.").Line().Id("BothDirections").Op("=").Id("ClientToServer").Op("|").Id("ServerToClient"),
	)
	f.Comment("MethodInfo describes one method: its message types, direction and versions.")
	f.Type().Id("MethodInfo").Struct(
		jen.Id("Name").String(),
		jen.Comment("Notification is true for notifications, which have no result.").Line().Id("Notification").Bool(),
		jen.Id("Direction").Id("Direction"),
		jen.Comment("Versions are the protocol versions that have the method.").Line().Id("Versions").Id("VersionSet"),
		lineComments("Message, Params and Result name the Go types of the request or\nnotification, its params and its result (\"\" when there is none).").Line().Id("Message").String(),
		jen.Id("Params").String(),
		jen.Id("Result").String(),
		jen.Id("newParams").Func().Params().Id("Message"),
		jen.Id("newResult").Func().Params().Id("Message"),
	)
	f.Comment("NewParams returns a new value of the method's params type, or nil when it has none.")
	f.Func().Params(jen.Id("m").Op("*").Id("MethodInfo")).Id("NewParams").Params().Id("Message").Block(
		jen.If(jen.Id("m").Dot("newParams").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("m").Dot("newParams").Call()))
	f.Comment("NewResult returns a new value of the method's result type, or nil for a notification.")
	f.Func().Params(jen.Id("m").Op("*").Id("MethodInfo")).Id("NewResult").Params().Id("Message").Block(
		jen.If(jen.Id("m").Dot("newResult").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("m").Dot("newResult").Call()))

	var rows []jen.Code
	var lookup []jen.Code
	for i, me := range g.m.Methods {
		dir := map[model.Direction]string{model.ClientToServer: "ClientToServer", model.ServerToClient: "ServerToClient", model.Both: "BothDirections"}[me.Direction]
		d := jen.Dict{
			jen.Id("Name"):      jen.Id(methodIdent(me)),
			jen.Id("Direction"): jen.Id(dir),
			jen.Id("Versions"):  g.versionMask(me.Versions),
			jen.Id("Message"):   jen.Lit(me.Message),
		}
		if me.Notification {
			d[jen.Id("Notification")] = jen.True()
		}
		if me.Params != "" {
			d[jen.Id("Params")] = jen.Lit(me.Params)
			d[jen.Id("newParams")] = jen.Func().Params().Id("Message").Block(jen.Return(jen.New(jen.Id(me.Params))))
		}
		if me.Result != "" {
			d[jen.Id("Result")] = jen.Lit(me.Result)
			d[jen.Id("newResult")] = jen.Func().Params().Id("Message").Block(jen.Return(jen.New(jen.Id(me.Result))))
		}
		rows = append(rows, jen.Values(d))
		lookup = append(lookup, jen.Case(jen.Id(methodIdent(me))).Block(jen.Return(jen.Op("&").Id("methods").Index(jen.Lit(i)), jen.True())))
	}
	f.Var().Id("methods").Op("=").Index(jen.Op("...")).Id("MethodInfo").Values(rows...)
	f.Comment("Methods returns the method table, sorted by name.")
	f.Func().Id("Methods").Params().Index().Id("MethodInfo").Block(
		jen.Return(jen.Append(jen.Index().Id("MethodInfo").Values(), jen.Id("methods").Index(jen.Empty(), jen.Empty()).Op("..."))))
	f.Comment("LookupMethod returns the table entry for a method name.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(jen.Op("*").Id("MethodInfo"), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(lookup...),
		jen.Return(jen.Nil(), jen.False()))
	f.Add(lineComments("DecodeResult decodes the result of a request for method from data,\nas the method table says: the request decides the type, never the data."))
	f.Func().Id("DecodeResult").Params(jen.Id("method").String(), jen.Id("data").Index().Byte()).Params(jen.Id("Message"), jen.Error()).Block(
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("LookupMethod").Call(jen.Id("method")),
		jen.If(jen.Op("!").Id("ok").Op("||").Id("m").Dot("newResult").Op("==").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%q is not a request method"), jen.Id("method")))),
		jen.Id("r").Op(":=").Id("m").Dot("newResult").Call(),
		jen.If(jen.Err().Op(":=").Id("decodeWhole").Call(jen.Id("data"), jen.Id("r").Dot("decode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("r"), jen.Nil()))
}
