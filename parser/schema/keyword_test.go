package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// at returns the schema node s with the file and pointer a parse of a
// one-definition test document gives it.
func at(ptr string, s Schema) *Schema {
	s.File, s.Pointer = "t.json", "/$defs/T"+ptr
	return &s
}

func boolSchema(ptr string, b bool) *Schema { return at(ptr, Schema{Bool: &b}) }

// TestKeywordResult parses one definition per case and compares the whole
// node it becomes, pointers of nested nodes included, so that a keyword
// landing in the wrong field, or in two, fails.
func TestKeywordResult(t *testing.T) {
	tests := []struct {
		name string
		def  string
		want *Schema
	}{
		{"type", `{"type":"integer"}`, at("", Schema{Types: []string{"integer"}})},
		{"nullable type array", `{"type":["null","string"]}`, at("", Schema{Types: []string{"null", "string"}})},
		{"properties keep order and positions", `{"type":"object","properties":{"b":{"type":"string"},"a":true}}`, at("", Schema{
			Types: []string{"object"},
			Properties: []Property{
				{"b", at("/properties/b", Schema{Types: []string{"string"}})},
				{"a", boolSchema("/properties/a", true)},
			},
		})},
		{"required", `{"required":["x","y"]}`, at("", Schema{Required: []string{"x", "y"}})},
		{"additionalProperties false", `{"additionalProperties":false}`, at("", Schema{AdditionalProperties: boolSchema("/additionalProperties", false)})},
		{"additionalProperties schema", `{"additionalProperties":{"type":"number"}}`, at("", Schema{
			AdditionalProperties: at("/additionalProperties", Schema{Types: []string{"number"}}),
		})},
		{"items", `{"type":"array","items":{"type":"boolean"}}`, at("", Schema{
			Types: []string{"array"},
			Items: at("/items", Schema{Types: []string{"boolean"}}),
		})},
		{"enum of mixed kinds", `{"enum":["a",2,2.5,true,null]}`, at("", Schema{Enum: []any{"a", int64(2), 2.5, true, nil}})},
		{"const object", `{"const":{"k":[1]}}`, at("", Schema{Const: map[string]any{"k": []any{int64(1)}}, HasConst: true})},
		{"const false", `{"const":false}`, at("", Schema{Const: false, HasConst: true})},
		{"default canonical", `{"default": {"z": 1.50, "a": "x"}}`, at("", Schema{Default: json.RawMessage(`{"a":"x","z":1.5}`)})},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, at("", Schema{AnyOf: []*Schema{
			at("/anyOf/0", Schema{Types: []string{"string"}}),
			at("/anyOf/1", Schema{Types: []string{"null"}}),
		}})},
		{"oneOf", `{"oneOf":[{"const":1},{"const":2}]}`, at("", Schema{OneOf: []*Schema{
			at("/oneOf/0", Schema{Const: int64(1), HasConst: true}),
			at("/oneOf/1", Schema{Const: int64(2), HasConst: true}),
		}})},
		{"allOf", `{"allOf":[{"minLength":1},true]}`, at("", Schema{AllOf: []*Schema{
			at("/allOf/0", Schema{MinLength: ptr(1)}),
			boolSchema("/allOf/1", true),
		}})},
		{"minimum and maximum", `{"minimum":-3,"maximum":1e3}`, at("", Schema{Minimum: ptr(-3.0), Maximum: ptr(1000.0)})},
		{"exclusive bounds", `{"exclusiveMinimum":0.5,"exclusiveMaximum":7}`, at("", Schema{ExclusiveMinimum: ptr(0.5), ExclusiveMaximum: ptr(7.0)})},
		{"string lengths", `{"minLength":0,"maxLength":64}`, at("", Schema{MinLength: ptr(0), MaxLength: ptr(64)})},
		{"item counts", `{"minItems":1,"maxItems":2}`, at("", Schema{MinItems: ptr(1), MaxItems: ptr(2)})},
		{"counts with a zero fraction are integers", `{"minLength":2.0,"maxItems":1e1}`, at("", Schema{MinLength: ptr(2), MaxItems: ptr(10)})},
		{"format", `{"format":"date-time"}`, at("", Schema{Format: "date-time"})},
		{"description and title", `{"title":"T","description":"about T"}`, at("", Schema{Title: "T", Description: "about T"})},
		{"annotations are dropped", `{"deprecated":true,"readOnly":true,"writeOnly":false,"examples":[1],"$comment":"c"}`, at("", Schema{})},
		{"unread keywords kept sorted in Other", `{"pattern":"^a","not":{},"if":{},"then":{},"else":{},"uniqueItems":true}`, at("", Schema{
			Other: []string{"else", "if", "not", "pattern", "then", "uniqueItems"},
		})},
		{"object keywords it does not lower", `{"patternProperties":{"^x":{}},"propertyNames":{},"dependentRequired":{"a":["b"]},"unevaluatedProperties":false}`, at("", Schema{
			Other: []string{"dependentRequired", "patternProperties", "propertyNames", "unevaluatedProperties"},
		})},
		{"array keywords it does not lower", `{"prefixItems":[{}],"contains":{},"minContains":1}`, at("", Schema{
			Other: []string{"contains", "minContains", "prefixItems"},
		})},
		{"$ref with siblings", `{"$ref":"#/$defs/T","description":"self","minItems":1}`, at("", Schema{Ref: "#/$defs/T", RefName: "T", Description: "self", MinItems: ptr(1)})},
		{"boolean false schema", `false`, boolSchema("", false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Compared as JSON, which leaves out the text kept for
			// Canonical.
			g, _ := json.Marshal(parseDef(t, tt.def))
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Errorf("%s parsed as\n%s\nwant\n%s", tt.def, g, w)
			}
		})
	}
}

