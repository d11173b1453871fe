package gosrc

import (
	"cmp"
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/runtime/uritemplate"
)

// handlerFunc is what every kind of handler shares: its position, its
// receiver and its signature, checked to be an ordinary function or a
// method of a non-generic type.
type handlerFunc struct {
	pos  model.SrcPos
	name string
	recv string
	sig  *types.Signature
	doc  string // the description its doc comment gives
}

func (p *scanner) handlerFunc(fd *ast.FuncDecl, d *directive) (*handlerFunc, error) {
	fn, _ := p.info.Defs[fd.Name].(*types.Func)
	if fn == nil {
		return nil, model.SrcErrorf(d.pos, "%s: no type information", fd.Name.Name)
	}
	h := &handlerFunc{pos: p.l.pos(fd.Name.Pos()), name: fd.Name.Name, sig: fn.Type().(*types.Signature)}
	if h.sig.TypeParams().Len() > 0 {
		return nil, model.SrcErrorf(h.pos, "%s is generic: a %s handler must be an ordinary function; wrap an instantiation in one", h.name, d.kind)
	}
	if recv := h.sig.Recv(); recv != nil {
		rt := types.Unalias(recv.Type())
		if ptr, ok := rt.(*types.Pointer); ok {
			rt = types.Unalias(ptr.Elem())
		}
		named, ok := rt.(*types.Named)
		if !ok || named.TypeArgs().Len() > 0 || named.TypeParams().Len() > 0 {
			return nil, model.SrcErrorf(h.pos, "%s: methods of generic types cannot be handlers: use a function or a non-generic receiver", h.name)
		}
		h.recv = named.Obj().Name()
	}
	if fd.Doc != nil {
		h.doc = handlerDescription(strings.TrimSpace(fd.Doc.Text()), h.name, h.recv)
	}
	return h, nil
}

// shape reports whether the signature is func(ctx[, in]) (Out, error) with
// at most maxIn inputs after ctx.
func (h *handlerFunc) shape(minIn, maxIn int) bool {
	params, results := h.sig.Params(), h.sig.Results()
	return params.Len() >= 1+minIn && params.Len() <= 1+maxIn && isContext(params.At(0).Type()) &&
		results.Len() == 2 && isError(results.At(1).Type()) && !h.sig.Variadic()
}

// claim records a name in one of the package's name spaces (tool, prompt,
// resource URI) and reports a clash.
func (p *scanner) claim(space, name string, pos model.SrcPos, fix string) error {
	k := space + "\x00" + name
	if prev, dup := p.names[k]; dup {
		return model.SrcErrorf(pos, "%s %q is also used at %s: %s", space, name, prev, fix)
	}
	p.names[k] = pos
	return nil
}

