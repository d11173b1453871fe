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

// Handlers renders mcpgen_gen.go for a package's annotated handlers:
// compile-time guards on the handlers' signatures, Register functions that
// list what they add, and for each tool, prompt and resource its
// definition (an mcp literal, a tool's schemas JSON constants) and a named
// handler calling the user's function; then a decoder that also checks the
// schema's rules for every input and output type, an encoder for every
// output type and argument readers for prompts. Every identifier comes from
// the namer (names.go), which refuses, as a *model.PosError, a package
// whose handlers it cannot name apart. It returns nil for a package
// without handlers.
func Handlers(h *model.Handlers) ([]byte, error) {
	if h.Empty() {
		return nil, nil
	}
	g, err := newHandlerGen(h)
	if err != nil {
		return nil, err
	}
	f := jen.NewFile(h.Package)
	f.HeaderComment(Header)
	for path, name := range importNames {
		if alias, ok := g.names.imports[path]; ok {
			f.ImportAlias(path, alias)
		} else {
			f.ImportName(path, name)
		}
	}
	g.f = f
	g.guards()
	g.register()
	for _, t := range h.Tools {
		g.tool(t)
	}
	for _, p := range h.Prompts {
		g.prompt(p)
	}
	for _, r := range h.Resources {
		g.resource(r)
	}
	for _, fm := range h.Forms {
		g.form(fm)
	}
	g.readEmpty()
	g.objectCodecs()
	src, err := render(f)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", h.Package, err)
	}
	return src, nil
}

// newHandlerGen collects the structs h's codecs read and write and names
// everything the file declares.
func newHandlerGen(h *model.Handlers) (*handlerGen, error) {
	g := &handlerGen{h: h, decoders: map[string]*model.Object{}, encoders: map[string]*model.Object{}}
	for _, t := range h.Tools {
		g.collect(t)
	}
	for _, f := range h.Forms {
		walkObjects(f.Value, g.decoders)
	}
	all := map[string]*model.Object{}
	for id, o := range g.decoders {
		all[id] = o
	}
	for id, o := range g.encoders {
		all[id] = o
	}
	n, err := newNames(h, sortedObjects(all))
	if err != nil {
		return nil, err
	}
	g.names = n
	return g, nil
}

type handlerGen struct {
	h        *model.Handlers
	f        *jen.File
	names    *names
	decoders map[string]*model.Object // ID → struct needing a decoder
	encoders map[string]*model.Object // ID → struct needing an encoder
	patterns []string                 // regular expressions, indexed by their variable's number
}

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

// tool writes everything of one tool: its definition and schemas, the
// ToolHandler that calls it, and its codecs.
func (g *handlerGen) tool(t *model.Tool) {
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
	var def fields
	def.add("Name", jen.Lit(t.Name))
	def.addString("Title", t.Title)
	def.addString("Description", t.Description)
	falseHints := false
	if len(t.Hints) > 0 {
		var ann fields
		extra := jen.Dict{}
		for _, hint := range t.Hints {
			if hint.Value {
				ann.add(upperFirst(hint.Key), jen.True())
			} else {
				extra[jen.Lit(hint.Key)] = jen.Qual(jsonPkg, "RawMessage").Call(jen.Lit("false"))
			}
		}
		if len(extra) > 0 {
			falseHints = true
			ann.add("Extra", jen.Map(jen.String()).Qual(jsonPkg, "RawMessage").Values(extra))
		}
		def.add("Annotations", jen.Op("&").Add(ann.of("ToolAnnotations")))
	}
	name := g.names.tool(toolDef, t)
	g.f.Commentf("%s is the definition of tool %s (%s), but for its schemas: handler.AddTool adds them.", name, t.Name, t.Pos)
	if falseHints {
		g.f.Comment("Hints written false are in Extra: a Go literal's false field is left out of the")
		g.f.Comment("JSON, and a client would read the hint's default instead.")
	}
	g.f.Var().Id(name).Op("=").Add(def.of("Tool"))
	g.f.Line()
	name = g.names.tool(inputSchema, t)
	g.f.Commentf("%s is the input schema of tool %s (%s).", name, t.Name, t.Pos)
	g.f.Const().Id(name).Op("=").Add(rawString(indentJSON(in)))
	g.f.Line()
	if out != "" {
		name = g.names.tool(outputSchema, t)
		g.f.Commentf("%s is the output schema of tool %s (%s).", name, t.Name, t.Pos)
		g.f.Const().Id(name).Op("=").Add(rawString(indentJSON(out)))
		g.f.Line()
	}
	g.call(t)
	g.inputCodec(t)
	g.outputCodec(t)
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
	if len(defs) == 0 {
		return // a package of forms alone
	}
	g.f.Comment("The handlers must keep the signatures this file was generated for; run go generate after changing one.")
	g.f.Var().Defs(defs...)
	g.f.Line()
	g.structGuards()
}

