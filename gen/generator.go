package gen

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/model"
)

// generator holds what every output file needs to know about the model.
type generator struct {
	m   *model.Model
	cfg Config
	// unions lists, per struct or named type, the unions it is a variant of.
	variantOf map[string][]string
	// partialConst holds the constants of properties that exist in only
	// some versions of their type: elsewhere any value is allowed, so they
	// are ordinary fields whose constant Validate checks.
	partialConst map[*model.Field]string
	// owner is the struct each field belongs to.
	owner map[*model.Field]*model.Type
	// setters are the Set methods of the fields that need one.
	setters map[*model.Field]*setter
	// names are the package-level names the generator makes (protonames.go).
	names protoNames
	// extension is set when the model takes types from a core package:
	// the package is an extension's.
	extension bool
}

func newGenerator(m *model.Model, cfg Config) (_ *generator, err error) {
	g := &generator{cfg: cfg, variantOf: map[string][]string{}, partialConst: map[*model.Field]string{}}
	g.extension = slices.ContainsFunc(m.Types, func(t *model.Type) bool { return t.Package != "" })
	if g.m, err = g.ownModel(m); err != nil {
		return nil, err
	}
	g.m = g.m.Declared()
	m = g.m
	g.owner = map[*model.Field]*model.Type{}
	for _, t := range m.Types {
		for _, fd := range t.Fields {
			g.owner[fd] = t
		}
	}
	for _, t := range m.Types {
		if len(t.Fields) > 64 {
			return nil, model.Errorf(t.Pos, "%s has %d properties; the generator tracks presence of at most 64", t.Name, len(t.Fields))
		}
		if t.Kind != model.Union || g.scalarUnion(t) {
			continue
		}
		for _, v := range t.Variants {
			target := g.named(v.Type).Name
			g.variantOf[target] = append(g.variantOf[target], t.Name)
		}
	}
	for _, us := range g.variantOf {
		sort.Strings(us)
	}
	if err := g.checkExtras(); err != nil {
		return nil, err
	}
	if err := g.nameAll(); err != nil {
		return nil, err
	}
	if err := g.collectSetters(); err != nil {
		return nil, err
	}
	return g, nil
}

// ownModel returns the model the generator renders: m, but with a copy of
// each struct holding a property whose constant exists in only some
// versions of it. Elsewhere any value is allowed, so the copy makes it an
// ordinary string field, and partialConst keeps the constant for Validate
// to check. m itself is not changed: many generators may render it at
// once.
func (g *generator) ownModel(m *model.Model) (*model.Model, error) {
	repl := map[string]*model.Type{}
	for _, t := range m.Types {
		for i, fd := range t.Fields {
			if fd.Type.Kind != model.Primitive || fd.Type.Const == "" || fd.Versions&t.Versions == t.Versions {
				continue
			}
			if fd.Type.Prim != model.String {
				return nil, model.Errorf(fd.Pos, "%s.%s: a non-string constant that exists in only some versions is not supported", t.Name, fd.JSON)
			}
			nt := repl[t.Name]
			if nt == nil {
				c := *t
				c.Fields = slices.Clone(t.Fields)
				nt, repl[t.Name] = &c, &c
			}
			nf, typ := *fd, *fd.Type
			typ.Const = ""
			nf.Type = &typ
			nt.Fields[i] = &nf
			g.partialConst[&nf] = fd.Type.Const
		}
	}
	return m.Replacing(repl), nil
}

// checkExtras rejects structs whose additional properties have a type: the
// generator keeps additional properties as raw JSON.
func (g *generator) checkExtras() error {
	for _, t := range g.m.Types {
		if t.Kind == model.Struct && t.Extra != nil && !(t.Extra.Kind == model.Raw && t.Extra.RawKind == model.AnyValue) {
			return model.Errorf(t.Pos, "%s constrains additionalProperties beside named properties; the generator supports that only for maps (no named properties)", t.Name)
		}
	}
	return nil
}

// named resolves a Ref or Alias to its named type, and returns other types
// unchanged.
func (g *generator) named(t *model.Type) *model.Type {
	if t.Kind == model.Ref || t.Kind == model.Alias {
		if r := g.m.Resolve(t); r != nil {
			return r
		}
	}
	return t
}

// scalarUnion reports whether every variant of u is an inline primitive:
// such a union is a small sum struct rather than an interface.
func (g *generator) scalarUnion(u *model.Type) bool {
	if u.Kind != model.Union {
		return false
	}
	for _, v := range u.Variants {
		if v.Type.Kind != model.Primitive {
			return false
		}
	}
	return true
}

// pointerField reports whether a struct-typed field is a pointer: it is
// unless the property exists in every version of its type and is required
// in all of them, so that nil can say "absent".
func (g *generator) pointerField(f *model.Field) bool {
	t := g.named(f.Type)
	owner := g.owner[f]
	always := f.Required&f.Versions == f.Versions && f.Versions&owner.Versions == owner.Versions
	return f.Type.Kind != model.Alias && t.Kind == model.Struct && !always
}

// emitAlways reports whether a field is written whenever decoding did not
// find it missing: it exists in every version of its type, is required in
// the newest, and its Go type has no "absent" value of its own. A field
// that only some versions have is written when set, so that a value built
// in Go for an older version does not carry it.
func (g *generator) emitAlways(t *model.Type, f *model.Field) bool {
	return t.AlwaysCarried(f) && !g.pointerField(f)
}

// isConst reports whether the field holds a constant and so has no Go
// field of its own.
func isConst(f *model.Field) bool {
	return f.Type.Kind == model.Primitive && f.Type.Const != ""
}