// prompt checks one //mcp:prompt function or method and adds it to the model.
func (p *scanner) prompt(fd *ast.FuncDecl, d *directive) error {
	opts, err := entryDirective(d, "name", "title", "description", "scopes")
	if err != nil {
		return err
	}
	h, err := p.handlerFunc(fd, d)
	if err != nil {
		return err
	}
	pr := &model.Prompt{Pos: h.pos, GoName: h.name, Recv: h.recv, Name: opts.name, Title: opts.title, Description: cmp.Or(opts.description, h.doc), Scopes: opts.scopes}
	if pr.Name == "" {
		pr.Name = snakeCase(h.name)
	}
	if err := p.claim("prompt", pr.Name, h.pos, "give one of them name=..."); err != nil {
		return err
	}
	const want = "func(ctx context.Context, in In) (Out, error) or func(ctx context.Context) (Out, error), with In a struct of string fields and Out []mcp.PromptMessage or *mcp.GetPromptResult"
	if !h.shape(0, 1) {
		return model.SrcErrorf(h.pos, "%s has signature %s: a prompt handler must be %s", h.name, sigString(h.sig), want)
	}
	params := h.sig.Params()
	if params.Len() == 2 {
		in := params.At(1).Type()
		v, err := p.l.value(in, fd.Type.Params.List[len(fd.Type.Params.List)-1].Type.Pos(), h.name+": input")
		if err != nil {
			return err
		}
		if v.Kind != model.ValStruct || v.Object.Recursive {
			return model.SrcErrorf(h.pos, "%s: the input is %s, but prompt arguments are named strings: take a struct of string fields", h.name, describe(v))
		}
		for _, f := range v.Object.Fields {
			fv := f.Value
			if fv.Kind == model.ValPointer {
				fv = fv.Elem
			}
			if fv.Kind != model.ValString {
				return model.SrcErrorf(f.Pos, "prompt %s: field %s is %s: prompt arguments are strings; use string (or *string for an optional argument)", pr.Name, f.GoPath[len(f.GoPath)-1], describe(f.Value))
			}
			if !f.Rules.Empty() {
				return model.SrcErrorf(f.Pos, "prompt %s: field %s: prompt arguments take no mcp:\"...\" keywords (clients send them unchecked): drop the tag", pr.Name, f.GoPath[len(f.GoPath)-1])
			}
			pr.Args = append(pr.Args, &model.PromptArg{Pos: f.Pos, GoPath: f.GoPath, Name: f.JSONName, Description: f.Description, Required: f.Required, Value: f.Value})
		}
		pr.Input = v
	}
	out := h.sig.Results().At(0).Type()
	switch {
	case isMCPPointer(out, "GetPromptResult"):
		pr.Result = true
	case isMCPSlice(out, "PromptMessage"):
	default:
		return model.SrcErrorf(h.pos, "%s returns %s: a prompt handler returns []mcp.PromptMessage or *mcp.GetPromptResult", h.name, typeString(out))
	}
	p.h.Prompts = append(p.h.Prompts, pr)
	return nil
}

// resource checks one //mcp:resource function or method and adds it to the model.
func (p *scanner) resource(fd *ast.FuncDecl, d *directive) error {
	opts, err := entryDirective(d, "uri", "uri-template", "name", "title", "description", "mime", "scopes")
	if err != nil {
		return err
	}
	switch {
	case opts.uri == "" && opts.template == "":
		return model.SrcErrorf(d.pos, "//mcp:resource needs uri=URI (a fixed resource) or uri-template=TEMPLATE (RFC 6570)")
	case opts.uri != "" && opts.template != "":
		return model.SrcErrorf(d.pos, "//mcp:resource: give uri= or uri-template=, not both")
	}
	h, err := p.handlerFunc(fd, d)
	if err != nil {
		return err
	}
	r := &model.Resource{Pos: h.pos, GoName: h.name, Recv: h.recv, Name: opts.name, Title: opts.title, MIME: opts.mime, Description: cmp.Or(opts.description, h.doc), URI: opts.uri, Template: opts.template, Scopes: opts.scopes}
	if r.Name == "" {
		r.Name = snakeCase(h.name)
	}
	const outs = "[]mcp.ReadResourceResultContentsItem, string (text), []byte (a blob) or *mcp.ReadResourceResult"
	if r.URI != "" {
		if strings.ContainsAny(r.URI, "{}") {
			return model.SrcErrorf(d.pos, "//mcp:resource: uri=%s has template braces: write uri-template=%s", r.URI, r.URI)
		}
		if err := p.claim("resource URI", r.URI, h.pos, "each resource needs its own URI"); err != nil {
			return err
		}
		if !h.shape(0, 0) {
			return model.SrcErrorf(h.pos, "%s has signature %s: a resource handler with uri= must be func(ctx context.Context) (Out, error), Out being %s", h.name, sigString(h.sig), outs)
		}
	} else {
		tmpl, err := uritemplate.Parse(r.Template)
		if err != nil {
			return model.SrcErrorf(d.pos, "//mcp:resource: uri-template=%s: %v", r.Template, err)
		}
		if err := p.claim("resource template", r.Template, h.pos, "each template needs its own pattern"); err != nil {
			return err
		}
		if !h.shape(1, 1) {
			return model.SrcErrorf(h.pos, "%s has signature %s: a resource handler with uri-template= must be func(ctx context.Context, vars V) (Out, error), V a struct with a string field per template variable and Out %s", h.name, sigString(h.sig), outs)
		}
		if err := p.templateVars(r, tmpl.Vars(), fd); err != nil {
			return err
		}
	}
	out := h.sig.Results().At(0).Type()
	switch {
	case isMCPPointer(out, "ReadResourceResult"):
		r.Output = model.ResourceResult
	case isMCPSlice(out, "ReadResourceResultContentsItem"):
		r.Output = model.ResourceContents
	case isBasic(out, types.String):
		r.Output = model.ResourceText
	case isByteSlice(out):
		r.Output = model.ResourceBlob
	default:
		return model.SrcErrorf(h.pos, "%s returns %s: a resource handler returns %s", h.name, typeString(out), outs)
	}
	p.h.Resources = append(p.h.Resources, r)
	return nil
}

