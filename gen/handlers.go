package gen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

const (
	mcpPkg     = "github.com/mcpgen/mcpgen/generated/mcp"
	serverPkg  = "github.com/mcpgen/mcpgen/runtime/server"
	handlerPkg = "github.com/mcpgen/mcpgen/runtime/handler"
	// rawschemaPkg validates against schemas read from files; only a
	// package with such a tool imports it, since linking its validator
	// slows every start of the server.
	rawschemaPkg = "github.com/mcpgen/mcpgen/runtime/rawschema"
	contextPkg   = "context"
)

// HandlersFile is the file Handlers writes into a user's package.
const HandlersFile = "mcpgen_gen.go"

// Handlers renders mcpgen_gen.go for a package's annotated handlers: each
// schema as a constant, a decoder that also checks the schema's rules for
// every input and output type, an encoder for every output type, argument
// readers for prompts, Register functions, and compile-time guards on the
// handlers' signatures. It returns nil for a package without handlers.
func Handlers(h *model.Handlers) ([]byte, error) {
	if h.Empty() {
		return nil, nil
	}
	g := &handlerGen{h: h, decoders: map[string]*model.Object{}, encoders: map[string]*model.Object{}}
	f := jen.NewFile(h.Package)
	f.HeaderComment(Header)
	f.ImportName(mcpPkg, "mcp")
	f.ImportName(serverPkg, "server")
	f.ImportName(rawschemaPkg, "rawschema")
	f.ImportName(jsonrpcPkg, "jsonrpc")
	f.ImportName(fielderrPkg, "fielderr")
	g.f = f
	for _, t := range h.Tools {
		g.collect(t)
	}
	g.constants()
	g.guards()
	g.register()
	g.toolCodecs()
	g.promptCodecs()
	g.objectCodecs()
	src, err := render(f)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", h.Package, err)
	}
	return src, nil
}

type handlerGen struct {
	h        *model.Handlers
	f        *jen.File
	decoders map[string]*model.Object // ID → struct needing a decoder
	encoders map[string]*model.Object // ID → struct needing an encoder
	patterns []string                 // regular expressions, indexed by their variable's number
}

// key is a tool's identifier in generated names: its receiver and Go name.
func key(t *model.Tool) string { return t.Recv + t.GoName }

func (g *handlerGen) collect(t *model.Tool) {
	if t.Input != nil && t.InputSchema == nil {
		walkObjects(t.Input, g.decoders)
	}
	if t.Output.Kind == model.OutputStructured {
		walkObjects(t.Output.Value, g.decoders)
		walkObjects(t.Output.Value, g.encoders)
	}
}

// walkObjects adds every struct reachable from v to seen.
func walkObjects(v *model.Value, seen map[string]*model.Object) {
	if v == nil {
		return
	}
	switch v.Kind {
	case model.ValStruct:
		if _, ok := seen[v.Object.ID]; ok {
			return
		}
		seen[v.Object.ID] = v.Object
		for _, p := range v.Object.Fields {
			walkObjects(p.Value, seen)
		}
	case model.ValSlice, model.ValArray, model.ValMap, model.ValPointer:
		walkObjects(v.Elem, seen)
	}
	if v.Go != nil {
		for _, a := range v.Go.Args {
			_ = a // type arguments reach the generated code only through fields
		}
	}
}

func sortedObjects(m map[string]*model.Object) []*model.Object {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]*model.Object, len(ids))
	for i, id := range ids {
		out[i] = m[id]
	}
	return out
}

// rawString writes s as a Go raw string literal when it can be one.
func rawString(s string) jen.Code {
	if !strings.ContainsAny(s, "`\r") {
		return jen.Id("`" + s + "`")
	}
	return jen.Lit(s)
}