// TestDialects checks the $schema spellings each dialect is known by and
// where each keeps its definitions.
func TestDialects(t *testing.T) {
	tests := []struct {
		name, doc string
		want      Dialect
	}{
		{"draft-07 with #", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"T":{}}}`, Draft07},
		{"draft-07 without #", `{"$schema":"http://json-schema.org/draft-07/schema","definitions":{"T":{}}}`, Draft07},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"T":{}}}`, Draft2020},
		{"2020-12 with #", `{"$schema":"https://json-schema.org/draft/2020-12/schema#","$defs":{"T":{}}}`, Draft2020},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("t.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Dialect != tt.want || doc.File != "t.json" {
				t.Errorf("dialect %v file %q, want %v t.json", doc.Dialect, doc.File, tt.want)
			}
			def, ok := doc.Lookup("T")
			if !ok || def.Schema.Pointer != "/"+map[Dialect]string{Draft07: "definitions", Draft2020: "$defs"}[tt.want]+"/T" {
				t.Errorf("Lookup(T) = %+v, %v", def, ok)
			}
			if _, ok := doc.Lookup("U"); ok {
				t.Error("Lookup(U) found a definition the document lacks")
			}
		})
	}
}

// TestReferences covers the $ref forms the reader resolves and the ones it
// refuses, in both dialects, with the exact error text and position.
func TestReferences(t *testing.T) {
	tests := []struct {
		name, doc string
		refName   string // of definition A, when the document parses
		err       string // the whole error text, when it does not
	}{
		{"2020-12 reference", head2020 + `"A":{"$ref":"#/$defs/B"},"B":{}}}`, "B", ""},
		{"draft-07 reference", head07 + `"A":{"$ref":"#/definitions/B"},"B":{}}}`, "B", ""},
		{"escaped name", head2020 + `"A":{"$ref":"#/$defs/a~0b~1c"},"a~b/c":{}}}`, "a~b/c", ""},
		{"recursive through properties is not a cycle", head2020 + `"A":{"type":"object","properties":{"next":{"$ref":"#/$defs/A"}}}}}`, "", ""},
		{"network reference", head2020 + `"A":{"$ref":"https://example.com/s.json#/$defs/B"}}}`, "",
			`t.json#/$defs/A/$ref: reference "https://example.com/s.json#/$defs/B" leaves the document: mcpgen resolves only #/$defs/... references and never fetches`},
		{"file reference", head07 + `"A":{"$ref":"other.json"}}}`, "",
			`t.json#/definitions/A/$ref: reference "other.json" leaves the document: mcpgen resolves only #/definitions/... references and never fetches`},
		{"draft-07 pointer in a 2020-12 document", head2020 + `"A":{"$ref":"#/definitions/B"},"B":{}}}`, "",
			`t.json#/$defs/A/$ref: reference "#/definitions/B" does not name a definition: mcpgen resolves #/$defs/NAME`},
		{"anchor", head2020 + `"A":{"$ref":"#B"},"B":{"$anchor":"B"}}}`, "",
			`t.json#/$defs/A/$ref: reference "#B" does not name a definition: mcpgen resolves #/$defs/NAME`},
		{"unknown name in a nested node", head2020 + `"A":{"items":{"$ref":"#/$defs/Gone"}}}}`, "",
			`t.json#/$defs/A/items/$ref: reference "#/$defs/Gone" names no definition`},
		{"self reference", head2020 + `"A":{"$ref":"#/$defs/A"}}}`, "",
			`t.json#/$defs/A: cyclic reference: A refers to itself through $ref alone`},
		{"cycle through descriptions", head07 + `"A":{"$ref":"#/definitions/B","description":"a"},"B":{"$ref":"#/definitions/A","title":"b"}}}`, "",
			`t.json#/definitions/A: cyclic reference: A refers to itself through $ref alone`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("t.json", []byte(tt.doc))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Parse error = %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a, _ := doc.Lookup("A")
			if a.Schema.RefName != tt.refName {
				t.Errorf("RefName = %q, want %q", a.Schema.RefName, tt.refName)
			}
			if a.Schema.IsAny() {
				t.Error("a reference counts as accepting any value")
			}
		})
	}
}

