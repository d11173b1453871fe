package gosrc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/model"
)

const mcpPkg = "github.com/mcpgen/mcpgen/generated/mcp"

// Parse loads the Go package in dir and returns its annotated handlers. A
// package without directives gives a Handlers with no tools. Mistakes in the
// package come back joined, each a *model.PosError.
func Parse(dir string) (*model.Handlers, error) {
	pkg, fset, err := load(dir)
	if err != nil {
		return nil, err
	}
	h := &model.Handlers{Package: pkg.Name, Path: pkg.PkgPath, Dir: dir}
	l := newLowerer(fset, pkg.PkgPath, pkg.Syntax)
	p := &scanner{l: l, info: pkg.TypesInfo, dir: dir, h: h, names: map[string]model.SrcPos{}}
	var files []*ast.File
	for _, f := range pkg.Syntax {
		if baseName(fset.Position(f.Package).Filename) != GeneratedFile {
			files = append(files, f)
		}
	}
	var draftAt model.SrcPos
	for _, f := range files {
		p.packageOptions(f, &draftAt)
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			p.decl(decl)
		}
	}
	h.Declared = declared(pkg.Types.Scope(), l)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return h, nil
}

// declared returns the names a package's scope holds, with their
// positions: the generated file must not declare them again.
func declared(scope *types.Scope, l *lowerer) map[string]model.SrcPos {
	out := map[string]model.SrcPos{}
	for _, name := range scope.Names() {
		out[name] = l.pos(scope.Lookup(name).Pos())
	}
	return out
}

type scanner struct {
	l     *lowerer
	info  *types.Info
	dir   string
	h     *model.Handlers
	names map[string]model.SrcPos // name space + "\x00" + name → where it was declared
	errs  []error
}

func (p *scanner) fail(err error) { p.errs = append(p.errs, err) }

// directives returns the //mcp: lines of a doc comment.
func (p *scanner) directives(doc *ast.CommentGroup) []*directive {
	if doc == nil {
		return nil
	}
	var out []*directive
	for _, c := range doc.List {
		pos := p.l.pos(c.Slash)
		if strings.HasPrefix(c.Text, "// mcp:tool") || strings.HasPrefix(c.Text, "// mcp:prompt") || strings.HasPrefix(c.Text, "// mcp:resource") || strings.HasPrefix(c.Text, "// mcp:schema") || strings.HasPrefix(c.Text, "// mcp:form") {
			p.fail(errDirectiveSpace(pos))
			continue
		}
		text, ok := directiveText(c.Text)
		if !ok {
			continue
		}
		d, err := parseDirective(pos, text)
		if err != nil {
			p.fail(err)
			continue
		}
		out = append(out, d)
	}
	return out
}

func (p *scanner) decl(decl ast.Decl) {
	switch d := decl.(type) {
	case *ast.GenDecl:
		ds := p.directives(d.Doc)
		if len(ds) > 0 && d.Tok == token.TYPE && len(d.Specs) == 1 {
			// type T struct{...}: the doc comment is the declaration's.
			p.typeDirectives(d.Specs[0].(*ast.TypeSpec), ds)
			ds = nil
		}
		for _, s := range d.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok {
				p.typeDirectives(ts, p.directives(ts.Doc))
			}
		}
		for _, dir := range ds {
			p.fail(model.SrcErrorf(dir.pos, "//mcp:%s belongs on %s, not on a %s declaration", dir.kind, directiveTarget(dir.kind), d.Tok))
		}
	case *ast.FuncDecl:
		ds := p.directives(d.Doc)
		if len(ds) == 0 {
			return
		}
		if len(ds) > 1 {
			p.fail(model.SrcErrorf(ds[1].pos, "%s has more than one //mcp: directive: keep one", d.Name.Name))
			return
		}
		switch ds[0].kind {
		case "tool":
			if err := p.tool(d, ds[0]); err != nil {
				p.fail(err)
			}
		case "prompt":
			if err := p.prompt(d, ds[0]); err != nil {
				p.fail(err)
			}
		case "resource":
			if err := p.resource(d, ds[0]); err != nil {
				p.fail(err)
			}
		case "form":
			p.fail(model.SrcErrorf(ds[0].pos, "//mcp:form belongs on a struct type declaration, not on a function or method"))
		case "schema":
			p.fail(model.SrcErrorf(ds[0].pos, "//mcp:schema is a package option, not a handler's: put it in a comment of its own, e.g. above the package clause"))
		default:
			p.fail(model.SrcErrorf(ds[0].pos, "unknown directive //mcp:%s: use //mcp:tool, //mcp:prompt or //mcp:resource (or //mcp:form on a struct type)", ds[0].kind))
		}
	}
}