// constants writes each tool's definition (name, title, description,
// annotations, schemas) as JSON constants.
func (g *handlerGen) constants() {
	for _, t := range g.h.Tools {
		k := key(t)
		var in, out string
		switch {
		case t.InputSchema != nil:
			in = string(t.InputSchema)
		case t.Input != nil:
			in = RootSchemaDraft(t.Input, g.h.Draft)
		default:
			in = EmptyInputSchemaDraft(g.h.Draft)
		}
		switch t.Output.Kind {
		case model.OutputStructured:
			out = RootSchemaDraft(t.Output.Value, g.h.Draft)
		case model.OutputRaw:
			out = string(t.Output.Schema)
		}
		g.f.Commentf("mcpgenInputSchema%s is the input schema of tool %s (%s).", k, t.Name, t.Pos)
		g.f.Const().Id("mcpgenInputSchema" + k).Op("=").Add(rawString(indentJSON(in)))
		if out != "" {
			g.f.Commentf("mcpgenOutputSchema%s is the output schema of tool %s.", k, t.Name)
			g.f.Const().Id("mcpgenOutputSchema" + k).Op("=").Add(rawString(indentJSON(out)))
		}
		def := &jsonObject{}
		def.set("name", jsonString(t.Name))
		if t.Title != "" {
			def.set("title", jsonString(t.Title))
		}
		if t.Description != "" {
			def.set("description", jsonString(t.Description))
		}
		if len(t.Hints) > 0 {
			ann := &jsonObject{}
			for _, hint := range t.Hints {
				ann.set(hint.Key, strconv.FormatBool(hint.Value))
			}
			def.set("annotations", ann.String())
		}
		head := def.String()
		head = head[:len(head)-1] + `,"inputSchema":`
		expr := rawString(head).(*jen.Statement).Op("+").Id("mcpgenInputSchema" + k)
		if out != "" {
			expr = expr.Op("+").Id("`,\"outputSchema\":`").Op("+").Id("mcpgenOutputSchema" + k)
		}
		expr = expr.Op("+").Id("`}`")
		g.f.Commentf("mcpgenTool%s is the definition of tool %s.", k, t.Name)
		g.f.Const().Id("mcpgenTool" + k).Op("=").Add(expr)
		g.f.Line()
	}
}

// guards writes one assignment per handler that stops compiling when the
// handler's signature drifts from the one this file was generated for.
func (g *handlerGen) guards() {
	var defs []jen.Code
	for _, t := range g.h.Tools {
		var params []jen.Code
		if t.Recv != "" {
			params = append(params, jen.Op("*").Id(t.Recv))
		}
		params = append(params, jen.Qual(contextPkg, "Context"))
		if t.Input != nil {
			params = append(params, g.goType(t.Input))
		}
		var fn jen.Code = jen.Id(t.GoName)
		if t.Recv != "" {
			fn = jen.Parens(jen.Op("*").Id(t.Recv)).Dot(t.GoName)
		}
		defs = append(defs, jen.Id("_").Func().Params(params...).Params(g.outType(t), jen.Error()).Op("=").Add(fn))
	}
	for _, p := range g.h.Prompts {
		defs = append(defs, g.guard(p.Recv, p.GoName, p.Input, promptOutType(p)))
	}
	for _, r := range g.h.Resources {
		defs = append(defs, g.guard(r.Recv, r.GoName, r.Vars, resourceOutType(r)))
	}
	g.f.Comment("The handlers must keep the signatures this file was generated for; run go generate after changing one.")
	g.f.Var().Defs(defs...)
	g.f.Line()
}

// guard is one signature guard: _ func(...) (out, error) = handler.
func (g *handlerGen) guard(recv, name string, in *model.Value, out jen.Code) jen.Code {
	var params []jen.Code
	if recv != "" {
		params = append(params, jen.Op("*").Id(recv))
	}
	params = append(params, jen.Qual(contextPkg, "Context"))
	if in != nil {
		params = append(params, g.goType(in))
	}
	var fn jen.Code = jen.Id(name)
	if recv != "" {
		fn = jen.Parens(jen.Op("*").Id(recv)).Dot(name)
	}
	return jen.Id("_").Func().Params(params...).Params(out, jen.Error()).Op("=").Add(fn)
}

func (g *handlerGen) outType(t *model.Tool) jen.Code {
	switch t.Output.Kind {
	case model.OutputResult:
		return jen.Op("*").Qual(mcpPkg, "CallToolResult")
	case model.OutputRaw:
		return jen.Qual(jsonPkg, "RawMessage")
	}
	return g.goType(t.Output.Value)
}