// TestReaderRefusals covers the documents the reader itself refuses (after
// the metaschema has passed them), each with its pointer and message.
func TestReaderRefusals(t *testing.T) {
	tests := []struct {
		name, doc, pointer, msg string
	}{
		{"duplicate key", head2020 + `"A":{"type":"string","type":"integer"}}}`, "", `malformed JSON: duplicate key "type"`},
		{"data after the document", head2020 + `"A":{}}} {}`, "", "malformed JSON: unexpected data after the document"},
		{"$defs in a draft-07 document", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{},"$defs":{}}`, "/$defs", `draft-07 documents keep definitions in "definitions"`},
		{"no definitions in draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, "/definitions", "no definitions"},
		{"unsupported 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{}}`, "/$schema", "unsupported dialect https://json-schema.org/draft/2019-09/schema: mcpgen reads draft-07 and 2020-12"},
		{"tuple items in a nested node", head07 + `"A":{"properties":{"p":{"items":[{},{}]}}}}}`, "/definitions/A/properties/p/items", "tuple-form items is not supported: mcpgen lowers arrays of one element type"},
		{"bound out of float range", head2020 + `"A":{"maximum":1e400}}}`, "/$defs/A/maximum", "maximum: "},
		{"negative length by the metaschema", head2020 + `"A":{"maxItems":-2}}}`, "/$defs/A/maxItems", "not a valid schema"},
		{"type not a name by the metaschema", head2020 + `"A":{"type":"text"}}}`, "/$defs/A/type", "not a valid schema"},
		{"draft-04 boolean exclusiveMinimum by the metaschema", head07 + `"A":{"minimum":1,"exclusiveMinimum":true}}}`, "/definitions/A/exclusiveMinimum", "not a valid schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.json", []byte(tt.doc))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, want a *schema.Error", err)
			}
			if se.File != "t.json" || se.Pointer != tt.pointer || !strings.HasPrefix(se.Msg, tt.msg) {
				t.Errorf("Parse = %q (pointer %q), want pointer %q and a message starting %q", err, se.Pointer, tt.pointer, tt.msg)
			}
		})
	}
}

// TestIsAny checks the nodes that accept every value and a few that only
// look as if they do.
func TestIsAny(t *testing.T) {
	tests := []struct {
		name string
		def  string
		want bool
	}{
		{"empty object", `{}`, true},
		{"true", `true`, true},
		{"false", `false`, false},
		{"annotations only", `{"description":"d","title":"t","deprecated":true}`, true},
		{"format", `{"format":"email"}`, false},
		{"an unread keyword", `{"not":{}}`, false},
		{"const null", `{"const":null}`, false},
		{"maxItems", `{"maxItems":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseDef(t, tt.def).IsAny(); got != tt.want {
				t.Errorf("IsAny(%s) = %v, want %v", tt.def, got, tt.want)
			}
		})
	}
	var nilSchema *Schema
	if nilSchema.IsAny() {
		t.Error("a nil schema is any")
	}
}