// goType is the Go type of a value of type t.
func (g *generator) goType(t *model.Type) *jen.Statement {
	switch t.Kind {
	case model.Ref, model.Alias:
		if target := g.m.Lookup(t.Target); target != nil && target.Package != "" {
			return jen.Qual(target.Package, t.Target)
		}
		return jen.Id(t.Target)
	case model.Primitive:
		var s *jen.Statement
		switch t.Prim {
		case model.String:
			s = jen.String()
		case model.Integer:
			s = jen.Int64()
		case model.Number:
			s = jen.Float64()
		default:
			s = jen.Bool()
		}
		if t.Nullable {
			return jen.Op("*").Add(s)
		}
		return s
	case model.Array:
		return jen.Index().Add(g.goType(t.Elem))
	case model.Map:
		return jen.Map(jen.String()).Add(g.goType(t.Elem))
	case model.Raw:
		return jen.Qual(jsonPkg, "RawMessage")
	}
	panic(fmt.Sprintf("gen: no Go type for %s", t.Kind))
}

// fieldType is the Go type of a struct field.
func (g *generator) fieldType(f *model.Field) *jen.Statement {
	if g.pointerField(f) {
		return jen.Op("*").Add(g.goType(f.Type))
	}
	return g.goType(f.Type)
}

// typeDoc renders the doc comment of named type t: the schema's text, or
// where the schema defines t when it says nothing, then notes (paragraphs
// of the generator's own), the versions and the deprecation. A described
// type ends with a Schema paragraph naming where the schema defines it.
func (g *generator) typeDoc(t *model.Type, notes string) *jen.Statement {
	src := ""
	if strings.TrimSpace(t.Doc) != "" && t.Pos.File != "" {
		src = "Schema: " + source(t.Pos)
	}
	return g.docComment(t.Name, t.Doc, t.Pos, []string{notes}, t.Versions, t.Deprecated, src)
}

// fieldDoc renders the doc comment of field fd of struct t: the schema's
// text, or where the schema defines the property when it says nothing.
func (g *generator) fieldDoc(t *model.Type, fd *model.Field) *jen.Statement {
	return g.docComment(fd.GoName, fd.Doc, fd.Pos, nil, fd.Versions, "", "")
}

// valueDoc renders the doc comment of value v of enum t.
func (g *generator) valueDoc(t *model.Type, v *model.EnumValue) *jen.Statement {
	return g.docComment(v.GoName, v.GoName+" is the "+t.Name+" value "+quoteJSON(v.Value)+".", model.Pos{}, nil, v.Versions, "", "")
}

// docComment renders a doc comment for name: text (wrapped as written,
// its {@link ...} forms as Go doc links), else the source pos, then the
// paragraphs of notes, a version note, the deprecation and last.
func (g *generator) docComment(name, text string, pos model.Pos, notes []string, vs model.VersionSet, deprecated, last string) *jen.Statement {
	text = g.docLinks(strings.TrimSpace(text))
	deprecated = g.docLinks(deprecated)
	var b strings.Builder
	switch {
	case text == "" && pos.File == "":
		panic(fmt.Sprintf("gen: no text and no source for the doc comment of %s", name))
	case text == "":
		fmt.Fprintf(&b, "%s: %s", name, source(pos))
	case strings.HasPrefix(text, name+" "):
		b.WriteString(text)
	default:
		fmt.Fprintf(&b, "%s: %s", name, text)
	}
	paras := append(notes, g.m.Since(vs))
	if deprecated != "" {
		paras = append(paras, "Deprecated: "+deprecated)
	}
	for _, p := range append(paras, last) {
		if p != "" {
			b.WriteString("\n\n" + p)
		}
	}
	return lineComments(sanitizeComment(b.String()))
}

// source renders where the schema defines a node: the schema file's folder
// and name, which name its version (2026-07-28/schema.json) or golden case,
// and the JSON pointer. The rest of the path is left out: it differs from
// machine to machine, and between make generate, which is given a relative
// path, and the stale check, which is given an absolute one, and the two
// must write the same bytes.
func source(p model.Pos) string {
	parts := strings.Split(filepath.ToSlash(p.File), "/")
	if n := len(parts); n >= 2 && parts[n-2] != "." && parts[n-2] != ".." && parts[n-2] != "" {
		parts = parts[n-2:]
	} else {
		parts = parts[n-1:]
	}
	return strings.Join(parts, "/") + "#" + p.Pointer
}

// lineComments renders text as // lines (jennifer would use a block
// comment for several lines).
func lineComments(text string) *jen.Statement {
	lines := strings.Split(text, "\n")
	s := jen.Comment(lines[0])
	for _, l := range lines[1:] {
		s = s.Line().Comment(l)
	}
	return s
}

// wrapText breaks text into lines of at most width bytes at spaces; a word
// longer than width stands on a line of its own.
func wrapText(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// sanitizeComment keeps description text from breaking out of a line
// comment or being read as a directive.
func sanitizeComment(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.HasPrefix(l, "go:") || strings.HasPrefix(l, "line ") {
			l = " " + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// versionMask renders a VersionSet literal.
func (g *generator) versionMask(vs model.VersionSet) jen.Code {
	if vs == g.m.All() {
		return jen.Id("allVersions")
	}
	var parts []jen.Code
	for i := range g.m.Versions {
		if vs.Has(model.Version(i)) {
			parts = append(parts, jen.Id(g.names.versionBit[i]))
		}
	}
	if len(parts) == 0 {
		return jen.Lit(0)
	}
	return jen.Id("VersionSet").Call(jen.Add(joinOr(parts)))
}

func joinOr(parts []jen.Code) jen.Code {
	s := jen.Add(parts[0])
	for _, p := range parts[1:] {
		s = s.Op("|").Add(p)
	}
	return s
}

func unquote(constJSON string) string {
	return strings.Trim(constJSON, `"`)
}
