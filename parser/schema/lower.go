package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// Lower lowers the documents, one per version and oldest first, into one
// model: each document on its own, then merged, so that every type, field,
// variant and method records the versions it exists in. The override table
// (overrides.go) decides where the versions disagree, and its pick rules and
// discriminators go to model.New with the merged types and the method
// table. Errors in the documents are *model.Error values at the position
// of their cause.
func Lower(versions []string, docs []*Document) (*model.Model, error) {
	return lower(versions, docs, nil, "")
}

// LowerExtension lowers the document of an extension of the protocol,
// such as io.modelcontextprotocol/tasks, as one version. Its definitions
// that repeat a definition of core, the schema of the protocol version it
// extends, stay types of the core package corePkg (model.Type.Package),
// and so do the methods they define; a definition that shares a core
// definition's name but differs from it is an error at its position.
//
// Definitions are compared as written (Def.Canonical), not as lowered:
// the extension's schema copies core definitions verbatim, equal text is
// what makes one a copy, and two lowerings could agree on types while the
// schemas differ in what lowering drops (descriptions, formats it does
// not check). What a copy refers to is compared too, since it is a
// definition of the same document.
func LowerExtension(version string, doc, core *Document, corePkg string) (*model.Model, error) {
	extern := map[string]bool{}
	for _, def := range doc.Defs {
		c, ok := core.Lookup(def.Name)
		if !ok {
			continue
		}
		if !bytes.Equal(def.Canonical, c.Canonical) {
			return nil, model.Errorf(posOf(def.Schema), "definition %s shares its name with %s#%s but differs from it: rename it, or make it a copy", def.Name, core.File, c.Schema.Pointer)
		}
		extern[def.Name] = true
	}
	return lower([]string{version}, []*Document{doc}, extern, corePkg)
}

// lower lowers the documents; the types that the definitions named in
// extern lower to (with the types hoisted out of them) belong to package
// pkg, and the methods whose messages do are left out.
func lower(versions []string, docs []*Document, extern map[string]bool, pkg string) (*model.Model, error) {
	if len(versions) != len(docs) || len(docs) == 0 {
		return nil, fmt.Errorf("schema: %d versions for %d documents", len(versions), len(docs))
	}
	if err := model.CheckVersions(versions); err != nil {
		return nil, err
	}
	var vers []*version
	for i, doc := range docs {
		ver, err := lowerDocument(doc, model.Version(i))
		if err != nil {
			return nil, err
		}
		vers = append(vers, ver)
	}
	fold(vers)
	byName, err := merge(vers, versions)
	if err != nil {
		return nil, err
	}
	types := make([]*model.Type, 0, len(byName))
	for _, t := range byName {
		types = append(types, t)
	}
	methods, err := buildMethods(vers, byName, extern)
	if err != nil {
		return nil, err
	}
	if len(extern) > 0 {
		for name, t := range byName {
			for _, ver := range vers {
				if def := ver.owner[name]; extern[def] {
					t.Package = pkg
				}
			}
		}
		methods = slices.DeleteFunc(methods, func(m *model.Method) bool { return byName[m.Message] != nil && byName[m.Message].Package != "" })
	}
	return model.New(versions, types, methods, model.Overrides{PickRules: pickRules, Discriminators: discriminators})
}

// version holds the named types one schema document lowers to.
type version struct {
	v     model.Version
	file  string
	types map[string]*model.Type
	order []string
	// owner names the definition each type was lowered from: itself, or
	// the one whose inline schemas it was hoisted out of.
	owner map[string]string
	// unions records, per Client*/Server* union, the definitions it lists.
	doc *Document
}

// lowerer turns one schema document into model types.
type lowerer struct {
	ver *version
	def string // the definition being lowered
}

