package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Prompts and resources: their definitions are Go composite literals of
// the mcp types, as tools' are, and each has a named handler adapting the
// runtime's PromptHandler, ResourceHandler or TemplateHandler to the
// user's function, which Register adds.

func promptOutType(p *model.Prompt) jen.Code {
	if p.Result {
		return jen.Op("*").Qual(mcpPkg, "GetPromptResult")
	}
	return jen.Index().Qual(mcpPkg, "PromptMessage")
}

func resourceOutType(r *model.Resource) jen.Code {
	switch r.Output {
	case model.ResourceResult:
		return jen.Op("*").Qual(mcpPkg, "ReadResourceResult")
	case model.ResourceText:
		return jen.String()
	case model.ResourceBlob:
		return jen.Index().Byte()
	}
	return jen.Index().Qual(mcpPkg, "ReadResourceResultContentsItem")
}

// handlerCall calls the user's function or method.
func handlerCall(recv, name string, args ...jen.Code) *jen.Statement {
	call := jen.Id(name)
	if recv != "" {
		call = jen.Id("r").Dot(name)
	}
	return call.Call(args...)
}

// dict adds key: value to d when value is not empty.
func dictString(d jen.Dict, key, value string) {
	if value != "" {
		d[jen.Id(key)] = jen.Lit(value)
	}
}

// fields are a composite literal's fields in the order they are added,
// written one a line: definitions read Name first, as the spec lists it.
type fields []jen.Code

func (l *fields) add(key string, value jen.Code) {
	*l = append(*l, jen.Line().Id(key).Op(":").Add(value))
}

// addString adds key: value when value is not empty.
func (l *fields) addString(key, value string) {
	if value != "" {
		l.add(key, jen.Lit(value))
	}
}

// of writes the literal of typ, a type of the mcp package.
func (l fields) of(typ string) jen.Code {
	return jen.Qual(mcpPkg, typ).Values(append(l[:len(l):len(l)], jen.Line())...)
}

// addPrompt is Register's call that adds one prompt.
func (g *handlerGen) addPrompt(p *model.Prompt) jen.Code {
	handler := bound(p.Recv, g.names.prompt(promptGet, p), "GetPromptResult", jen.Op("*").Qual(mcpPkg, "GetPromptRequestParams"))
	args := []jen.Code{jen.Id(g.names.prompt(promptDef, p)), handler}
	if len(p.Scopes) > 0 {
		args = append(args, jen.Qual(serverPkg, "PromptScopes").Call(scopeLits(p.Scopes)...))
	}
	return jen.Id("s").Dot("AddPrompt").Call(args...)
}

// prompt writes one prompt's definition, handler and argument reader.
func (g *handlerGen) prompt(p *model.Prompt) {
	var def fields
	def.add("Name", jen.Lit(p.Name))
	def.addString("Title", p.Title)
	def.addString("Description", p.Description)
	if len(p.Args) > 0 {
		var args []jen.Code
		for _, a := range p.Args {
			d := jen.Dict{jen.Id("Name"): jen.Lit(a.Name)}
			dictString(d, "Description", a.Description)
			if a.Required {
				d[jen.Id("Required")] = jen.True()
			}
			args = append(args, jen.Values(d))
		}
		def.add("Arguments", jen.Index().Qual(mcpPkg, "PromptArgument").Values(args...))
	}
	name := g.names.prompt(promptDef, p)
	g.f.Commentf("%s is the definition of prompt %s (%s).", name, p.Name, p.Pos)
	g.f.Var().Id(name).Op("=").Add(def.of("Prompt"))
	g.f.Line()

	var body []jen.Code
	var callArgs = []jen.Code{jen.Id("ctx")}
	if p.Input != nil {
		body = append(body,
			jen.Var().Id("in").Add(g.goType(p.Input)),
			jen.If(jen.Err().Op(":=").Id(g.names.prompt(promptArgs, p)).Call(jen.Id("p").Dot("Arguments"), jen.Op("&").Id("in")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			))
		callArgs = append(callArgs, jen.Id("in"))
	} else {
		body = append(body, jen.If(jen.Len(jen.Id("p").Dot("Arguments")).Op(">").Lit(0)).Block(
			jen.Return(jen.Nil(), jen.Qual(jsonrpcPkg, "ErrInvalidParams").Call(jen.Lit("invalid params: arguments: prompt "+p.Name+" takes no arguments"))),
		))
	}
	body = append(body,
		jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(handlerCall(p.Recv, p.GoName, callArgs...)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	if p.Result {
		body = append(body,
			jen.If(jen.Id("out").Op("==").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("prompt "+p.Name+": "+p.GoName+" returned a nil result and no error"))),
			),
			jen.Return(jen.Id("out"), jen.Nil()))
	} else {
		body = append(body,
			jen.If(jen.Id("out").Op("==").Nil()).Block(jen.Id("out").Op("=").Index().Qual(mcpPkg, "PromptMessage").Values()),
			jen.Return(jen.Op("&").Qual(mcpPkg, "GetPromptResult").Values(jen.Dict{
				jen.Id("Description"): jen.Lit(p.Description),
				jen.Id("Messages"):    jen.Id("out"),
			}), jen.Nil()))
	}
	name = g.names.prompt(promptGet, p)
	g.f.Commentf("%s handles a get of prompt %s with %s (%s).", name, p.Name, goLabel(p.Recv, p.GoName), p.Pos)
	params := append([]jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}, recvParam(p.Recv)...)
	params = append(params, jen.Id("p").Op("*").Qual(mcpPkg, "GetPromptRequestParams"))
	g.f.Func().Id(name).Params(params...).Params(jen.Op("*").Qual(mcpPkg, "GetPromptResult"), jen.Error()).Block(body...)
	g.f.Line()
	g.promptReader(p)
}

