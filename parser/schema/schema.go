// Package schema is mcpgen's JSON Schema front-end: it reads a schema document of
// draft-07 or 2020-12, checks it against its metaschema, and returns its
// definitions as plain data with property order kept and every node tagged with
// its file and JSON pointer (Load, Parse); and it lowers the documents of the
// protocol's versions into one model.Model (Lower).
//
// It resolves only references inside the document ("#/..."); a reference to
// another document or to the network is an error, never a fetch.
//
// Lowering turns each document into named model types on its own (lower.go),
// merges the versions so that every type, field, variant and value records
// the versions it exists in (merge.go), derives the method table (methods.go)
// and gives the result to model.New. Where the schemas and a single Go
// package disagree, the override table (overrides.go) decides; lowering fails
// rather than guess where it has no entry. Problems in a document's syntax are
// *Error values; problems lowering it are *model.Error values.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dialect is the JSON Schema draft a document declares in "$schema".
type Dialect int

// The dialects mcpgen reads.
const (
	Draft07 Dialect = iota + 1
	Draft2020
)

func (d Dialect) String() string {
	switch d {
	case Draft07:
		return "draft-07"
	case Draft2020:
		return "2020-12"
	}
	return "unknown"
}

// Error is a problem in a schema document, at a JSON pointer.
type Error struct {
	File    string
	Pointer string
	Msg     string
}

func (e *Error) Error() string {
	if e.Pointer == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s#%s: %s", e.File, e.Pointer, e.Msg)
}

// Document is a parsed schema file.
type Document struct {
	File    string
	Dialect Dialect
	// Defs lists the definitions in document order.
	Defs      []*Def
	byName    map[string]*Def
	byContent map[string]*Def // by Canonical; the first definition of each
}

// Def is one named definition.
type Def struct {
	Name   string
	Schema *Schema
	// Canonical is Schema.Canonical, computed once.
	Canonical []byte
}

// Lookup returns the definition named name.
func (d *Document) Lookup(name string) (*Def, bool) {
	def, ok := d.byName[name]
	return def, ok
}

// Restated returns the definition that s, written in place, says again
// word for word (the first, when several do), if any.
func (d *Document) Restated(s *Schema) (*Def, bool) {
	def, ok := d.byContent[string(s.Canonical())]
	if ok && def.Schema == s {
		return nil, false
	}
	return def, ok
}

// Property is one entry of "properties", in document order.
type Property struct {
	Name   string
	Schema *Schema
}

// Schema is one schema node. Keywords the generator does not read are kept
// by name in Other so that lowering can reject what it cannot express.
type Schema struct {
	File    string
	Pointer string

	// Bool is set for the boolean schemas true and false.
	Bool *bool

	Ref         string // "$ref", as written
	RefName     string // the definition the reference names
	Types       []string
	Description string
	Title       string

	Properties []Property
	Required   []string
	// AdditionalProperties is nil when the keyword is absent.
	AdditionalProperties *Schema
	Items                *Schema

	AnyOf []*Schema
	OneOf []*Schema
	AllOf []*Schema

	Enum     []any
	Const    any
	HasConst bool
	Default  json.RawMessage
	Format   string

	Minimum, Maximum                   *float64
	ExclusiveMinimum, ExclusiveMaximum *float64
	MinLength, MaxLength               *int
	MinItems, MaxItems                 *int

	// Other lists keywords present that this front-end does not interpret,
	// sorted.
	Other []string

	// raw is the schema as written, in plain form (see plain).
	raw any
}

// Canonical returns the schema as JSON with its members sorted and its
// "$schema" keys, which only restate the document's dialect, left out:
// two schemas with the same Canonical text describe the same values
// whatever document they are in, as long as what they refer to does too.
func (s *Schema) Canonical() []byte {
	b, err := json.Marshal(withoutDialect(s.raw))
	if err != nil {
		panic(fmt.Sprintf("schema: canonical form of %s: %v", s.Pointer, err)) // plain values always marshal
	}
	return b
}

// IsAny reports whether the schema accepts every JSON value: {} or true.
func (s *Schema) IsAny() bool {
	if s == nil {
		return false
	}
	if s.Bool != nil {
		return *s.Bool
	}
	return s.Ref == "" && len(s.Types) == 0 && len(s.Properties) == 0 && len(s.Required) == 0 &&
		s.AdditionalProperties == nil && s.Items == nil && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		len(s.AllOf) == 0 && len(s.Enum) == 0 && !s.HasConst && s.Format == "" && len(s.Other) == 0 &&
		s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil &&
		s.MinLength == nil && s.MaxLength == nil && s.MinItems == nil && s.MaxItems == nil
}