// lowerDocument lowers every definition of doc as version v.
func lowerDocument(doc *Document, v model.Version) (*version, error) {
	ver := &version{v: v, file: doc.File, types: map[string]*model.Type{}, doc: doc, owner: map[string]string{}}
	l := &lowerer{ver: ver}
	for _, def := range doc.Defs {
		l.def = def.Name
		name := renamed(def.Name)
		if _, dup := ver.types[name]; dup {
			return nil, model.Errorf(posOf(def.Schema), "definition %s collides with %s after renaming", def.Name, name)
		}
		sch := def.Schema
		if prop := unwraps[def.Name]; prop != "" {
			for _, p := range sch.Properties {
				if p.Name == prop {
					sch = p.Schema
				}
			}
		}
		t, err := l.shape(sch, name)
		if err != nil {
			return nil, err
		}
		if t.Kind == model.Ref {
			t.Kind = model.Alias
		}
		if err := l.register(name, t, false); err != nil {
			return nil, err
		}
	}
	for _, ov := range structToUnion {
		if err := ver.applyStructToUnion(ov); err != nil {
			return nil, err
		}
	}
	if err := ver.flattenUnions(); err != nil {
		return nil, err
	}
	return ver, nil
}

func posOf(s *Schema) model.Pos { return model.Pos{File: s.File, Pointer: s.Pointer} }

// register adds a named type to the version. A hoisted inline type may meet
// another of the same name; identical shapes share the name.
func (l *lowerer) register(name string, t *model.Type, synthetic bool) error {
	t.Name = name
	t.Synthetic = synthetic
	t.Versions = model.Only(l.ver.v)
	if old, ok := l.ver.types[name]; ok {
		return model.Errorf(t.Pos, "type name %s is used twice in one version (also at %s): rename one in the override table", name, old.Pos)
	}
	l.ver.types[name] = t
	l.ver.order = append(l.ver.order, name)
	l.ver.owner[name] = l.def
	return nil
}

// expr lowers a schema that appears inside another (a property, items,
// additionalProperties, a union variant). Objects, unions and enums are
// hoisted into named types called hint.
func (l *lowerer) expr(s *Schema, hint string) (*model.Type, error) {
	// An inline schema that restates the definition it would be named
	// after (TaskStatusNotification's params, TaskStatusNotificationParams)
	// is that definition.
	if def, ok := l.ver.doc.Lookup(hint); ok && def.Schema != s && bytes.Equal(s.Canonical(), def.Canonical) {
		return &model.Type{Kind: model.Ref, Target: renamed(def.Name), Pos: posOf(s), Doc: strings.TrimSpace(s.Description)}, nil
	}
	t, err := l.shape(s, hint)
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case model.Struct, model.Union, model.Enum:
		if err := l.register(hint, t, true); err != nil {
			return nil, err
		}
		return &model.Type{Kind: model.Ref, Target: hint, Pos: t.Pos}, nil
	}
	return t, nil
}