// promptReader writes, for a prompt with input, the reader of its
// arguments: a missing required argument or an argument the prompt does
// not declare is an invalid-params error naming it.
func (g *handlerGen) promptReader(p *model.Prompt) {
	if p.Input == nil {
		return
	}
	var names []string
	for _, a := range p.Args {
		names = append(names, a.Name)
	}
	takes := "prompt " + p.Name + " takes no arguments"
	if len(names) > 0 {
		takes = "prompt " + p.Name + " takes " + strings.Join(names, ", ")
	}
	var body []jen.Code
	body = append(body, jen.Id("n").Op(":=").Lit(0))
	for _, a := range p.Args {
		target := jen.Id("x")
		for _, f := range a.GoPath {
			target = target.Dot(f)
		}
		var set []jen.Code
		if a.Value.Kind == model.ValPointer {
			set = append(set,
				jen.Id("p").Op(":=").Add(g.convert(a.Value.Elem, jen.Id("v"))),
				target.Clone().Op("=").Op("&").Id("p"))
		} else {
			set = append(set, target.Clone().Op("=").Add(g.convert(a.Value, jen.Id("v"))))
		}
		set = append(set, jen.Id("n").Op("++"))
		stmt := jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("args").Index(jen.Lit(a.Name)), jen.Id("ok")).Block(set...)
		if a.Required {
			stmt = stmt.Else().Block(jen.Return(jen.Qual(jsonrpcPkg, "ErrInvalidParams").Call(
				jen.Lit("invalid params: arguments." + a.Name + ": required (" + takes + ")"))))
		}
		body = append(body, stmt)
	}
	var known []jen.Code
	for _, n := range names {
		known = append(known, jen.Lit(n))
	}
	unknown := jen.Return(jen.Qual(jsonrpcPkg, "ErrInvalidParams").Call(
		jen.Lit("invalid params: arguments.").Op("+").Id("key").Op("+").Lit(": unknown argument (" + takes + ")")))
	var check jen.Code
	if len(known) > 0 {
		check = jen.For(jen.Id("_").Op(",").Id("key").Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id("args")))).Block(
			jen.Switch(jen.Id("key")).Block(
				jen.Case(known...),
				jen.Default().Block(unknown),
			),
		)
	} else {
		check = jen.For(jen.Id("_").Op(",").Id("key").Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(jen.Id("args")))).Block(unknown)
	}
	body = append(body, jen.If(jen.Id("n").Op("!=").Len(jen.Id("args"))).Block(check), jen.Return(jen.Nil()))
	name := g.names.prompt(promptArgs, p)
	g.f.Commentf("%s reads the arguments of prompt %s (%s) into x.", name, p.Name, p.Pos)
	g.f.Func().Id(name).Params(jen.Id("args").Map(jen.String()).String(), jen.Id("x").Op("*").Add(g.goType(p.Input))).Error().Block(body...)
	g.f.Line()
}