// Load reads, checks and parses the schema file at path.
func Load(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	return Parse(path, data)
}

// Parse checks data against its metaschema and parses it. file names the
// document in errors.
func Parse(file string, data []byte) (*Document, error) {
	root, err := decodeOrdered(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "malformed JSON: " + err.Error()}
	}
	obj, ok := root.(*object)
	if !ok {
		return nil, &Error{File: file, Msg: "a schema document must be a JSON object"}
	}
	doc := &Document{File: file, byName: map[string]*Def{}, byContent: map[string]*Def{}}
	switch s, _ := obj.get("$schema"); s {
	case "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema":
		doc.Dialect = Draft07
	case "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#":
		doc.Dialect = Draft2020
	case nil:
		return nil, &Error{File: file, Pointer: "/$schema", Msg: "missing $schema: mcpgen reads draft-07 and 2020-12 documents and needs to know which"}
	default:
		return nil, &Error{File: file, Pointer: "/$schema", Msg: fmt.Sprintf("unsupported dialect %v: mcpgen reads draft-07 and 2020-12", s)}
	}
	if err := checkMeta(file, data); err != nil {
		return nil, err
	}
	dialect, _ := obj.get("$schema")
	p := &parser{file: file, doc: doc, dialect: dialect.(string)}
	defsKey := "definitions"
	if doc.Dialect == Draft2020 {
		defsKey = "$defs"
	}
	for _, k := range []string{"definitions", "$defs"} {
		if k != defsKey {
			if _, ok := obj.get(k); ok {
				return nil, &Error{File: file, Pointer: "/" + k, Msg: fmt.Sprintf("%s documents keep definitions in %q", doc.Dialect, defsKey)}
			}
		}
	}
	defsVal, ok := obj.get(defsKey)
	if !ok {
		return nil, &Error{File: file, Pointer: "/" + defsKey, Msg: "no definitions"}
	}
	defs, ok := defsVal.(*object)
	if !ok {
		return nil, &Error{File: file, Pointer: "/" + defsKey, Msg: "definitions must be an object"}
	}
	p.defsKey = defsKey
	for _, m := range defs.members {
		ptr := "/" + defsKey + "/" + escapePointer(m.key)
		s, err := p.schema(m.value, ptr)
		if err != nil {
			return nil, err
		}
		def := &Def{Name: m.key, Schema: s, Canonical: s.Canonical()}
		doc.Defs = append(doc.Defs, def)
		doc.byName[m.key] = def
		if _, dup := doc.byContent[string(def.Canonical)]; !dup {
			doc.byContent[string(def.Canonical)] = def
		}
	}
	if err := p.resolve(); err != nil {
		return nil, err
	}
	return doc, nil
}

// checkMeta validates the document against the metaschema of its dialect.
// The compiler has no loader for remote documents, so it cannot reach the
// network.
func checkMeta(file string, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &Error{File: file, Msg: "malformed JSON: " + err.Error()}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	url := "file://" + filepath.ToSlash(abs)
	if err := c.AddResource(url, inst); err != nil {
		return &Error{File: file, Msg: "not a valid schema: " + err.Error()}
	}
	if _, err := c.Compile(url); err != nil {
		return &Error{File: file, Pointer: metaPointer(err), Msg: "not a valid schema: " + oneLine(err.Error())}
	}
	return nil
}

// metaPointer returns the JSON pointer of the deepest place a metaschema
// failure names, or "" when err is not a metaschema failure.
func metaPointer(err error) string {
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(sve.Err, &ve) {
		return ""
	}
	deepest := ve.InstanceLocation
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.InstanceLocation) > len(deepest) {
			deepest = e.InstanceLocation
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	var b strings.Builder
	for _, tok := range deepest {
		b.WriteString("/" + escapePointer(tok))
	}
	return b.String()
}

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpgen does not load external references (%s)", url)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(s), " ")
}

type parser struct {
	file    string
	doc     *Document
	defsKey string
	refs    []*Schema
	// dialect is the document's "$schema" as written; a schema inside may
	// repeat it (as definitions copied from a document of their own do),
	// but not name another.
	dialect string
}