// shape lowers s without naming it.
func (l *lowerer) shape(s *Schema, hint string) (*model.Type, error) {
	pos := posOf(s)
	doc := strings.TrimSpace(s.Description)
	if s.Bool != nil {
		if !*s.Bool {
			return nil, model.Errorf(pos, "the schema false (no value allowed) cannot be lowered to a Go type")
		}
		return &model.Type{Kind: model.Raw, RawKind: model.AnyValue, Pos: pos}, nil
	}
	if len(s.Other) > 0 {
		return nil, model.Errorf(pos, "keywords %s are not supported by the generator: add them to the model or restate the schema without them", strings.Join(s.Other, ", "))
	}
	if len(s.OneOf) > 0 {
		return nil, model.Errorf(pos, "oneOf is not supported: the MCP schemas use anyOf for unions; use anyOf with variants that exclude each other")
	}
	if s.Ref != "" {
		if !isBare(s) {
			return nil, model.Errorf(pos, "$ref beside other constraining keywords is not supported; move the constraints into the referenced definition")
		}
		return &model.Type{Kind: model.Ref, Target: renamed(s.RefName), Pos: pos, Doc: doc}, nil
	}
	if s.IsAny() {
		return &model.Type{Kind: model.Raw, RawKind: model.AnyValue, Pos: pos, Doc: doc}, nil
	}
	if len(s.AnyOf) > 0 {
		if len(s.Types) > 0 || len(s.Properties) > 0 || len(s.AllOf) > 0 {
			return nil, model.Errorf(pos, "anyOf beside type, properties or allOf is not supported")
		}
		if prim := nullablePrim(s.AnyOf); prim != nil {
			t, err := primitive(prim, prim.Types[0])
			if err != nil {
				return nil, err
			}
			t.Nullable = true
			if doc != "" {
				t.Doc = doc
			}
			return t, nil
		}
		if values := constStrings(s.AnyOf); values != nil {
			return l.enum(&Schema{File: s.File, Pointer: s.Pointer, Description: s.Description, Enum: values})
		}
		return l.union(s, hint, s.AnyOf)
	}
	if len(s.AllOf) > 0 {
		if i := unionPart(s.AllOf); i >= 0 {
			return l.distribute(s, i, hint)
		}
		return l.structure(s, hint)
	}
	if len(s.Enum) > 0 {
		return l.enum(s)
	}
	types := s.Types
	if len(types) == 0 && s.HasConst {
		types = []string{jsonKind(s.Const)}
	}
	if len(types) == 0 && len(s.Properties) > 0 {
		types = []string{"object"}
	}
	if len(types) == 2 && (types[0] == "null" || types[1] == "null") {
		other := types[0]
		if other == "null" {
			other = types[1]
		}
		if !isPrimName(other) {
			return nil, model.Errorf(pos, "null beside %s is not supported: only primitive types may be nullable", other)
		}
		t, err := primitive(s, other)
		if err != nil {
			return nil, err
		}
		t.Nullable = true
		return t, nil
	}
	if len(types) > 1 {
		for _, typ := range types {
			if typ == "null" {
				return nil, model.Errorf(pos, "null in a list of several types is not supported")
			}
		}
		return l.union(s, hint, nil)
	}
	if len(types) == 0 {
		return nil, model.Errorf(pos, "schema has constraints but no type; say which JSON type it describes")
	}
	switch types[0] {
	case "object":
		if len(s.Properties) > 0 || len(s.Required) > 0 {
			return l.structure(s, hint)
		}
		ap := s.AdditionalProperties
		if ap == nil || ap.IsAny() {
			return &model.Type{Kind: model.Raw, RawKind: model.AnyObject, Pos: pos, Doc: doc}, nil
		}
		if ap.Bool != nil && !*ap.Bool {
			return l.structure(s, hint)
		}
		elem, err := l.expr(ap, hint+"Value")
		if err != nil {
			return nil, err
		}
		return &model.Type{Kind: model.Map, Elem: elem, Pos: pos, Doc: doc}, nil
	case "array":
		t := &model.Type{Kind: model.Array, Pos: pos, Doc: doc, MinItems: s.MinItems, MaxItems: s.MaxItems}
		if s.Items == nil {
			t.Elem = &model.Type{Kind: model.Raw, RawKind: model.AnyValue, Pos: pos}
			return t, nil
		}
		elem, err := l.expr(s.Items, hint+"Item")
		if err != nil {
			return nil, err
		}
		t.Elem = elem
		return t, nil
	case "string", "integer", "number", "boolean":
		return primitive(s, types[0])
	case "null":
		return nil, model.Errorf(pos, "the null type is not supported: an optional property expresses absence")
	}
	return nil, model.Errorf(pos, "unknown type %q", types[0])
}

// constStrings returns the values of anyOf [{"type": "string", "const":
// "a"}, ...], which says what {"enum": ["a", ...]} does; nil for other
// lists.
func constStrings(anyOf []*Schema) []any {
	var values []any
	for _, v := range anyOf {
		c, ok := v.Const.(string)
		if !ok || !v.HasConst || !isStringType(&Schema{Types: v.Types}) {
			return nil
		}
		rest := *v
		rest.Types, rest.Const, rest.HasConst = nil, nil, false
		if !rest.IsAny() {
			return nil
		}
		values = append(values, c)
	}
	return values
}

// nullablePrim returns the primitive of anyOf [primitive, {"type":
// "null"}], in either order, which says what type: [primitive, "null"]
// does; nil for other lists.
func nullablePrim(anyOf []*Schema) *Schema {
	if len(anyOf) != 2 {
		return nil
	}
	for i, null := range anyOf {
		c := *null
		c.Description, c.Title, c.File, c.Pointer = "", "", "", ""
		if len(c.Types) != 1 || c.Types[0] != "null" {
			continue
		}
		c.Types = nil
		other := anyOf[1-i]
		if c.IsAny() && other.Ref == "" && len(other.Types) == 1 && isPrimName(other.Types[0]) && len(other.Enum) == 0 && len(other.AnyOf) == 0 {
			return other
		}
	}
	return nil
}