// register writes Register for the package's functions and
// Register<Recv> for the methods of each receiver type: each adds the
// tools, prompts and resources it serves, in that order.
func (g *handlerGen) register() {
	type group struct {
		adds  []jen.Code
		kinds []string
		names []string
	}
	groups := map[string]*group{}
	var recvs []string
	add := func(recv, kind, name string, code []jen.Code) {
		gr, ok := groups[recv]
		if !ok {
			gr = &group{}
			groups[recv] = gr
			recvs = append(recvs, recv)
		}
		if len(gr.kinds) == 0 || gr.kinds[len(gr.kinds)-1] != kind {
			gr.kinds = append(gr.kinds, kind)
		}
		gr.names = append(gr.names, name)
		gr.adds = append(gr.adds, code...)
	}
	for _, t := range g.h.Tools {
		add(t.Recv, "tools", t.Name, g.addTool(t))
	}
	for _, p := range g.h.Prompts {
		add(p.Recv, "prompts", p.Name, g.addPrompt(p))
	}
	for _, r := range g.h.Resources {
		add(r.Recv, "resources", r.Name, g.addResource(r))
	}
	sort.Strings(recvs)
	for _, recv := range recvs {
		gr := groups[recv]
		name := "Register" + upperFirst(recv)
		params := []jen.Code{jen.Id("s").Op("*").Qual(serverPkg, "Server")}
		what := gr.kinds[0]
		if n := len(gr.kinds); n > 1 {
			what = strings.Join(gr.kinds[:n-1], ", ") + " and " + gr.kinds[n-1]
		}
		if recv == "" {
			g.f.Commentf("%s adds the package's %s to s: %s.", name, what, strings.Join(gr.names, ", "))
		} else {
			g.f.Commentf("%s adds the %s served by r's methods to s: %s.", name, what, strings.Join(gr.names, ", "))
			params = append(params, jen.Id("r").Op("*").Id(recv))
		}
		var body []jen.Code
		if recv != "" {
			body = append(body, jen.If(jen.Id("r").Op("==").Nil()).Block(
				jen.Return(jen.Qual("errors", "New").Call(jen.Lit(name+": nil receiver"))),
			))
		}
		body = append(body, gr.adds...)
		body = append(body, jen.Return(jen.Nil()))
		g.f.Func().Id(name).Params(params...).Error().Block(body...)
		g.f.Line()
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// addTool registers one tool.
func (g *handlerGen) addTool(t *model.Tool) []jen.Code {
	k := key(t)
	call := jen.Id(t.GoName)
	if t.Recv != "" {
		call = jen.Id("r").Dot(t.GoName)
	}
	var h []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	switch {
	case t.InputSchema != nil:
		args = append(args, jen.Qual(jsonPkg, "RawMessage").Call(jen.Id("p").Dot("Arguments")))
	case t.Input != nil:
		h = append(h,
			jen.Var().Id("in").Add(g.goType(t.Input)),
			jen.If(jen.Err().Op(":=").Id("mcpgenDecodeInput"+k).Call(jen.Id("p").Dot("Arguments"), jen.Op("&").Id("in")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("invalid arguments for tool "+t.Name+": %w"), jen.Err())),
			))
		args = append(args, jen.Id("in"))
	}
	h = append(h, jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(call).Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	switch t.Output.Kind {
	case model.OutputResult:
		h = append(h, jen.Return(jen.Id("out"), jen.Nil()))
	case model.OutputText:
		h = append(h, jen.Return(jen.Op("&").Qual(mcpPkg, "CallToolResult").Values(jen.Dict{
			jen.Id("Content"): textContent(jen.String().Call(jen.Id("out"))),
		}), jen.Nil()))
	case model.OutputRaw:
		h = append(h, jen.Return(jen.Qual(handlerPkg, "Structured").Call(jen.Id("out"), jen.Nil())))
	default:
		h = append(h, jen.Return(jen.Qual(handlerPkg, "Structured").Call(jen.Id("mcpgenEncodeOutput"+k).Call(jen.Op("&").Id("out")))))
	}
	handler := jen.Func().Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("p").Op("*").Qual(mcpPkg, "CallToolRequestParams")).
		Params(jen.Op("*").Qual(mcpPkg, "CallToolResult"), jen.Error()).Block(h...)
	opts := []jen.Code{}
	if t.InputSchema != nil || t.Output.Kind == model.OutputRaw {
		// A schema from a file, with no Go type to generate a checker
		// from: the runtime compiles it. Generated checkers take the
		// place of the other schema, if any.
		opts = append(opts, jen.Qual(rawschemaPkg, "Validate").Call())
	}
	switch {
	case t.InputSchema != nil:
		// The schema file's validator checks the arguments.
	case t.Input == nil:
		opts = append(opts, jen.Qual(serverPkg, "WithInputValidator").Call(jen.Id("mcpgenCheckInput"+k)))
	default:
		// The handler's decoder validates as it reads: one pass.
		opts = append(opts, jen.Qual(serverPkg, "InputCheckedByHandler").Call())
	}
	if t.Output.Kind == model.OutputStructured {
		opts = append(opts, jen.Qual(serverPkg, "WithOutputValidator").Call(jen.Id("mcpgenCheckOutput"+k)))
	}
	return []jen.Code{
		jen.If(jen.Err().Op(":=").Qual(handlerPkg, "AddTool").Call(append([]jen.Code{jen.Id("s"), jen.Id("mcpgenTool" + k), handler}, opts...)...), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
	}
}

func textContent(text jen.Code) jen.Code {
	return jen.Index().Qual(mcpPkg, "ContentBlock").Values(jen.Values(jen.Dict{
		jen.Id("Value"): jen.Op("&").Qual(mcpPkg, "TextContent").Values(jen.Dict{jen.Id("Text"): text}),
	}))
}

// toolCodecs writes each tool's root decoder, checker and encoder.
func (g *handlerGen) toolCodecs() {
	for _, t := range g.h.Tools {
		g.inputCodec(t)
		g.outputCodec(t)
	}
	for _, t := range g.h.Tools {
		if t.Input == nil && t.InputSchema == nil {
			g.f.Comment("mcpgenDecodeEmpty reads an object that must have no members.")
			g.f.Func().Id("mcpgenDecodeEmpty").Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(
				jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.If(jen.Id("more")).Block(jen.Return(atFieldVar("string(key)")(errCall("UnknownProperty")))),
				jen.Return(jen.Nil()),
			)
			g.f.Line()
			break
		}
	}
}

// rootDecoder writes mcpgen<k>Decode<which>, which reads a whole document
// into x and checks it.
func (g *handlerGen) rootDecoder(k, which string, v *model.Value, tool string) {
	g.f.Commentf("mcpgenDecode%s%s reads the %s of tool %s into x, checking the schema's rules as it goes.", which, k, strings.ToLower(which), tool)
	var body []jen.Code
	if v.Kind == model.ValStruct {
		body = []jen.Code{jen.Return(jen.Id("mcpgenDecodeObj"+v.Object.ID).Call(jen.Id("s"), jen.Id("x")))}
	} else {
		body = append(g.decodeValue(jen.Op("*").Id("x"), v, nil, plainErr, 0), jen.Return(jen.Nil()))
	}
	g.f.Func().Id("mcpgenDecode"+which+k).Params(jen.Id("data").Index().Byte(), jen.Id("x").Op("*").Add(g.goType(v))).Error().Block(
		jen.Return(jen.Qual(handlerPkg, "Decode").Call(jen.Id("data"), jen.Func().Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(body...))),
	)
	g.f.Line()
}

// objectCodecs writes a decoder for every struct reached by a tool and an
// encoder for every struct reached by an output.
func (g *handlerGen) objectCodecs() {
	for _, o := range sortedObjects(g.decoders) {
		g.objectDecoder(o)
	}
	for _, o := range sortedObjects(g.encoders) {
		g.objectEncoder(o)
	}
	for i, p := range g.patterns {
		g.f.Var().Id("mcpgenPattern"+strconv.Itoa(i)).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(p))
	}
	if len(g.patterns) > 0 {
		g.f.Line()
	}
}

// goType names a value's Go type.
func (g *handlerGen) goType(v *model.Value) *jen.Statement {
	if v.Go != nil {
		var s *jen.Statement
		switch {
		case v.Go.Path == "":
			s = jen.Id(v.Go.Name)
		case v.Go.Path == g.h.Path:
			s = jen.Id(v.Go.Name)
		default:
			s = jen.Qual(v.Go.Path, v.Go.Name)
		}
		if len(v.Go.Args) > 0 {
			args := make([]jen.Code, len(v.Go.Args))
			for i, a := range v.Go.Args {
				args[i] = g.goType(a)
			}
			s = s.Index(jen.List(args...))
		}
		return s
	}
	switch v.Kind {
	case model.ValSlice:
		return jen.Index().Add(g.goType(v.Elem))
	case model.ValArray:
		return jen.Index(jen.Lit(v.Len)).Add(g.goType(v.Elem))
	case model.ValMap:
		return jen.Map(g.goType(v.Key)).Add(g.goType(v.Elem))
	case model.ValPointer:
		return jen.Op("*").Add(g.goType(v.Elem))
	case model.ValBytes:
		return jen.Index().Byte()
	}
	return jen.Any()
}

// convert converts expr, of the scanner's type for v's kind, to v's type.
func (g *handlerGen) convert(v *model.Value, expr jen.Code) jen.Code {
	if v.Go == nil {
		return expr
	}
	if v.Go.Path == "" {
		switch v.Go.Name {
		case "string", "bool", "int64", "float64":
			return expr
		}
	}
	return g.goType(v).Call(expr)
}

// inputCodec writes a tool's input decoder and checker.
func (g *handlerGen) inputCodec(t *model.Tool) {
	k := key(t)
	if t.InputSchema != nil {
		return
	}
	if t.Input == nil {
		g.f.Commentf("mcpgenCheckInput%s accepts only an empty object: tool %s takes no arguments.", k, t.Name)
		g.f.Func().Id("mcpgenCheckInput" + k).Params(jen.Id("args").Index().Byte()).Error().Block(
			jen.Return(jen.Qual(handlerPkg, "Decode").Call(jen.Id("args"), jen.Func().Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(
				jen.Return(jen.Id("mcpgenDecodeEmpty").Call(jen.Id("s"))),
			))),
		)
		g.f.Line()
		return
	}
	g.rootDecoder(k, "Input", t.Input, t.Name)
	g.f.Commentf("mcpgenCheckInput%s decodes and checks the arguments of tool %s, discarding them: the handler does the same as it reads them, so this serves callers that want the verdict alone.", k, t.Name)
	g.f.Func().Id("mcpgenCheckInput"+k).Params(jen.Id("args").Index().Byte()).Error().Block(
		jen.Var().Id("in").Add(g.goType(t.Input)),
		jen.Return(jen.Id("mcpgenDecodeInput"+k).Call(jen.Id("args"), jen.Op("&").Id("in"))),
	)
	g.f.Line()
}

// outputCodec writes a tool's output decoder, checker and encoder.
func (g *handlerGen) outputCodec(t *model.Tool) {
	k := key(t)
	if t.Output.Kind == model.OutputStructured {
		out := t.Output.Value
		g.rootDecoder(k, "Output", out, t.Name)
		g.f.Commentf("mcpgenCheckOutput%s checks the structured content of tool %s against its output schema.", k, t.Name)
		g.f.Func().Id("mcpgenCheckOutput"+k).Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.Var().Id("out").Add(g.goType(out)),
			jen.Return(jen.Id("mcpgenDecodeOutput"+k).Call(jen.Id("data"), jen.Op("&").Id("out"))),
		)
		g.f.Line()
		g.f.Commentf("mcpgenEncodeOutput%s encodes the result of tool %s as JSON.", k, t.Name)
		var body []jen.Code
		if out.Kind == model.ValStruct {
			body = []jen.Code{jen.Return(jen.Id("mcpgenEncodeObj"+out.Object.ID).Call(jen.Nil(), jen.Id("x")))}
		} else {
			body = []jen.Code{jen.Var().Id("dst").Index().Byte(), jen.Var().Err().Error()}
			body = append(body, g.encodeValue(jen.Parens(jen.Op("*").Id("x")), out, plainErr, 0)...)
			body = append(body, jen.Return(jen.Id("dst"), jen.Nil()))
		}
		g.f.Func().Id("mcpgenEncodeOutput"+k).Params(jen.Id("x").Op("*").Add(g.goType(out))).Params(jen.Index().Byte(), jen.Error()).Block(body...)
		g.f.Line()
	}
}