// addResource is Register's call that adds one resource or resource
// template.
func (g *handlerGen) addResource(r *model.Resource) jen.Code {
	params := []jen.Code{jen.Op("*").Qual(mcpPkg, "ReadResourceRequestParams")}
	add := "AddResource"
	if r.Template != "" {
		add = "AddResourceTemplate"
		params = append(params, jen.Map(jen.String()).String())
	}
	handler := bound(r.Recv, g.names.resource(resourceRead, r), "ReadResourceResult", params...)
	args := []jen.Code{jen.Id(g.names.resource(resourceDef, r)), handler}
	if len(r.Scopes) > 0 {
		// AddResourceTemplate takes ResourceOptions too.
		args = append(args, jen.Qual(serverPkg, "ResourceScopes").Call(scopeLits(r.Scopes)...))
	}
	return jen.Id("s").Dot(add).Call(args...)
}

// resource writes one resource's or template's definition and handler.
func (g *handlerGen) resource(r *model.Resource) {
	var def fields
	def.add("Name", jen.Lit(r.Name))
	def.addString("Title", r.Title)
	def.addString("Description", r.Description)
	params := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
	params = append(params, recvParam(r.Recv)...)
	params = append(params, jen.Id("p").Op("*").Qual(mcpPkg, "ReadResourceRequestParams"))
	var body []jen.Code
	callArgs := []jen.Code{jen.Id("ctx")}
	typ, what := "Resource", "resource"
	if r.Template != "" {
		typ, what = "ResourceTemplate", "resource template"
		def.add("URITemplate", jen.Lit(r.Template))
		params = append(params, jen.Id("vars").Map(jen.String()).String())
		body = append(body, jen.Var().Id("v").Add(g.goType(r.Vars)))
		for _, tv := range r.TemplateVars {
			target := jen.Id("v")
			for _, f := range tv.GoPath {
				target = target.Dot(f)
			}
			body = append(body, target.Op("=").Add(g.convert(tv.Value, jen.Id("vars").Index(jen.Lit(tv.Name)))))
		}
		callArgs = append(callArgs, jen.Id("v"))
	} else {
		def.add("URI", jen.Lit(r.URI))
	}
	def.addString("MIMEType", r.MIME)
	name := g.names.resource(resourceDef, r)
	g.f.Commentf("%s is the definition of %s %s (%s).", name, what, r.Name, r.Pos)
	g.f.Var().Id(name).Op("=").Add(def.of(typ))
	g.f.Line()

	body = append(body,
		jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(handlerCall(r.Recv, r.GoName, callArgs...)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	item := func(c jen.Code) jen.Code {
		return jen.Op("&").Qual(mcpPkg, "ReadResourceResult").Values(jen.Dict{
			jen.Id("Contents"): jen.Index().Qual(mcpPkg, "ReadResourceResultContentsItem").Values(jen.Values(jen.Dict{jen.Id("Value"): c})),
		})
	}
	contents := func(typ, field string, value jen.Code) jen.Code {
		d := jen.Dict{jen.Id("URI"): jen.Id("p").Dot("URI"), jen.Id(field): value}
		dictString(d, "MIMEType", r.MIME)
		return jen.Op("&").Qual(mcpPkg, typ).Values(d)
	}
	switch r.Output {
	case model.ResourceResult:
		body = append(body,
			jen.If(jen.Id("out").Op("==").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("resource "+r.Name+": "+r.GoName+" returned a nil result and no error"))),
			),
			jen.Return(jen.Id("out"), jen.Nil()))
	case model.ResourceText:
		body = append(body, jen.Return(item(contents("TextResourceContents", "Text", jen.Id("out"))), jen.Nil()))
	case model.ResourceBlob:
		body = append(body, jen.Return(item(contents("BlobResourceContents", "Blob", jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(jen.Id("out")))), jen.Nil()))
	default:
		body = append(body,
			jen.If(jen.Id("out").Op("==").Nil()).Block(jen.Id("out").Op("=").Index().Qual(mcpPkg, "ReadResourceResultContentsItem").Values()),
			jen.Return(jen.Op("&").Qual(mcpPkg, "ReadResourceResult").Values(jen.Dict{jen.Id("Contents"): jen.Id("out")}), jen.Nil()))
	}
	name = g.names.resource(resourceRead, r)
	g.f.Commentf("%s handles a read of %s %s with %s (%s).", name, what, r.Name, goLabel(r.Recv, r.GoName), r.Pos)
	g.f.Func().Id(name).Params(params...).Params(jen.Op("*").Qual(mcpPkg, "ReadResourceResult"), jen.Error()).Block(body...)
	g.f.Line()
}