var known = map[string]bool{
	"$ref": true, "type": true, "description": true, "title": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true, "anyOf": true, "oneOf": true,
	"allOf": true, "enum": true, "const": true, "default": true, "format": true, "minimum": true,
	"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true,
	"maxLength": true, "minItems": true, "maxItems": true,
	// Annotations that do not change what validates.
	"$comment": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

func (p *parser) errorf(ptr, format string, args ...any) error {
	return &Error{File: p.file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) schema(v any, ptr string) (*Schema, error) {
	s := &Schema{File: p.file, Pointer: ptr, raw: plain(v)}
	switch v := v.(type) {
	case bool:
		b := v
		s.Bool = &b
		return s, nil
	case *object:
		if isNotAny(v) {
			never := false
			s.Bool = &never
			return s, nil
		}
		for _, m := range v.members {
			if err := p.keyword(s, m.key, m.value, ptr+"/"+escapePointer(m.key)); err != nil {
				return nil, err
			}
		}
		sort.Strings(s.Other)
		return s, nil
	}
	return nil, p.errorf(ptr, "a schema must be an object or a boolean")
}

func (p *parser) keyword(s *Schema, key string, v any, ptr string) error {
	var err error
	switch key {
	case "$ref":
		ref, ok := v.(string)
		if !ok {
			return p.errorf(ptr, "$ref must be a string")
		}
		s.Ref = ref
		p.refs = append(p.refs, s)
	case "type":
		switch t := v.(type) {
		case string:
			s.Types = []string{t}
		case []any:
			for i, e := range t {
				str, ok := e.(string)
				if !ok {
					return p.errorf(ptr+"/"+strconv.Itoa(i), "type names must be strings")
				}
				s.Types = append(s.Types, str)
			}
		default:
			return p.errorf(ptr, "type must be a string or an array of strings")
		}
	case "$schema":
		if v != p.dialect {
			return p.errorf(ptr, "$schema %v differs from the document's %s: mcpgen reads one dialect per document", v, p.dialect)
		}
	case "propertyNames":
		// Every member name of a JSON object is a string, so the form the
		// schemas use, {"type": "string"}, constrains nothing; others
		// constrain names, which lowering refuses.
		names, err := p.schema(v, ptr)
		if err != nil {
			return err
		}
		if !isStringType(names) {
			s.Other = append(s.Other, key)
		}
	case "description":
		s.Description, _ = v.(string)
	case "title":
		s.Title, _ = v.(string)
	case "format":
		s.Format, _ = v.(string)
	case "properties":
		obj, ok := v.(*object)
		if !ok {
			return p.errorf(ptr, "properties must be an object")
		}
		for _, m := range obj.members {
			ps, err := p.schema(m.value, ptr+"/"+escapePointer(m.key))
			if err != nil {
				return err
			}
			s.Properties = append(s.Properties, Property{Name: m.key, Schema: ps})
		}
	case "required":
		arr, ok := v.([]any)
		if !ok {
			return p.errorf(ptr, "required must be an array")
		}
		for i, e := range arr {
			str, ok := e.(string)
			if !ok {
				return p.errorf(ptr+"/"+strconv.Itoa(i), "required names must be strings")
			}
			s.Required = append(s.Required, str)
		}
	case "additionalProperties":
		s.AdditionalProperties, err = p.schema(v, ptr)
	case "items":
		if _, isArr := v.([]any); isArr {
			return p.errorf(ptr, "tuple-form items is not supported: mcpgen lowers arrays of one element type")
		}
		s.Items, err = p.schema(v, ptr)
	case "anyOf", "oneOf", "allOf":
		arr, ok := v.([]any)
		if !ok {
			return p.errorf(ptr, "%s must be an array", key)
		}
		var list []*Schema
		for i, e := range arr {
			sub, err := p.schema(e, ptr+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			list = append(list, sub)
		}
		switch key {
		case "anyOf":
			s.AnyOf = list
		case "oneOf":
			s.OneOf = list
		default:
			s.AllOf = list
		}
	case "enum":
		arr, ok := v.([]any)
		if !ok {
			return p.errorf(ptr, "enum must be an array")
		}
		for _, e := range arr {
			s.Enum = append(s.Enum, plain(e))
		}
	case "const":
		s.Const, s.HasConst = plain(v), true
	case "default":
		s.Default, err = json.Marshal(plain(v))
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		n, ok := v.(json.Number)
		if !ok {
			if _, isBool := v.(bool); isBool && key[0] == 'e' {
				return p.errorf(ptr, "boolean %s (draft-04 style) is not supported", key)
			}
			return p.errorf(ptr, "%s must be a number", key)
		}
		f, ferr := n.Float64()
		if ferr != nil {
			return p.errorf(ptr, "%s: %v", key, ferr)
		}
		switch key {
		case "minimum":
			s.Minimum = &f
		case "maximum":
			s.Maximum = &f
		case "exclusiveMinimum":
			s.ExclusiveMinimum = &f
		default:
			s.ExclusiveMaximum = &f
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		n, ok := v.(json.Number)
		i, isInt := nonNegativeInt(n)
		if !ok || !isInt {
			return p.errorf(ptr, "%s must be a non-negative integer", key)
		}
		iv := int(i)
		switch key {
		case "minLength":
			s.MinLength = &iv
		case "maxLength":
			s.MaxLength = &iv
		case "minItems":
			s.MinItems = &iv
		default:
			s.MaxItems = &iv
		}
	default:
		if !known[key] {
			s.Other = append(s.Other, key)
		}
	}
	return err
}

// isStringType reports whether s is {"type": "string"} and nothing else.
func isStringType(s *Schema) bool {
	c := *s
	if len(c.Types) != 1 || c.Types[0] != "string" {
		return false
	}
	c.Types, c.File, c.Pointer = nil, "", ""
	return c.IsAny()
}

// isNotAny reports whether o is {"not": {}} or {"not": true}, which
// accepts nothing, as the schema false does.
func isNotAny(o *object) bool {
	if len(o.members) != 1 || o.members[0].key != "not" {
		return false
	}
	switch n := o.members[0].value.(type) {
	case bool:
		return n
	case *object:
		return len(n.members) == 0
	}
	return false
}

// withoutDialect returns v, a definition in plain form, without the
// "$schema" members of its objects.
func withoutDialect(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if k != "$schema" {
				out[k] = withoutDialect(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withoutDialect(e)
		}
		return out
	}
	return v
}

// resolve checks every $ref and records the definition it names.
func (p *parser) resolve() error {
	prefix := "#/" + p.defsKey + "/"
	for _, s := range p.refs {
		ptr := s.Pointer + "/$ref"
		if !strings.HasPrefix(s.Ref, "#") {
			return p.errorf(ptr, "reference %q leaves the document: mcpgen resolves only #/%s/... references and never fetches", s.Ref, p.defsKey)
		}
		if !strings.HasPrefix(s.Ref, prefix) || strings.Contains(s.Ref[len(prefix):], "/") {
			return p.errorf(ptr, "reference %q does not name a definition: mcpgen resolves %sNAME", s.Ref, prefix)
		}
		name := unescapePointer(s.Ref[len(prefix):])
		if _, ok := p.doc.byName[name]; !ok {
			return p.errorf(ptr, "reference %q names no definition", s.Ref)
		}
		s.RefName = name
	}
	// A definition that is only a reference chain back to itself has no shape.
	for _, def := range p.doc.Defs {
		seen := map[string]bool{def.Name: true}
		for s := def.Schema; s.RefName != "" && isBareRef(s); {
			if seen[s.RefName] {
				return p.errorf(def.Schema.Pointer, "cyclic reference: %s refers to itself through $ref alone", def.Name)
			}
			seen[s.RefName] = true
			s = p.doc.byName[s.RefName].Schema
		}
	}
	return nil
}

// isBareRef reports whether s is a $ref with nothing beside it that
// constrains the value.
func isBareRef(s *Schema) bool {
	c := *s
	c.Ref, c.RefName, c.Description, c.Title = "", "", "", ""
	return c.IsAny()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// object is a JSON object with member order kept.
type object struct {
	members []member
}

type member struct {
	key   string
	value any
}

func (o *object) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// decodeOrdered decodes JSON keeping object member order; numbers stay
// json.Number.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				seen[k] = true
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.members = append(o.members, member{k, v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}

// plain converts an ordered value to encoding/json's generic form; numbers
// that are integers become int64, others float64.
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.members))
		for _, mem := range v.members {
			m[mem.key] = plain(mem.value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// nonNegativeInt returns n when it is a non-negative integer. JSON Schema
// counts a number with a zero fraction (2.0, 2e1) as an integer, so such a
// number is one here too, up to 2^53, where floats stop being exact.
func nonNegativeInt(n json.Number) (int64, bool) {
	if i, err := n.Int64(); err == nil {
		return i, i >= 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f < 0 || f > 1<<53 || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}
