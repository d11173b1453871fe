package schema

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const (
	head2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{`
	head07   = `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{`
)

// parseDef parses a 2020-12 document whose one definition "T" is def.
func parseDef(t *testing.T, def string) *Schema {
	t.Helper()
	doc, err := Parse("t.json", []byte(head2020+`"T":`+def+`}}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	d, ok := doc.Lookup("T")
	if !ok {
		t.Fatal("no definition T")
	}
	return d.Schema
}

func ptr[T any](v T) *T { return &v }

// Each keyword the generator reads lands in its field.
func TestKeywords(t *testing.T) {
	tests := []struct {
		name  string
		def   string
		check func(*Schema) bool
	}{
		{"type string", `{"type":"string"}`, func(s *Schema) bool { return slices.Equal(s.Types, []string{"string"}) }},
		{"type array", `{"type":["string","null"]}`, func(s *Schema) bool { return slices.Equal(s.Types, []string{"string", "null"}) }},
		{"description and title", `{"description":"d","title":"t"}`, func(s *Schema) bool { return s.Description == "d" && s.Title == "t" }},
		{"format", `{"type":"string","format":"uri"}`, func(s *Schema) bool { return s.Format == "uri" }},
		{"properties in document order", `{"properties":{"z":{},"a":{},"m":{}}}`, func(s *Schema) bool {
			var names []string
			for _, p := range s.Properties {
				names = append(names, p.Name)
			}
			return slices.Equal(names, []string{"z", "a", "m"})
		}},
		{"required", `{"required":["a","b"]}`, func(s *Schema) bool { return slices.Equal(s.Required, []string{"a", "b"}) }},
		{"additionalProperties false", `{"additionalProperties":false}`, func(s *Schema) bool {
			return s.AdditionalProperties != nil && s.AdditionalProperties.Bool != nil && !*s.AdditionalProperties.Bool
		}},
		{"additionalProperties schema", `{"additionalProperties":{"type":"integer"}}`, func(s *Schema) bool {
			return s.AdditionalProperties != nil && slices.Equal(s.AdditionalProperties.Types, []string{"integer"})
		}},
		{"items", `{"type":"array","items":{"type":"number"}}`, func(s *Schema) bool { return s.Items != nil && s.Items.Types[0] == "number" }},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, func(s *Schema) bool { return len(s.AnyOf) == 2 }},
		{"oneOf", `{"oneOf":[{"type":"string"}]}`, func(s *Schema) bool { return len(s.OneOf) == 1 }},
		{"allOf", `{"allOf":[{},{}]}`, func(s *Schema) bool { return len(s.AllOf) == 2 }},
		{"enum", `{"enum":["a",1,null]}`, func(s *Schema) bool { return len(s.Enum) == 3 && s.Enum[0] == "a" && s.Enum[2] == nil }},
		{"const", `{"const":"x"}`, func(s *Schema) bool { return s.HasConst && s.Const == "x" }},
		{"const null", `{"const":null}`, func(s *Schema) bool { return s.HasConst && s.Const == nil }},
		{"default", `{"default":{"b":1,"a":[true]}}`, func(s *Schema) bool { return string(s.Default) == `{"a":[true],"b":1}` }},
		{"numeric bounds", `{"minimum":1,"maximum":9.5,"exclusiveMinimum":0,"exclusiveMaximum":10}`, func(s *Schema) bool {
			return *s.Minimum == 1 && *s.Maximum == 9.5 && *s.ExclusiveMinimum == 0 && *s.ExclusiveMaximum == 10
		}},
		{"length and item bounds", `{"minLength":1,"maxLength":5,"minItems":0,"maxItems":3}`, func(s *Schema) bool {
			return *s.MinLength == 1 && *s.MaxLength == 5 && *s.MinItems == 0 && *s.MaxItems == 3
		}},
		{"keywords it does not read", `{"pattern":"^a","uniqueItems":true,"$comment":"c"}`, func(s *Schema) bool {
			return slices.Contains(s.Other, "pattern") && slices.Contains(s.Other, "uniqueItems")
		}},
		{"boolean schema", `true`, func(s *Schema) bool { return s.Bool != nil && *s.Bool && s.IsAny() }},
		{"empty schema is any", `{}`, func(s *Schema) bool { return s.IsAny() }},
		{"a constraint is not any", `{"minLength":1}`, func(s *Schema) bool { return !s.IsAny() }},
		{"pointer", `{"properties":{"a/b~c":{}}}`, func(s *Schema) bool { return s.Properties[0].Schema.Pointer == "/$defs/T/properties/a~1b~0c" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := parseDef(t, tt.def); !tt.check(s) {
				t.Errorf("%s parsed as %+v", tt.def, s)
			}
		})
	}
}

// References resolve to the definition they name, in either dialect.
func TestRefs(t *testing.T) {
	doc, err := Parse("t.json", []byte(head2020+`"A":{"$ref":"#/$defs/B~1C"},"B/C":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := doc.Lookup("A"); a.Schema.RefName != "B/C" {
		t.Errorf("RefName = %q, want B/C", a.Schema.RefName)
	}
	doc, err = Parse("t.json", []byte(head07+`"A":{"$ref":"#/definitions/B"},"B":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Dialect != Draft07 {
		t.Errorf("dialect %v, want draft-07", doc.Dialect)
	}
	if a, _ := doc.Lookup("A"); a.Schema.RefName != "B" {
		t.Errorf("RefName = %q, want B", a.Schema.RefName)
	}
	var names []string
	for _, d := range doc.Defs {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"A", "B"}) {
		t.Errorf("definitions in order %v", names)
	}
}

// Documents mcpgen cannot read are refused with the pointer of the
// problem and what to do.
func TestRefused(t *testing.T) {
	tests := []struct {
		name, doc, pointer, msg string
	}{
		{"malformed JSON", `{"$schema":`, "", "malformed JSON"},
		{"not an object", `[]`, "", "must be a JSON object"},
		{"no $schema", `{"$defs":{}}`, "/$schema", "missing $schema"},
		{"unknown dialect", `{"$schema":"http://json-schema.org/draft-04/schema#","definitions":{}}`, "/$schema", "unsupported dialect"},
		{"definitions in a 2020-12 document", `{"$schema":"https://json-schema.org/draft/2020-12/schema","definitions":{},"$defs":{}}`, "/definitions", `keep definitions in "$defs"`},
		{"no definitions", `{"$schema":"https://json-schema.org/draft/2020-12/schema"}`, "/$defs", "no definitions"},
		{"reference out of the document", head2020 + `"A":{"$ref":"other.json#/$defs/B"}}}`, "/$defs/A/$ref", "leaves the document"},
		{"reference to no definition", head2020 + `"A":{"$ref":"#/$defs/B/properties/x"}}}`, "/$defs/A/$ref", "does not name a definition"},
		{"reference to an unknown name", head2020 + `"A":{"$ref":"#/$defs/Nope"}}}`, "/$defs/A/$ref", "names no definition"},
		{"cyclic reference", head2020 + `"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`, "/$defs/A", "cyclic reference"},
		{"tuple items", head07 + `"A":{"items":[{}]}}}`, "/definitions/A/items", "tuple-form items is not supported"},
		{"against the metaschema", head2020 + `"A":{"minLength":-1}}}`, "/$defs/A/minLength", "not a valid schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.json", []byte(tt.doc))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, want a *schema.Error", err)
			}
			if se.File != "t.json" || !strings.HasPrefix(se.Pointer, tt.pointer) || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse = %q (pointer %q), want pointer %q and %q", err, se.Pointer, tt.pointer, tt.msg)
			}
		})
	}
}