// templateVars pairs every variable of a resource template with a string
// field of the handler's vars struct, by the field's JSON name (matched as
// encoding/json matches keys: exactly, else ignoring case), and every field
// with a variable.
func (p *scanner) templateVars(r *model.Resource, vars []string, fd *ast.FuncDecl) error {
	in := p.info.TypeOf(fd.Type.Params.List[len(fd.Type.Params.List)-1].Type)
	v, err := p.l.value(in, fd.Type.Params.List[len(fd.Type.Params.List)-1].Type.Pos(), r.GoName+": vars")
	if err != nil {
		return err
	}
	if v.Kind != model.ValStruct || v.Object.Recursive {
		return model.SrcErrorf(r.Pos, "%s: the vars are %s: take a struct with one string field per variable of %s", r.GoName, describe(v), r.Template)
	}
	used := make([]bool, len(v.Object.Fields))
	for _, name := range vars {
		i := slices.IndexFunc(v.Object.Fields, func(f *model.Property) bool { return f.JSONName == name })
		if i < 0 {
			i = slices.IndexFunc(v.Object.Fields, func(f *model.Property) bool { return strings.EqualFold(f.JSONName, name) })
		}
		if i < 0 {
			return model.SrcErrorf(v.Object.Pos, "%s: template %s has variable {%s} but %s has no field for it: add one, e.g. %s string `json:\"%s\"`", r.GoName, r.Template, name, v.Object.Go.Name, upperFirst(name), name)
		}
		f := v.Object.Fields[i]
		if f.Value.Kind != model.ValString {
			return model.SrcErrorf(f.Pos, "%s: field %s receives template variable {%s} and must be a string, not %s", r.GoName, f.GoPath[len(f.GoPath)-1], name, describe(f.Value))
		}
		used[i] = true
		r.TemplateVars = append(r.TemplateVars, &model.TemplateVar{Name: name, GoPath: f.GoPath, Value: f.Value})
	}
	for i, f := range v.Object.Fields {
		if !used[i] {
			return model.SrcErrorf(f.Pos, "%s: field %s (%q) matches no variable of template %s: rename it, tag it json:\"-\" or add {%s} to the template", r.GoName, f.GoPath[len(f.GoPath)-1], f.JSONName, r.Template, f.JSONName)
		}
	}
	r.Vars = v
	return nil
}

func isMCPPointer(t types.Type, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && namedIs(p.Elem(), mcpPkg, name)
}

func isMCPSlice(t types.Type, name string) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && namedIs(s.Elem(), mcpPkg, name)
}

func isBasic(t types.Type, kind types.BasicKind) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Kind() == kind
}

func isByteSlice(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && isBasic(s.Elem(), types.Byte)
}

func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
