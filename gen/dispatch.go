package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// dispatch renders the typed handler interfaces and their dispatchers, the
// typed callers, and paginated list iterators. What they share is support
// code (support/calls.go).
//
// An extension's package (generated/tasks) gets the same file over its own
// methods alone, on purpose: its ServerHandler and Client are the typed
// handler and caller of the extension's requests, which the core package
// does not have. A server answers with the extension's dispatcher first and
// the core's when it says -32601 (a method it does not define), and a
// client's Caller, the same interface in both packages, serves both
// Clients. The version a dispatcher takes is the extension's own (its
// schema's), not the core protocol's.
func (g *generator) dispatch() *jen.File {
	f := g.newFile()
	g.handler(f, "ServerHandler", "DispatchServerRequest", model.ClientToServer,
		"ServerHandler answers the requests a client sends to a server.",
		"a server")
	g.handler(f, "ClientHandler", "DispatchClientRequest", model.ServerToClient,
		"ClientHandler answers the requests a server sends to a client.",
		"a client")
	g.caller(f, "Client", model.ClientToServer, "Client calls the methods a server offers, with typed params and results.")
	g.caller(f, "ClientAPI", model.ServerToClient, "ClientAPI calls the methods a client offers to its server (sampling,\nelicitation, roots, ...), with typed params and results.")

	return f
}

// opName is the Go name of a method's operation: its message type without
// the Request suffix.
func opName(me *model.Method) string {
	return strings.TrimSuffix(me.Message, "Request")
}

func (g *generator) requests(dir model.Direction) []*model.Method {
	var out []*model.Method
	for _, me := range g.m.Methods {
		if !me.Notification && me.Direction&dir != 0 && me.Result != "" {
			out = append(out, me)
		}
	}
	return out
}

func (g *generator) paramsType(me *model.Method) jen.Code {
	if me.Params == "" {
		return jen.Op("*").Id("Result")
	}
	return jen.Op("*").Id(me.Params)
}

func (g *generator) handler(f *jen.File, iface, dispatch string, dir model.Direction, doc, who string) {
	if len(g.requests(dir)) == 0 {
		return
	}
	var methods []jen.Code
	var cases []jen.Code
	for _, me := range g.requests(dir) {
		op := opName(me)
		note := me.Name
		if since := g.m.Since(me.Versions); since != "" {
			note += "; " + strings.TrimSuffix(since, ".")
		}
		methods = append(methods, jen.Comment(op+" answers "+note+".").Line().
			Id(op).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Add(g.paramsType(me))).Params(jen.Op("*").Id(me.Result), jen.Error()))
		ptype := me.Params
		if ptype == "" {
			ptype = "Result"
		}
		cases = append(cases, jen.Case(jen.Lit(me.Name)).Block(
			jen.If(jen.Id("vb").Op("&").Add(g.versionMask(me.Versions)).Op("==").Lit(0)).Block(jen.Break()),
			jen.Id("p").Op(":=").New(jen.Id(ptype)),
			jen.If(jen.Err().Op(":=").Id("decodeParams").Call(jen.Id("params"), jen.Id("p"), jen.Id("vb"), jen.Id("vb").Op("&").Add(g.versionMask(me.ParamsRequired)).Op("!=").Lit(0)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("h").Dot(op).Call(jen.Id("ctx"), jen.Id("p")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "ErrInternal").Call(jen.Lit(op+" returned no result")))),
			jen.Return(jen.Id("r"), jen.Nil()),
		))
	}
	f.Add(lineComments(doc + "\nEach method receives params decoded and validated for the protocol\nversion in use; an error it returns that is a *jsonrpc.Error is sent as\nit is, any other error as an internal error."))
	f.Type().Id(iface).Interface(methods...)
	f.Add(lineComments(dispatch + " decodes params for method, validates them for\nprotocol version v, calls the matching method of h and returns its result.\nA method that v lacks is -32601; params that do not decode or validate\nare -32602 with the JSON path of the problem."))
	f.Func().Id(dispatch).Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("h").Id(iface), jen.Id("v").Id("ProtocolVersion"),
		jen.Id("method").String(), jen.Id("params").Index().Byte(),
	).Params(jen.Id("Message"), jen.Error()).Block(
		jen.List(jen.Id("vb"), jen.Err()).Op(":=").Id("v").Dot("bit").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "ErrInternal").Call(jen.Err().Dot("Error").Call()))),
		jen.Switch(jen.Id("method")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "ErrMethodNotFound").Call(jen.Id("method"))),
	)
}