// structGuards writes one call per struct of the package that a codec
// reads or writes, passing a value of the struct where the struct type
// this file was generated from is wanted: a value is assignable to an
// unnamed struct type only when fields, types and tags are all identical
// (a conversion would ignore the tags), so editing the struct without
// running go generate breaks the build here, at an error naming
// mcpgenStaleRunGoGenerate, instead of the codecs misreading it at run time.
func (g *handlerGen) structGuards() {
	all := map[string]*model.Object{}
	for id, o := range g.decoders {
		all[id] = o
	}
	for id, o := range g.encoders {
		all[id] = o
	}
	var calls []jen.Code
	for _, o := range sortedObjects(all) {
		if o.Shape == nil {
			continue
		}
		fields := make([]jen.Code, len(o.Shape))
		for i, f := range o.Shape {
			field := g.goType(f.Type)
			if !f.Embedded {
				field = jen.Id(f.Name).Add(field)
			}
			if f.Tag != "" {
				field = field.Add(rawString(f.Tag))
			}
			fields[i] = field
		}
		struc := g.goType(&model.Value{Go: o.Go})
		calls = append(calls, jen.Id("_").Op("=").Id(staleGuard).Index(jen.Struct(fields...)).Call(struc.Values()))
	}
	if len(calls) == 0 {
		return
	}
	g.f.Commentf("%s accepts only a value of type T. The guards below", staleGuard)
	g.f.Comment("pass it the package's structs where the fields, types and tags this file")
	g.f.Comment("was generated from are wanted: a build failing in them means that a struct")
	g.f.Comment("has changed since. Run go generate.")
	g.f.Func().Id(staleGuard).Types(jen.Id("T").Any()).Params(jen.Id("T")).Struct().Block(jen.Return(jen.Struct().Values()))
	g.f.Line()
	g.f.Var().Defs(calls...)
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
// tools, prompts and resources it serves, in that order, one statement
// each.
func (g *handlerGen) register() {
	type group struct {
		adds  []jen.Code
		kinds []string
		names []string
	}
	groups := map[string]*group{}
	var recvs []string
	add := func(recv, kind, name string, code jen.Code) {
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
		gr.adds = append(gr.adds, jen.If(jen.Err().Op(":=").Add(code), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
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
		name := g.names.register[recv]
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

// bound is the handler Register passes for a generated function: the
// function itself, or for a method's a closure that adds the receiver r.
// params are the handler's parameter types after the context, result the
// mcp type it returns a pointer to.
func bound(recv, fn, result string, params ...jen.Code) jen.Code {
	if recv == "" {
		return jen.Id(fn)
	}
	names := []string{"p", "vars"}[:len(params)]
	typed := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}
	args := []jen.Code{jen.Id("ctx"), jen.Id("r")}
	for i, p := range params {
		typed = append(typed, jen.Id(names[i]).Add(p))
		args = append(args, jen.Id(names[i]))
	}
	return jen.Func().Params(typed...).Params(jen.Op("*").Qual(mcpPkg, result), jen.Error()).Block(
		jen.Return(jen.Id(fn).Call(args...)),
	)
}

// addTool is Register's call that adds one tool.
func (g *handlerGen) addTool(t *model.Tool) jen.Code {
	out := jen.Lit("")
	if t.Output.Kind == model.OutputStructured || t.Output.Kind == model.OutputRaw {
		out = jen.Id(g.names.tool(outputSchema, t))
	}
	handler := bound(t.Recv, g.names.tool(toolCall, t), "CallToolResult", jen.Op("*").Qual(mcpPkg, "CallToolRequestParams"))
	args := []jen.Code{jen.Id("s"), jen.Id(g.names.tool(toolDef, t)), jen.Id(g.names.tool(inputSchema, t)), out, handler}
	if t.InputSchema != nil || t.Output.Kind == model.OutputRaw {
		// A schema from a file, with no Go type to generate a checker
		// from: the runtime compiles it. Generated checkers take the
		// place of the other schema, if any.
		args = append(args, jen.Qual(rawschemaPkg, "Validate").Call())
	}
	switch {
	case t.InputSchema != nil:
		// The schema file's validator checks the arguments.
	case t.Input == nil:
		args = append(args, jen.Qual(serverPkg, "WithInputValidator").Call(jen.Id(g.names.tool(checkInput, t))))
	case t.Task != model.TaskForbidden:
		// The server checks the arguments before the call becomes a
		// task, so that invalid ones are answered at once instead of
		// with a task that fails; the handler's decoder reads them again.
		args = append(args, jen.Qual(serverPkg, "WithInputValidator").Call(jen.Id(g.names.tool(checkInput, t))))
	default:
		// The handler's decoder validates as it reads: one pass.
		args = append(args, jen.Qual(serverPkg, "InputCheckedByHandler").Call())
	}
	if t.Output.Kind == model.OutputStructured {
		args = append(args, jen.Qual(serverPkg, "WithOutputValidator").Call(jen.Id(g.names.tool(checkOutput, t))))
	}
	// The option alone: the server writes the definition's
	// execution.taskSupport from it, so the definition does not say it too.
	switch t.Task {
	case model.TaskOptional:
		args = append(args, jen.Qual(serverPkg, "WithTaskSupport").Call(jen.Qual(serverPkg, "TaskOptional")))
	case model.TaskRequired:
		args = append(args, jen.Qual(serverPkg, "WithTaskSupport").Call(jen.Qual(serverPkg, "TaskRequired")))
	}
	if t.InputBeforeTask {
		args = append(args, jen.Qual(serverPkg, "WithInputBeforeTask").Call())
	}
	if rl := t.RateLimit; rl != nil {
		// The rate in calls a second, an untyped constant that converts
		// to rate.Limit: the generated file needs no import of its own.
		perSecond := jen.Lit(rl.Count)
		if secs := rl.Per.Seconds(); secs > 1 {
			perSecond = jen.Lit(float64(rl.Count)).Op("/").Lit(secs)
		}
		args = append(args, jen.Qual(serverPkg, "WithRateLimit").Call(perSecond, jen.Lit(rl.Burst)))
	}
	if len(t.Scopes) > 0 {
		args = append(args, jen.Qual(serverPkg, "WithScopes").Call(scopeLits(t.Scopes)...))
	}
	return jen.Qual(handlerPkg, "AddTool").Call(args...)
}

// scopeLits are the arguments of server.WithScopes, PromptScopes or
// ResourceScopes: the scopes as the directive wrote them.
func scopeLits(scopes []string) []jen.Code {
	lits := make([]jen.Code, len(scopes))
	for i, s := range scopes {
		lits[i] = jen.Lit(s)
	}
	return lits
}

// recvParam is the receiver parameter of a generated function for a
// method, none for a function.
func recvParam(recv string) []jen.Code {
	if recv == "" {
		return nil
	}
	return []jen.Code{jen.Id("r").Op("*").Id(recv)}
}

// call writes the ToolHandler of one tool: it decodes the arguments,
// calls the user's function and builds the result from what it returns.
func (g *handlerGen) call(t *model.Tool) {
	var h []jen.Code
	args := []jen.Code{jen.Id("ctx")}
	switch {
	case t.InputSchema != nil:
		args = append(args, jen.Qual(jsonPkg, "RawMessage").Call(jen.Id("p").Dot("Arguments")))
	case t.Input != nil:
		h = append(h,
			jen.Var().Id("in").Add(g.goType(t.Input)),
			jen.If(jen.Err().Op(":=").Id(g.names.tool(decodeInput, t)).Call(jen.Id("p").Dot("Arguments"), jen.Op("&").Id("in")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("invalid arguments for tool "+t.Name+": %w"), jen.Err())),
			))
		args = append(args, jen.Id("in"))
	}
	h = append(h, jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(handlerCall(t.Recv, t.GoName, args...)),
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
		h = append(h, jen.Return(jen.Qual(handlerPkg, "Structured").Call(jen.Id(g.names.tool(encodeOutput, t)).Call(jen.Op("&").Id("out")))))
	}
	name := g.names.tool(toolCall, t)
	g.f.Commentf("%s handles a call of tool %s with %s (%s).", name, t.Name, goLabel(t.Recv, t.GoName), t.Pos)
	params := append([]jen.Code{jen.Id("ctx").Qual(contextPkg, "Context")}, recvParam(t.Recv)...)
	params = append(params, jen.Id("p").Op("*").Qual(mcpPkg, "CallToolRequestParams"))
	g.f.Func().Id(name).Params(params...).Params(jen.Op("*").Qual(mcpPkg, "CallToolResult"), jen.Error()).Block(h...)
	g.f.Line()
}

func textContent(text jen.Code) jen.Code {
	return jen.Index().Qual(mcpPkg, "ContentBlock").Values(jen.Values(jen.Dict{
		jen.Id("Value"): jen.Op("&").Qual(mcpPkg, "TextContent").Values(jen.Dict{jen.Id("Text"): text}),
	}))
}

// readEmpty writes the reader of {} that the checkers of tools without
// arguments share.
func (g *handlerGen) readEmpty() {
	for _, t := range g.h.Tools {
		if t.Input == nil && t.InputSchema == nil {
			g.f.Commentf("%s reads an object that must have no members: the arguments of a tool that takes none.", readEmpty)
			g.f.Func().Id(readEmpty).Params(jen.Id("s").Op("*").Qual(jsonrpcPkg, "Scanner")).Error().Block(
				jen.If(jen.Err().Op(":=").Id("s").Dot("ObjectStart").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("s").Dot("NextKey").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.If(jen.Id("more")).Block(jen.Return(atFieldVar("string(key)")(errCall("UnknownProperty")))),
				jen.Return(jen.Nil()),
			)
			g.f.Line()
			return
		}
	}
}

// rootDecoder writes name, which reads a whole document
// into x and checks it.
func (g *handlerGen) rootDecoder(name, which string, v *model.Value, t *model.Tool) {
	g.f.Commentf("%s reads the %s of tool %s (%s) into x, checking the schema's rules as it goes.", name, which, t.Name, t.Pos)
	var body []jen.Code
	if v.Kind == model.ValStruct {
		body = []jen.Code{jen.Return(jen.Id(g.names.object(objectRead, v.Object)).Call(jen.Id("s"), jen.Id("x")))}
	} else {
		body = append(g.decodeValue(jen.Op("*").Id("x"), v, nil, plainErr, 0), jen.Return(jen.Nil()))
	}
	g.f.Func().Id(name).Params(jen.Id("data").Index().Byte(), jen.Id("x").Op("*").Add(g.goType(v))).Error().Block(
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
		name := g.names.pattern(i)
		g.f.Commentf("%s is the pattern %s of a struct tag.", name, strconv.Quote(p))
		g.f.Var().Id(name).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(p))
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
	if t.InputSchema != nil {
		return
	}
	check := g.names.tool(checkInput, t)
	if t.Input == nil {
		g.f.Commentf("%s accepts only an empty object: tool %s (%s) takes no arguments.", check, t.Name, t.Pos)
		g.f.Func().Id(check).Params(jen.Id("args").Index().Byte()).Error().Block(
			jen.Return(jen.Qual(handlerPkg, "Decode").Call(jen.Id("args"), jen.Id(readEmpty))),
		)
		g.f.Line()
		return
	}
	decode := g.names.tool(decodeInput, t)
	g.rootDecoder(decode, "input", t.Input, t)
	g.f.Commentf("%s decodes and checks the arguments of tool %s (%s), discarding them: the handler does the same as it reads them, so this serves callers that want the verdict alone.", check, t.Name, t.Pos)
	g.f.Func().Id(check).Params(jen.Id("args").Index().Byte()).Error().Block(
		jen.Var().Id("in").Add(g.goType(t.Input)),
		jen.Return(jen.Id(decode).Call(jen.Id("args"), jen.Op("&").Id("in"))),
	)
	g.f.Line()
}

// outputCodec writes a tool's output decoder, checker and encoder.
func (g *handlerGen) outputCodec(t *model.Tool) {
	if t.Output.Kind != model.OutputStructured {
		return
	}
	out := t.Output.Value
	decode, check, encode := g.names.tool(decodeOutput, t), g.names.tool(checkOutput, t), g.names.tool(encodeOutput, t)
	g.rootDecoder(decode, "output", out, t)
	g.f.Commentf("%s checks the structured content of tool %s (%s) against its output schema.", check, t.Name, t.Pos)
	g.f.Func().Id(check).Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Var().Id("out").Add(g.goType(out)),
		jen.Return(jen.Id(decode).Call(jen.Id("data"), jen.Op("&").Id("out"))),
	)
	g.f.Line()
	g.f.Commentf("%s encodes the result of tool %s (%s) as JSON.", encode, t.Name, t.Pos)
	var body []jen.Code
	if out.Kind == model.ValStruct {
		body = []jen.Code{jen.Return(jen.Id(g.names.object(objectAppend, out.Object)).Call(jen.Nil(), jen.Id("x")))}
	} else {
		body = []jen.Code{jen.Var().Id("dst").Index().Byte(), jen.Var().Err().Error()}
		body = append(body, g.encodeValue(jen.Parens(jen.Op("*").Id("x")), out, plainErr, 0)...)
		body = append(body, jen.Return(jen.Id("dst"), jen.Nil()))
	}
	g.f.Func().Id(encode).Params(jen.Id("x").Op("*").Add(g.goType(out))).Params(jen.Index().Byte(), jen.Error()).Block(body...)
	g.f.Line()
}