func isBare(s *Schema) bool {
	c := *s
	c.Ref, c.RefName, c.Description, c.Title = "", "", "", ""
	c.File, c.Pointer = "", ""
	return c.IsAny()
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

func primitive(s *Schema, typ string) (*model.Type, error) {
	pos := posOf(s)
	t := &model.Type{Kind: model.Primitive, Pos: pos, Doc: strings.TrimSpace(s.Description), Format: s.Format,
		Minimum: s.Minimum, Maximum: s.Maximum, ExclusiveMin: s.ExclusiveMinimum, ExclusiveMax: s.ExclusiveMaximum,
		MinLength: s.MinLength, MaxLength: s.MaxLength}
	switch typ {
	case "string":
		t.Prim = model.String
	case "integer":
		t.Prim = model.Integer
	case "number":
		t.Prim = model.Number
	case "boolean":
		t.Prim = model.Boolean
	}
	if s.HasConst {
		if k := jsonKind(s.Const); k != typ && !(k == "integer" && typ == "number") {
			return nil, model.Errorf(pos, "const %v is not of type %s", s.Const, typ)
		}
		b, _ := json.Marshal(s.Const)
		t.Const = string(b)
	}
	if s.Items != nil || len(s.Properties) > 0 {
		return nil, model.Errorf(pos, "%s schema with object or array keywords is not supported", typ)
	}
	return t, nil
}

func (l *lowerer) enum(s *Schema) (*model.Type, error) {
	pos := posOf(s)
	if len(s.Types) > 1 || (len(s.Types) == 1 && s.Types[0] != "string") {
		return nil, model.Errorf(pos, "only string enums are supported; this enum has type %v", s.Types)
	}
	t := &model.Type{Kind: model.Enum, Pos: pos, Doc: strings.TrimSpace(s.Description)}
	seen := map[string]bool{}
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok {
			return nil, model.Errorf(pos, "enum value %v is not a string: only string enums are supported", v)
		}
		if seen[str] {
			return nil, model.Errorf(pos, "enum value %q appears twice", str)
		}
		seen[str] = true
		t.Values = append(t.Values, &model.EnumValue{Value: str, Versions: model.Only(l.ver.v)})
	}
	return t, nil
}

// structure lowers an object with properties, folding allOf parts in.
func (l *lowerer) structure(s *Schema, hint string) (*model.Type, error) {
	pos := posOf(s)
	t := &model.Type{Kind: model.Struct, Pos: pos, Doc: strings.TrimSpace(s.Description)}
	if len(s.Types) > 0 && (len(s.Types) != 1 || s.Types[0] != "object") {
		return nil, model.Errorf(pos, "properties on a non-object type %v", s.Types)
	}
	// Extra: absent additionalProperties allows anything.
	t.Extra = &model.Type{Kind: model.Raw, RawKind: model.AnyValue, Pos: pos}
	if err := l.addParts(t, s, hint, 0); err != nil {
		return nil, err
	}
	return t, nil
}

