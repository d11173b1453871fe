package gen

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// JSON Schema 2020-12 (or draft-07, by the package's //mcp:schema option)
// for handler types. Keys are written in a fixed order and $defs sorted by
// name, so a schema is the same bytes every time. Every keyword the writer
// emits means the same in both dialects (exclusiveMinimum and
// exclusiveMaximum are numbers since draft-06; deprecated is an annotation
// draft-07 ignores), so only $schema and where recursive types live differ.

const (
	schemaDialect   = "https://json-schema.org/draft/2020-12/schema"
	schemaDialect07 = "http://json-schema.org/draft-07/schema#"
)

// dialect returns the $schema URL and the keyword holding definitions.
func dialect(d model.Draft) (url, defs string) {
	if d == model.Draft07 {
		return schemaDialect07, "definitions"
	}
	return schemaDialect, "$defs"
}

// jsonObject is a JSON object whose members keep the order they were added.
type jsonObject struct {
	keys []string
	vals []string // raw JSON
}

func (o *jsonObject) set(key, raw string) { o.keys, o.vals = append(o.keys, key), append(o.vals, raw) }

func (o *jsonObject) String() string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(o.vals[i])
	}
	b.WriteByte('}')
	return b.String()
}

// jsonString writes s as a JSON string, leaving <, > and & alone.
func jsonString(s string) string {
	return model.Literal{Kind: model.LitString, S: s}.JSON()
}

// schemaWriter renders the schema of one root value, collecting the
// recursive structs it meets under $defs.
type schemaWriter struct {
	defs    map[string]string // ID → schema
	defsKey string            // $defs or definitions
}

// RootSchema returns the JSON Schema 2020-12 of a tool's input or output
// value, an object at its root as MCP requires, compact.
func RootSchema(v *model.Value) string { return RootSchemaDraft(v, model.Draft2020) }

// RootSchemaDraft is RootSchema in the dialect d.
func RootSchemaDraft(v *model.Value, d model.Draft) string {
	url, defsKey := dialect(d)
	w := &schemaWriter{defs: map[string]string{}, defsKey: defsKey}
	var root *jsonObject
	if v.Kind == model.ValStruct {
		root = w.objectSchema(v.Object)
	} else {
		root = w.schema(v, nil, "")
	}
	out := &jsonObject{}
	out.set("$schema", jsonString(url))
	out.keys, out.vals = append(out.keys, root.keys...), append(out.vals, root.vals...)
	if len(w.defs) > 0 {
		ids := make([]string, 0, len(w.defs))
		for id := range w.defs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		defs := &jsonObject{}
		for _, id := range ids {
			defs.set(id, w.defs[id])
		}
		out.set(defsKey, defs.String())
	}
	return out.String()
}

// EmptyInputSchema is the input schema of a tool that takes no arguments.
const EmptyInputSchema = `{"$schema":"` + schemaDialect + `","type":"object","additionalProperties":false}`

// EmptyInputSchemaDraft is EmptyInputSchema in the dialect d.
func EmptyInputSchemaDraft(d model.Draft) string {
	url, _ := dialect(d)
	return `{"$schema":"` + url + `","type":"object","additionalProperties":false}`
}

// indentJSON pretty-prints compact JSON for the generated file.
func indentJSON(compact string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", "  "); err != nil {
		return compact
	}
	return b.String()
}

func (w *schemaWriter) objectSchema(o *model.Object) *jsonObject {
	s := &jsonObject{}
	s.set("type", `"object"`)
	props := &jsonObject{}
	var required []string
	for _, p := range o.Fields {
		props.set(p.JSONName, w.schema(p.Value, &p.Rules, p.Description).String())
		if p.Required {
			required = append(required, jsonString(p.JSONName))
		}
	}
	if len(o.Fields) > 0 {
		s.set("properties", props.String())
	}
	if len(required) > 0 {
		s.set("required", "["+join(required)+"]")
	}
	s.set("additionalProperties", "false")
	return s
}

func join(items []string) string {
	var b bytes.Buffer
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(it)
	}
	return b.String()
}

// schema renders v with the keywords of a field's tag (rules may be nil),
// in a fixed order: type (or $ref), title, description, an object's
// properties, format, the scalar keywords, the container keywords,
// deprecated; nullable then widens the type (see admitNull).
func (w *schemaWriter) schema(v *model.Value, rules *model.Rules, desc string) *jsonObject {
	if v.Kind == model.ValPointer {
		return w.schema(v.Elem, rules, desc)
	}
	if rules == nil {
		rules = &model.Rules{}
	}
	s := &jsonObject{}
	body := w.typeKeyword(s, v)
	if rules.Title != "" {
		s.set("title", jsonString(rules.Title))
	}
	if desc != "" {
		s.set("description", jsonString(desc))
	}
	if body != nil {
		s.keys, s.vals = append(s.keys, body.keys[1:]...), append(s.vals, body.vals[1:]...)
		s.keys, s.vals = append([]string{"type"}, s.keys...), append([]string{`"object"`}, s.vals...)
	}
	switch {
	case v.Kind == model.ValBytes:
		s.set("format", `"byte"`)
		s.set("contentEncoding", `"base64"`)
	case v.Kind == model.ValTime:
		s.set("format", `"date-time"`)
	case rules.Format != "":
		s.set("format", jsonString(rules.Format))
	}
	scalarKeywords(s, v, rules)
	w.containerKeywords(s, v, rules)
	if rules.Deprecated {
		s.set("deprecated", "true")
	}
	if rules.Nullable {
		admitNull(s)
	}
	return s
}

