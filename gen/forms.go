package gen

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// Elicitation forms: for each //mcp:form struct T the handler file holds
//
//	const mcpgenFormSchemaT = `{...}`            the requestedSchema
//	var mcpgenFormT = server.NewForm(...)        the server.Form[T]
//	func ElicitT(ctx, message, opts...)          asks it: server.ElicitForm
//	func mcpgenDecodeFormT(data, x *T) error     reads and checks an answer
//
// The decoder reads the struct with the same generated reader as a tool
// input of that type, so an answer gets the checks of the schema it was
// asked with. The asking function is the one name users call: ElicitT for
// an exported T, elicitT for an unexported one.

// Identifiers of a form: prefix + base.
const (
	formSchema = namePrefix + "FormSchema" // the requestedSchema, JSON
	formVar    = namePrefix + "Form"       // the server.Form[T]
	formDecode = namePrefix + "DecodeForm" // reads and checks an answer
)

var formIdents = []string{formSchema, formVar, formDecode}

// formOwners are the claimants of the names of h's forms: their
// identifiers, and their asking functions, which cannot move.
func formOwners(h *model.Handlers) []*owner {
	var owners []*owner
	for _, f := range h.Forms {
		owners = append(owners,
			&owner{what: "form " + f.GoName, pos: f.Pos, key: f, cands: []string{camel(f.GoName)}, idents: formIdents},
			&owner{what: "the function that asks form " + f.GoName, pos: f.Pos, cands: []string{formAsker(f)}})
	}
	return owners
}

// formAsker is the name of the function that asks form f: exported when
// f's type is.
func formAsker(f *model.Form) string {
	if f.GoName[:1] == strings.ToUpper(f.GoName[:1]) {
		return "Elicit" + f.GoName
	}
	return "elicit" + upperFirst(f.GoName)
}

func (n *names) form(prefix string, f *model.Form) string { return prefix + n.base(f) }

// form writes everything of one form.
func (g *handlerGen) form(f *model.Form) {
	t := g.goType(f.Value)
	schema, decode, form := g.names.form(formSchema, f), g.names.form(formDecode, f), g.names.form(formVar, f)
	g.f.Commentf("%s is the requestedSchema of form %s (%s).", schema, f.GoName, f.Pos)
	g.f.Const().Id(schema).Op("=").Add(rawString(indentJSON(FormSchema(f))))
	g.f.Line()
	g.f.Commentf("%s is the elicitation form of %s (%s).", form, f.GoName, f.Pos)
	g.f.Var().Id(form).Op("=").Qual(serverPkg, "NewForm").Call(jen.Id(schema), jen.Id(decode))
	g.f.Line()
	asker := formAsker(f)
	g.f.Commentf("%s asks the user, through the client, to fill in form %s, with message", asker, f.GoName)
	g.f.Comment("saying why. On mcp.ElicitResultActionAccept the answer is decoded and checked against")
	g.f.Comment("the form's schema; on decline or cancel it is zero. See server.ElicitForm.")
	g.f.Func().Id(asker).Params(
		jen.Id("ctx").Qual(contextPkg, "Context"),
		jen.Id("message").String(),
		jen.Id("opts").Op("...").Qual(serverPkg, "InputOption"),
	).Params(t.Clone(), jen.Qual(mcpPkg, "ElicitResultAction"), jen.Error()).Block(
		jen.Return(jen.Qual(serverPkg, "ElicitForm").Call(jen.Id("ctx"), jen.Id("message"), jen.Id(form), jen.Id("opts").Op("..."))),
	)
	g.f.Line()
	g.f.Commentf("%s reads the answer to form %s (%s) into x, checking the schema's rules as it goes.", decode, f.GoName, f.Pos)
	g.f.Func().Id(decode).Params(jen.Id("data").Index().Byte(), jen.Id("x").Op("*").Add(t.Clone())).Error().Block(
		jen.Return(jen.Qual(handlerPkg, "Decode").Call(jen.Id("data"), jen.Func().Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(
			jen.Return(jen.Id(g.names.object(objectRead, f.Value.Object)).Call(jen.Id("s"), jen.Id("x"))),
		))),
	)
	g.f.Line()
}

// FormSchema returns the requestedSchema of form f, compact: an object of
// its properties in field order, each with only the keywords elicitation
// allows (parser/gosrc refuses a form that needs others).
func FormSchema(f *model.Form) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range f.Value.Object.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(p.JSONName))
		b.WriteByte(':')
		formProperty(&b, p)
		if p.Required {
			required = append(required, jsonString(p.JSONName))
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[` + strings.Join(required, ",") + `]`)
	}
	b.WriteByte('}')
	return b.String()
}

// formProperty writes the schema of one form field.
func formProperty(b *strings.Builder, p *model.Property) {
	v := p.Value
	if v.Kind == model.ValPointer {
		v = v.Elem
	}
	r := p.Rules
	kw := func(key, json string) { b.WriteString(`,"` + key + `":` + json) }
	switch v.Kind {
	case model.ValBool:
		b.WriteString(`{"type":"boolean"`)
	case model.ValInt, model.ValUint:
		b.WriteString(`{"type":"integer"`)
	case model.ValFloat:
		b.WriteString(`{"type":"number"`)
	default:
		b.WriteString(`{"type":"string"`)
	}
	if r.Title != "" {
		kw("title", jsonString(r.Title))
	}
	if p.Description != "" {
		kw("description", jsonString(p.Description))
	}
	enum := r.Enum
	if enum == nil {
		enum = v.Enum
	}
	if len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, l := range enum {
			vals[i] = l.JSON()
		}
		kw("enum", "["+strings.Join(vals, ",")+"]")
	}
	if r.MinLength != nil {
		kw("minLength", strconv.Itoa(*r.MinLength))
	}
	if r.MaxLength != nil {
		kw("maxLength", strconv.Itoa(*r.MaxLength))
	}
	if r.Format != "" {
		kw("format", jsonString(r.Format))
	}
	if r.Minimum != nil {
		kw("minimum", r.Minimum.JSON)
	}
	if r.Maximum != nil {
		kw("maximum", r.Maximum.JSON)
	}
	if r.Default != nil {
		kw("default", r.Default.JSON())
	}
	b.WriteByte('}')
}