func (g *generator) caller(f *jen.File, name string, dir model.Direction, doc string) {
	if len(g.requests(dir)) == 0 {
		return
	}
	f.Add(lineComments(doc))
	f.Type().Id(name).Struct(jen.Id("Caller").Id("Caller"))
	for _, me := range g.requests(dir) {
		op := opName(me)
		ptype := me.Params
		if ptype == "" {
			ptype = "Result"
		}
		f.Comment(op + " sends " + me.Name + "; params may be nil when the method's params are optional.")
		f.Func().Params(jen.Id("c").Op("*").Id(name)).Id(op).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Op("*").Id(ptype)).Params(jen.Op("*").Id(me.Result), jen.Error()).Block(
			jen.Var().Id("p").Id("Message"),
			jen.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id("p").Op("=").Id("params")),
			jen.Id("r").Op(":=").New(jen.Id(me.Result)),
			jen.If(jen.Err().Op(":=").Id("call").Call(jen.Id("ctx"), jen.Id("c").Dot("Caller"), jen.Lit(me.Name), jen.Id("p"), jen.Id("r")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("r"), jen.Nil()),
		)
		g.pager(f, name, me)
	}
}

// pager renders an iterator over every item of a paginated list method:
// params with a cursor, a result with nextCursor and one list.
func (g *generator) pager(f *jen.File, name string, me *model.Method) {
	params := g.m.Lookup(me.Params)
	result := g.m.Lookup(me.Result)
	if params == nil || result == nil || fieldOf(params, "cursor") == nil || fieldOf(result, "nextCursor") == nil {
		return
	}
	var list *model.Field
	for _, fd := range result.Fields {
		if fd.Type.Kind == model.Array && fd.Type.Elem.Kind == model.Ref {
			if list != nil {
				return
			}
			list = fd
		}
	}
	if list == nil {
		return
	}
	elem := list.Type.Elem.Target
	cursor := g.goType(fieldOf(params, "cursor").Type)
	fn := "All" + list.GoName
	f.Add(lineComments(fn + " iterates over every item of " + me.Name + ", requesting pages\nuntil the server returns no nextCursor. It stops with an error when a\nrequest fails or the server repeats a cursor."))
	f.Func().Params(jen.Id("c").Op("*").Id(name)).Id(fn).Params(jen.Id("ctx").Qual("context", "Context")).Qual("iter", "Seq2").Types(jen.Id(elem), jen.Error()).Block(
		jen.Return(jen.Func().Params(jen.Id("yield").Func().Params(jen.Id(elem), jen.Error()).Bool()).Block(
			jen.Id("seen").Op(":=").Map(cursor.Clone()).Bool().Values(),
			jen.Var().Id("cursor").Add(cursor.Clone()),
			jen.For().Block(
				jen.List(jen.Id("page"), jen.Err()).Op(":=").Id("c").Dot(opName(me)).Call(jen.Id("ctx"), jen.Op("&").Id(me.Params).Values(jen.Dict{jen.Id("Cursor"): jen.Id("cursor")})),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("yield").Call(jen.Id(elem).Values(), jen.Err()), jen.Return()),
				jen.For(jen.List(jen.Id("_"), jen.Id("item")).Op(":=").Range().Id("page").Dot(list.GoName)).Block(
					jen.If(jen.Op("!").Id("yield").Call(jen.Id("item"), jen.Nil())).Block(jen.Return())),
				jen.If(jen.Id("page").Dot("NextCursor").Op("==").Lit("")).Block(jen.Return()),
				jen.If(jen.Id("seen").Index(jen.Id("page").Dot("NextCursor"))).Block(
					jen.Id("yield").Call(jen.Id(elem).Values(), jen.Qual("fmt", "Errorf").Call(jen.Lit(me.Name+": the server repeated cursor %q"), jen.Id("page").Dot("NextCursor"))),
					jen.Return()),
				jen.Id("seen").Index(jen.Id("page").Dot("NextCursor")).Op("=").True(),
				jen.Id("cursor").Op("=").Id("page").Dot("NextCursor"),
			),
		)),
	)
}