func (l *lowerer) addParts(t *model.Type, s *Schema, hint string, depth int) error {
	if depth > 32 {
		return model.Errorf(posOf(s), "allOf nests too deeply")
	}
	for _, part := range s.AllOf {
		p := part
		if p.Ref != "" {
			if !isBare(p) {
				return model.Errorf(posOf(p), "$ref beside other keywords inside allOf is not supported")
			}
			def, ok := l.ver.doc.Lookup(p.RefName)
			if !ok {
				return model.Errorf(posOf(p), "unresolved reference %s", p.Ref)
			}
			p = def.Schema
		}
		if len(p.AnyOf) > 0 || len(p.OneOf) > 0 {
			return model.Errorf(posOf(p), "allOf with a union part is not supported here: only an anyOf written in place, of objects, can be combined")
		}
		if len(p.Types) > 0 && (len(p.Types) != 1 || p.Types[0] != "object") {
			return model.Errorf(posOf(p), "allOf part of type %v: only object parts can be combined", p.Types)
		}
		if err := l.addParts(t, p, hint, depth+1); err != nil {
			return err
		}
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, prop := range s.Properties {
		ft, err := l.expr(prop.Schema, hint+model.GoName(prop.Name))
		if err != nil {
			return err
		}
		f := &model.Field{JSON: prop.Name, GoName: model.GoName(prop.Name), Doc: strings.TrimSpace(prop.Schema.Description),
			Type: ft, Pos: posOf(prop.Schema), Versions: model.Only(l.ver.v)}
		if ft.Kind == model.Raw && ft.RawKind == model.AnyObject {
			f.ObjectIn = model.Only(l.ver.v)
		}
		if old := t.Field(prop.Name); old != nil {
			merged, err := l.intersect(old.Type, ft)
			if err != nil {
				return model.Errorf(f.Pos, "allOf parts disagree on %s: %v", prop.Name, err)
			}
			old.Type = merged
			if old.Doc == "" {
				old.Doc = f.Doc
			}
			continue
		}
		t.Fields = append(t.Fields, f)
	}
	for _, f := range t.Fields {
		if required[f.JSON] {
			f.Required = model.Only(l.ver.v)
		}
	}
	for r := range required {
		if t.Field(r) == nil {
			return model.Errorf(posOf(s), "required property %q is not declared in properties", r)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.Bool != nil && !*ap.Bool:
			t.Extra = nil
		case ap.IsAny():
		default:
			elem, err := l.expr(ap, hint+"Value")
			if err != nil {
				return err
			}
			t.Extra = elem
		}
	}
	return nil
}

// unionPart returns the index of the allOf part written as an anyOf in
// place, -1 when there is none.
func unionPart(parts []*Schema) int {
	for i, p := range parts {
		if p.Ref == "" && len(p.AnyOf) > 0 {
			return i
		}
	}
	return -1
}

// onlyAnyOf reports whether s says nothing beside its anyOf.
func onlyAnyOf(s *Schema) bool {
	c := *s
	c.AnyOf = nil
	return c.IsAny()
}

// distribute lowers allOf [A, anyOf [V1, V2, ...], B] as the union of the
// objects A+V1+B, A+V2+B, ...: each variant a struct with the properties of
// every other part, named after the constant that tells it from its
// siblings (GetTaskResult's variants carry Result's properties and one
// task status each: GetTaskResultWorking, ...).
func (l *lowerer) distribute(s *Schema, at int, hint string) (*model.Type, error) {
	pos := posOf(s)
	for i, p := range s.AllOf {
		if i != at && p.Ref == "" && len(p.AnyOf) > 0 {
			return nil, model.Errorf(posOf(p), "allOf with more than one anyOf part is not supported: write the combinations out as one anyOf")
		}
	}
	union := s.AllOf[at]
	if !onlyAnyOf(union) {
		return nil, model.Errorf(posOf(union), "an anyOf part of allOf takes no other keywords beside it")
	}
	t := &model.Type{Kind: model.Union, Pos: pos, Doc: strings.TrimSpace(s.Description)}
	seen := map[string]*Schema{}
	for _, v := range union.AnyOf {
		if v.Ref != "" || len(v.AnyOf) > 0 || len(v.AllOf) > 0 || (len(v.Types) > 0 && (len(v.Types) != 1 || v.Types[0] != "object")) {
			return nil, model.Errorf(posOf(v), "a variant of an anyOf inside allOf must be an object written in place")
		}
		tag := constTag(v)
		if tag == "" {
			return nil, model.Errorf(posOf(v), "cannot name this variant of %s: give it a property with a string const that tells it from the others", hint)
		}
		name := hint + model.GoName(tag)
		if other := seen[name]; other != nil {
			return nil, model.Errorf(posOf(v), "variants %s and %s are both named %s", other.Pointer, v.Pointer, name)
		}
		seen[name] = v
		parts := make([]*Schema, len(s.AllOf))
		copy(parts, s.AllOf)
		parts[at] = v
		combined := &Schema{File: v.File, Pointer: v.Pointer, Description: v.Description, AllOf: parts}
		vt, err := l.structure(combined, name)
		if err != nil {
			return nil, err
		}
		if err := l.register(name, vt, true); err != nil {
			return nil, err
		}
		t.Variants = append(t.Variants, &model.Variant{Type: &model.Type{Kind: model.Ref, Target: name, Pos: vt.Pos}, Versions: model.Only(l.ver.v)})
	}
	return t, nil
}

// intersect combines two schemas for one property from two allOf parts.
func (l *lowerer) intersect(a, b *model.Type) (*model.Type, error) {
	if a.Kind == model.Raw && a.RawKind == model.AnyValue {
		return b, nil
	}
	if b.Kind == model.Raw && b.RawKind == model.AnyValue {
		return a, nil
	}
	// Any object, narrowed by the other part to objects of one shape (a
	// JSON-RPC envelope's params, given its properties by a request).
	if a.Kind == model.Raw && a.RawKind == model.AnyObject && l.isObject(b) {
		return b, nil
	}
	if b.Kind == model.Raw && b.RawKind == model.AnyObject && l.isObject(a) {
		return a, nil
	}
	if a.Kind == model.Primitive && b.Kind == model.Primitive && (a.Prim == b.Prim || (a.Prim == model.Number && b.Prim == model.Integer) || (a.Prim == model.Integer && b.Prim == model.Number)) {
		c := *a
		if b.Prim == model.Integer {
			c.Prim = model.Integer
		}
		if b.Const != "" {
			if c.Const != "" && c.Const != b.Const {
				return nil, fmt.Errorf("consts %s and %s", c.Const, b.Const)
			}
			c.Const = b.Const
		}
		if c.Doc == "" {
			c.Doc = b.Doc
		}
		return &c, nil
	}
	if a.Kind == model.Ref && b.Kind == model.Ref && a.Target == b.Target {
		return a, nil
	}
	return nil, fmt.Errorf("%s and %s", a.Kind, b.Kind)
}

// isObject reports whether values of t are JSON objects: a map, or a
// reference to a struct, map or union of objects lowered already.
func (l *lowerer) isObject(t *model.Type) bool {
	return l.objectType(t, 0)
}

func (l *lowerer) objectType(t *model.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t.Kind {
	case model.Map, model.Struct:
		return true
	case model.Ref, model.Alias:
		target := l.ver.types[t.Target]
		return target != nil && l.objectType(target, depth+1)
	case model.Union:
		for _, v := range t.Variants {
			if !l.objectType(v.Type, depth+1) {
				return false
			}
		}
		return len(t.Variants) > 0
	}
	return false
}

// union lowers anyOf variants, or a list of primitive types.
func (l *lowerer) union(s *Schema, hint string, anyOf []*Schema) (*model.Type, error) {
	pos := posOf(s)
	t := &model.Type{Kind: model.Union, Pos: pos, Doc: strings.TrimSpace(s.Description)}
	if anyOf == nil {
		for _, typ := range s.Types {
			p, err := primitive(&Schema{File: s.File, Pointer: s.Pointer, Format: s.Format}, typ)
			if err != nil {
				return nil, err
			}
			t.Variants = append(t.Variants, &model.Variant{Type: p, Versions: model.Only(l.ver.v)})
		}
		return t, nil
	}
	// Expand inline multi-type variants so every variant has one JSON kind.
	var parts []*Schema
	for _, v := range anyOf {
		if v.Ref == "" && len(v.Types) > 1 && len(v.AnyOf) == 0 {
			for _, typ := range v.Types {
				c := *v
				c.Types = []string{typ}
				parts = append(parts, &c)
			}
			continue
		}
		parts = append(parts, v)
	}
	allPrim := true
	for _, v := range parts {
		if v.Ref != "" || len(v.Types) != 1 || !isPrimName(v.Types[0]) || len(v.Enum) > 0 {
			allPrim = false
		}
	}
	for i, v := range parts {
		var vt *model.Type
		var err error
		switch {
		case allPrim:
			vt, err = primitive(v, v.Types[0])
		case v.Ref != "":
			vt, err = l.shape(v, hint)
		case inlineAs[fmt.Sprintf("%s/%d", hint, i)].Def != "":
			def := inlineAs[fmt.Sprintf("%s/%d", hint, i)].Def
			if _, ok := l.ver.doc.Lookup(def); !ok {
				err = model.Errorf(posOf(v), "override names %s for this variant, but this version has no such definition", def)
			}
			vt = &model.Type{Kind: model.Ref, Target: def, Pos: posOf(v)}
		case len(v.Properties) > 0 && restates(l.ver.doc, v) != "":
			// An object variant that says a definition again word for word
			// (DetailedTask's variants are WorkingTask, ...) is that
			// definition, not a second struct of the same shape.
			vt = &model.Type{Kind: model.Ref, Target: renamed(restates(l.ver.doc, v)), Pos: posOf(v)}
		default:
			// An inline variant becomes a named type: Union + JSON kind.
			kind := "Object"
			if len(v.Types) == 1 {
				kind = model.GoName(v.Types[0])
			}
			if c := constTag(v); c != "" && inlineObjects(parts) > 1 {
				kind = model.GoName(c)
			}
			name := hint + kind
			var inner *model.Type
			inner, err = l.shape(v, name)
			if err == nil {
				if inner.Kind == model.Ref {
					vt = inner
				} else {
					err = l.register(name, inner, true)
					vt = &model.Type{Kind: model.Ref, Target: name, Pos: inner.Pos}
				}
			}
		}
		if err != nil {
			return nil, err
		}
		for _, old := range t.Variants {
			if old.Type.Kind == model.Ref && vt.Kind == model.Ref && old.Type.Target == vt.Target {
				return nil, model.Errorf(posOf(parts[i]), "variant %s is listed twice", vt.Target)
			}
		}
		t.Variants = append(t.Variants, &model.Variant{Type: vt, Versions: model.Only(l.ver.v)})
	}
	return t, nil
}

// restates returns the name of the definition doc has that v repeats in
// place, or "".
func restates(doc *Document, v *Schema) string {
	if def, ok := doc.Restated(v); ok {
		return def.Name
	}
	return ""
}

// inlineObjects counts the variants written out as objects in place.
func inlineObjects(parts []*Schema) int {
	n := 0
	for _, v := range parts {
		if v.Ref == "" && len(v.Properties) > 0 {
			n++
		}
	}
	return n
}

// constTag returns the string constant of the first property of object
// schema v that has one ("working" for a task whose status is the const
// "working"): what tells the variant from its siblings, and so what names
// it when a union lists several objects in place.
func constTag(v *Schema) string {
	for _, p := range v.Properties {
		if c, ok := p.Schema.Const.(string); ok && p.Schema.HasConst {
			return c
		}
	}
	return ""
}

func isPrimName(s string) bool {
	return s == "string" || s == "integer" || s == "number" || s == "boolean"
}

// flattenUnions replaces a variant that is itself a union by that union's
// variants, so every variant names a non-union type.
func (ver *version) flattenUnions() error {
	for _, name := range ver.order {
		t := ver.types[name]
		if t.Kind != model.Union {
			continue
		}
		var out []*model.Variant
		seen := map[string]bool{}
		var add func(vs []*model.Variant, depth int) error
		add = func(vs []*model.Variant, depth int) error {
			if depth > 16 {
				return model.Errorf(t.Pos, "union %s nests unions too deeply", name)
			}
			for _, v := range vs {
				if v.Type.Kind == model.Ref {
					target := ver.resolve(v.Type.Target)
					if target != nil && target.Kind == model.Union {
						if err := add(target.Variants, depth+1); err != nil {
							return err
						}
						continue
					}
					if seen[v.Type.Target] {
						continue
					}
					seen[v.Type.Target] = true
				}
				out = append(out, v)
			}
			return nil
		}
		if err := add(t.Variants, 0); err != nil {
			return err
		}
		t.Variants = out
	}
	return nil
}

func (ver *version) resolve(name string) *model.Type {
	for i := 0; i < 32; i++ {
		t := ver.types[name]
		if t == nil || t.Kind != model.Alias {
			return t
		}
		name = t.Target
	}
	return nil
}

// applyStructToUnion handles a definition that is an object in some versions
// and a union in others: where it is an object, the object is the named
// variant and the definition a union of that variant alone.
func (ver *version) applyStructToUnion(ov structUnion) error {
	t := ver.types[ov.Union]
	if t == nil || t.Kind != model.Struct {
		return nil
	}
	if existing := ver.types[ov.Variant]; existing != nil {
		merged, err := mergeNamed(existing, t, nil)
		if err != nil {
			return model.Errorf(t.Pos, "override %s→%s: %v", ov.Union, ov.Variant, err)
		}
		ver.types[ov.Variant] = merged
	} else {
		moved := *t
		moved.Name = ov.Variant
		moved.Synthetic = false
		ver.types[ov.Variant] = &moved
		ver.order = append(ver.order, ov.Variant)
	}
	ver.types[ov.Union] = &model.Type{Kind: model.Union, Name: ov.Union, Pos: t.Pos, Doc: t.Doc, Versions: t.Versions,
		Variants: []*model.Variant{{Type: &model.Type{Kind: model.Ref, Target: ov.Variant, Pos: t.Pos}, Versions: t.Versions}}}
	return nil
}