// admitNull lets a nullable field's schema take null too, in a form both
// dialects read alike: a single type becomes ["T","null"] and an enum
// gains null (an enum alone would still refuse it); a $ref, whose
// siblings draft-07 ignores, becomes "anyOf":[{"$ref":...},{"type":"null"}].
// The other keywords constrain only values of their own type, so null
// passes them.
func admitNull(s *jsonObject) {
	for i, k := range s.keys {
		switch k {
		case "type":
			s.vals[i] = "[" + s.vals[i] + `,"null"]`
		case "enum":
			s.vals[i] = strings.TrimSuffix(s.vals[i], "]") + ",null]"
		case "$ref":
			s.keys[i], s.vals[i] = "anyOf", `[{"$ref":`+s.vals[i]+`},{"type":"null"}]`
		}
	}
}

// jsonTypes are the JSON Schema types of the kinds that have one of their
// own; a struct is an object, written with its properties.
var jsonTypes = map[model.ValueKind]string{
	model.ValBool: `"boolean"`, model.ValInt: `"integer"`, model.ValUint: `"integer"`, model.ValFloat: `"number"`,
	model.ValString: `"string"`, model.ValBytes: `"string"`, model.ValTime: `"string"`, model.ValText: `"string"`,
	model.ValSlice: `"array"`, model.ValArray: `"array"`, model.ValMap: `"object"`,
}

// typeKeyword sets v's type in s, or for a recursive struct its $ref
// (writing its definition the first time). For any other struct it sets
// nothing and returns the struct's schema, whose properties follow the
// annotations.
func (w *schemaWriter) typeKeyword(s *jsonObject, v *model.Value) (body *jsonObject) {
	switch {
	case v.Kind == model.ValStruct && v.Object.Recursive:
		if _, ok := w.defs[v.Object.ID]; !ok {
			w.defs[v.Object.ID] = "" // mark before descending
			w.defs[v.Object.ID] = w.objectSchema(v.Object).String()
		}
		s.set("$ref", jsonString("#/"+w.defsKey+"/"+v.Object.ID))
	case v.Kind == model.ValStruct:
		return w.objectSchema(v.Object)
	case jsonTypes[v.Kind] != "":
		s.set("type", jsonTypes[v.Kind])
	}
	return nil
}

// scalarKeywords sets the keywords that constrain one value: enum,
// default, the bounds (the tag's, tightened by a sized integer's range),
// the lengths and the pattern.
func scalarKeywords(s *jsonObject, v *model.Value, rules *model.Rules) {
	if enum := enumOf(v, rules); enum != nil {
		vals := make([]string, len(enum))
		for i, l := range enum {
			vals[i] = l.JSON()
		}
		s.set("enum", "["+join(vals)+"]")
	}
	if rules.Default != nil {
		s.set("default", rules.Default.JSON())
	}
	lo, hi := effectiveBounds(v, rules)
	if lo != nil {
		s.set("minimum", lo.JSON)
	}
	if rules.ExclusiveMinimum != nil {
		s.set("exclusiveMinimum", rules.ExclusiveMinimum.JSON)
	}
	if hi != nil {
		s.set("maximum", hi.JSON)
	}
	if rules.ExclusiveMaximum != nil {
		s.set("exclusiveMaximum", rules.ExclusiveMaximum.JSON)
	}
	if rules.MinLength != nil {
		s.set("minLength", strconv.Itoa(*rules.MinLength))
	}
	if rules.MaxLength != nil {
		s.set("maxLength", strconv.Itoa(*rules.MaxLength))
	}
	if rules.Pattern != "" {
		s.set("pattern", jsonString(rules.Pattern))
	}
}

// containerKeywords sets an array's items and counts (a Go array fixes
// both counts at its length) or a map's key and value schemas.
func (w *schemaWriter) containerKeywords(s *jsonObject, v *model.Value, rules *model.Rules) {
	switch v.Kind {
	case model.ValSlice, model.ValArray:
		s.set("items", w.schema(v.Elem, nil, "").String())
		minItems, maxItems := rules.MinItems, rules.MaxItems
		if v.Kind == model.ValArray {
			n := v.Len
			if minItems == nil || *minItems < n {
				minItems = &n
			}
			if maxItems == nil || *maxItems > n {
				maxItems = &n
			}
		}
		if minItems != nil {
			s.set("minItems", strconv.Itoa(*minItems))
		}
		if maxItems != nil {
			s.set("maxItems", strconv.Itoa(*maxItems))
		}
		if rules.UniqueItems {
			s.set("uniqueItems", "true")
		}
	case model.ValMap:
		if len(v.Key.Enum) > 0 {
			s.set("propertyNames", w.schema(v.Key, nil, "").String())
		}
		s.set("additionalProperties", w.schema(v.Elem, nil, "").String())
	}
}

// enumOf returns the values a scalar may take: the tag's enum when it has
// one, else the constants of its named type.
func enumOf(v *model.Value, rules *model.Rules) []model.Literal {
	if rules != nil && rules.Enum != nil {
		return rules.Enum
	}
	return v.Enum
}

// kindBounds returns the JSON bounds of a sized integer kind, "" when the
// kind has none. 64-bit unsigned values stop at the int64 maximum, where
// the decoder stops.
func kindBounds(v *model.Value) (lo, hi string) {
	switch v.Kind {
	case model.ValInt:
		if v.Bits == 0 || v.Bits == 64 {
			return "", ""
		}
		return strconv.FormatInt(-1<<(v.Bits-1), 10), strconv.FormatInt(1<<(v.Bits-1)-1, 10)
	case model.ValUint:
		if v.Bits == 0 || v.Bits == 64 {
			return "0", strconv.FormatInt(1<<63-1, 10)
		}
		return "0", strconv.FormatUint(1<<v.Bits-1, 10)
	}
	return "", ""
}