// packageOptions reads the //mcp:schema lines of a file's free-standing
// comments (those that document no declaration). draftAt remembers where
// the package's dialect was first set, so that files cannot disagree.
func (p *scanner) packageOptions(f *ast.File, draftAt *model.SrcPos) {
	docs := map[*ast.CommentGroup]bool{}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			docs[d.Doc] = true
		case *ast.GenDecl:
			docs[d.Doc] = true
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					docs[ts.Doc] = true
				}
			}
		}
	}
	for _, g := range f.Comments {
		if docs[g] {
			continue
		}
		for _, c := range g.List {
			text, ok := directiveText(c.Text)
			if !ok || !strings.HasPrefix(text, "schema") {
				continue
			}
			pos := p.l.pos(c.Slash)
			draft, err := schemaDirective(pos, text)
			if err != nil {
				p.fail(err)
				continue
			}
			if draftAt.File != "" && draft != p.h.Draft {
				p.fail(model.SrcErrorf(pos, "//mcp:schema disagrees with the one at %s: a package has one schema dialect", *draftAt))
				continue
			}
			p.h.Draft, *draftAt = draft, pos
		}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// tool checks one //mcp:tool function or method and adds it to the model.
func (p *scanner) tool(fd *ast.FuncDecl, d *directive) error {
	opts, err := toolDirective(d)
	if err != nil {
		return err
	}
	fn, _ := p.info.Defs[fd.Name].(*types.Func)
	if fn == nil {
		return model.SrcErrorf(d.pos, "%s: no type information", fd.Name.Name)
	}
	sig := fn.Type().(*types.Signature)
	pos := p.l.pos(fd.Name.Pos())
	want := "func(ctx context.Context, in In) (Out, error) or func(ctx context.Context) (Out, error)"
	t := &model.Tool{Pos: pos, GoName: fd.Name.Name, Name: opts.name, Title: opts.title, Hints: opts.hints, Task: opts.task, InputBeforeTask: opts.inputBeforeTask, RateLimit: opts.rateLimit, Scopes: opts.scopes}
	if t.Name == "" {
		t.Name = snakeCase(fd.Name.Name)
	}
	if prev, dup := p.names["tool\x00"+t.Name]; dup {
		return model.SrcErrorf(pos, "tool name %q is also used at %s: give one of them name=...", t.Name, prev)
	}
	p.names["tool\x00"+t.Name] = pos
	if sig.TypeParams().Len() > 0 {
		return model.SrcErrorf(pos, "%s is generic: a tool handler must be an ordinary function; wrap an instantiation in one", fd.Name.Name)
	}
	if recv := sig.Recv(); recv != nil {
		rt := types.Unalias(recv.Type())
		if ptr, ok := rt.(*types.Pointer); ok {
			rt = types.Unalias(ptr.Elem())
		}
		named, ok := rt.(*types.Named)
		if !ok || named.TypeArgs().Len() > 0 || named.TypeParams().Len() > 0 {
			return model.SrcErrorf(pos, "%s: methods of generic types cannot be tools: use a function or a non-generic receiver", fd.Name.Name)
		}
		t.Recv = named.Obj().Name()
	}
	t.Description = opts.description
	if t.Description == "" && fd.Doc != nil {
		t.Description = handlerDescription(strings.TrimSpace(fd.Doc.Text()), t.GoName, t.Recv)
	}
	params, results := sig.Params(), sig.Results()
	if params.Len() < 1 || params.Len() > 2 || !isContext(params.At(0).Type()) || results.Len() != 2 || !isError(results.At(1).Type()) || sig.Variadic() {
		return model.SrcErrorf(pos, "%s has signature %s: a tool handler must be %s", fd.Name.Name, sigString(sig), want)
	}
	if params.Len() == 2 {
		in := params.At(1).Type()
		if opts.inputSchemaSet {
			if !isRawMessage(in) {
				return model.SrcErrorf(pos, "%s: input-schema=%s needs the input to be json.RawMessage, the handler validating nothing itself", fd.Name.Name, opts.inputSchema)
			}
			schema, err := p.schemaFile(d.pos, opts.inputSchema)
			if err != nil {
				return err
			}
			t.InputSchema, t.InputFile = schema, opts.inputSchema
			t.Input = &model.Value{Kind: model.ValRaw, Go: &model.GoType{Path: "encoding/json", Name: "RawMessage"}}
		} else {
			v, err := p.l.value(in, fd.Type.Params.List[len(fd.Type.Params.List)-1].Type.Pos(), fd.Name.Name+": input")
			if err != nil {
				return err
			}
			if v.Kind == model.ValRaw {
				return model.SrcErrorf(pos, "%s: a json.RawMessage input needs a schema: add input-schema=FILE.json to the directive", fd.Name.Name)
			}
			if v.Kind != model.ValStruct && v.Kind != model.ValMap {
				return model.SrcErrorf(pos, "%s: the input is %s, but tool arguments are a JSON object: take a struct (or map[string]T)", fd.Name.Name, describe(v))
			}
			t.Input = v
		}
	} else if opts.inputSchemaSet {
		return model.SrcErrorf(d.pos, "%s takes no input, so input-schema=%s has nothing to describe: add an in json.RawMessage parameter or drop the option", fd.Name.Name, opts.inputSchema)
	}
	out := results.At(0).Type()
	resultPos := fd.Type.Results.List[0].Type.Pos()
	switch {
	case opts.outputIsSet:
		if !isRawMessage(out) {
			return model.SrcErrorf(pos, "%s: output-schema=%s needs Out to be json.RawMessage", fd.Name.Name, opts.outputSchema)
		}
		schema, err := p.schemaFile(d.pos, opts.outputSchema)
		if err != nil {
			return err
		}
		t.Output = model.Output{Kind: model.OutputRaw, Schema: schema, File: opts.outputSchema}
	case isCallToolResult(out):
		t.Output = model.Output{Kind: model.OutputResult}
	default:
		v, err := p.l.value(out, resultPos, fd.Name.Name+": result")
		if err != nil {
			return err
		}
		switch v.Kind {
		case model.ValString:
			t.Output = model.Output{Kind: model.OutputText, Value: v}
		case model.ValStruct, model.ValMap:
			t.Output = model.Output{Kind: model.OutputStructured, Value: v}
		default:
			return model.SrcErrorf(pos, "%s returns %s: a tool returns a struct or map[string]T (structured content), a string (text) or *mcp.CallToolResult", fd.Name.Name, describe(v))
		}
	}
	p.h.Tools = append(p.h.Tools, t)
	return nil
}

// schemaFile reads a JSON Schema named by a directive and checks it
// against the JSON Schema metaschema.
func (p *scanner) schemaFile(pos model.SrcPos, name string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		return nil, model.SrcErrorf(pos, "read schema: %v: put the file next to the package's sources", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, model.SrcErrorf(pos, "%s is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if p.h.Draft == model.Draft07 {
		c.DefaultDraft(jsonschema.Draft7)
	}
	c.UseLoader(noLoader{})
	url := "mcpgen:///" + filepath.ToSlash(name)
	if err := c.AddResource(url, doc); err != nil {
		return nil, model.SrcErrorf(pos, "%s: %v", name, err)
	}
	if _, err := c.Compile(url); err != nil {
		return nil, model.SrcErrorf(pos, "%s is not a valid JSON Schema: %v", name, err)
	}
	if m, ok := doc.(map[string]any); !ok || m["type"] != "object" {
		return nil, model.SrcErrorf(pos, "%s: a tool's schema needs \"type\": \"object\" at its root", name)
	}
	var buf bytes.Buffer
	if err := compactJSON(&buf, data); err != nil {
		return nil, model.SrcErrorf(pos, "%s: %v", name, err)
	}
	return buf.Bytes(), nil
}

func namedIs(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

func isContext(t types.Type) bool    { return namedIs(t, "context", "Context") }
func isRawMessage(t types.Type) bool { return namedIs(t, "encoding/json", "RawMessage") }
func isError(t types.Type) bool      { return types.Identical(t, types.Universe.Lookup("error").Type()) }

func isCallToolResult(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && namedIs(p.Elem(), mcpPkg, "CallToolResult")
}

func sigString(sig *types.Signature) string {
	s := types.TypeString(types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic()), func(p *types.Package) string { return p.Name() })
	return s
}

// compactJSON writes data without insignificant whitespace.
func compactJSON(dst *bytes.Buffer, data []byte) error {
	return json.Compact(dst, data)
}

// noLoader refuses references to other documents, as the runtime does: an
// embedded schema must stand alone.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not refer to other documents (%s): inline it", url)
}
