package mcpheader

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParams(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []Param
	}{
		{
			name: "spec example",
			schema: `{"type": "object", "properties": {
				"region": {"type": "string", "description": "The region", "x-mcp-header": "Region"},
				"query": {"type": "string"}}, "required": ["region", "query"]}`,
			want: []Param{{Path: []string{"region"}, Name: "Region", Type: "string"}},
		},
		{
			name:   "no annotations",
			schema: `{"type": "object", "properties": {"a": {"type": "string"}}}`,
			want:   nil,
		},
		{
			name:   "empty object schema",
			schema: `{}`,
			want:   nil,
		},
		{
			name: "document order and nesting",
			schema: `{"type": "object", "properties": {
				"z": {"type": "integer", "x-mcp-header": "Z-Count"},
				"target": {"type": "object", "properties": {
					"zone": {"type": "string", "x-mcp-header": "Zone"},
					"deep": {"properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}}}},
				"a": {"type": "string", "x-mcp-header": "A"}}}`,
			want: []Param{
				{Path: []string{"z"}, Name: "Z-Count", Type: "integer"},
				{Path: []string{"target", "zone"}, Name: "Zone", Type: "string"},
				{Path: []string{"target", "deep", "flag"}, Name: "Flag", Type: "boolean"},
				{Path: []string{"a"}, Name: "A", Type: "string"},
			},
		},
		{
			name:   "every tchar",
			schema: "{\"properties\": {\"a\": {\"type\": \"string\", \"x-mcp-header\": \"Az09!#$%&'*+-.^_`|~\"}}}",
			want:   []Param{{Path: []string{"a"}, Name: "Az09!#$%&'*+-.^_`|~", Type: "string"}},
		},
		{
			name: "property keys that look like keywords",
			schema: `{"properties": {
				"x-mcp-header": {"type": "string", "x-mcp-header": "Odd"},
				"items": {"properties": {"a/b~c": {"type": "string", "x-mcp-header": "Slash"}}}}}`,
			want: []Param{
				{Path: []string{"x-mcp-header"}, Name: "Odd", Type: "string"},
				{Path: []string{"items", "a/b~c"}, Name: "Slash", Type: "string"},
			},
		},
		{
			name: "data keywords are not searched",
			schema: `{"properties": {"a": {"type": "object",
				"default": {"x-mcp-header": "D"}, "const": {"x-mcp-header": "C"},
				"enum": [{"x-mcp-header": "E"}], "examples": [{"x-mcp-header": "X"}]}}}`,
			want: nil,
		},
		{
			name: "annotated property with a sibling $ref",
			schema: `{"$defs": {"R": {"minLength": 1}}, "properties": {
				"r": {"$ref": "#/$defs/R", "type": "string", "x-mcp-header": "R"}}}`,
			want: []Param{{Path: []string{"r"}, Name: "R", Type: "string"}},
		},
		{
			name: "references elsewhere do not matter",
			schema: `{"$id": "https://example.com/tool.json",
				"$defs": {"Q": {"$id": "q.json", "type": "string"}, "P": {"type": "string"}},
				"properties": {
					"q": {"$ref": "q.json"}, "p": {"$ref": "#/$defs/P"},
					"p2": {"$ref": "https://example.com/tool.json#/$defs/P"},
					"region2": {"$ref": "#/properties/region/description"},
					"region": {"type": "string", "x-mcp-header": "Region"}}}`,
			want: []Param{{Path: []string{"region"}, Name: "Region", Type: "string"}},
		},
		{
			name: "a pointer into another resource is not a pointer into the root",
			schema: `{"$defs": {"Other": {"$id": "other.json", "properties": {"region": {"type": "string"}},
					"$ref": "#/properties/region"}},
				"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}`,
			want: []Param{{Path: []string{"region"}, Name: "Region", Type: "string"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Params([]byte(tt.schema))
			if err != nil {
				t.Fatalf("Params: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Params = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParamsInvalid(t *testing.T) {
	// prop wraps an annotated property so that each case can put it
	// somewhere.
	const prop = `{"type": "string", "x-mcp-header": "H"}`
	tests := []struct {
		name    string
		schema  string
		pointer string // of the offending place
		msg     string // a part of the message
	}{
		// Placement.
		{"root", `{"type": "object", "x-mcp-header": "H"}`, "/x-mcp-header", "root is not a property"},
		{"items", `{"properties": {"a": {"type": "array", "items": ` + prop + `}}}`, "/properties/a/items/x-mcp-header", `passes through "items"`},
		{"properties under items", `{"properties": {"a": {"items": {"properties": {"b": ` + prop + `}}}}}`, "/properties/a/items/properties/b/x-mcp-header", `passes through "items"`},
		{"draft-07 items list", `{"properties": {"a": {"items": [{}, ` + prop + `]}}}`, "/properties/a/items/1/x-mcp-header", `"items"`},
		{"prefixItems", `{"properties": {"a": {"prefixItems": [` + prop + `]}}}`, "/properties/a/prefixItems/0/x-mcp-header", `"prefixItems"`},
		{"additionalItems", `{"properties": {"a": {"additionalItems": ` + prop + `}}}`, "/properties/a/additionalItems/x-mcp-header", `"additionalItems"`},
		{"contains", `{"properties": {"a": {"contains": ` + prop + `}}}`, "/properties/a/contains/x-mcp-header", `"contains"`},
		{"additionalProperties", `{"additionalProperties": ` + prop + `}`, "/additionalProperties/x-mcp-header", `"additionalProperties"`},
		{"unevaluatedProperties", `{"unevaluatedProperties": ` + prop + `}`, "/unevaluatedProperties/x-mcp-header", `"unevaluatedProperties"`},
		{"patternProperties", `{"patternProperties": {"^a": ` + prop + `}}`, "/patternProperties/^a/x-mcp-header", `"patternProperties"`},
		{"propertyNames", `{"propertyNames": ` + prop + `}`, "/propertyNames/x-mcp-header", `"propertyNames"`},
		{"anyOf", `{"anyOf": [{"properties": {"a": ` + prop + `}}]}`, "/anyOf/0/properties/a/x-mcp-header", `"anyOf"`},
		{"oneOf", `{"properties": {"a": {"oneOf": [` + prop + `]}}}`, "/properties/a/oneOf/0/x-mcp-header", `"oneOf"`},
		{"allOf", `{"allOf": [{"properties": {"a": ` + prop + `}}]}`, "/allOf/0/properties/a/x-mcp-header", `"allOf"`},
		{"not", `{"properties": {"a": {"not": ` + prop + `}}}`, "/properties/a/not/x-mcp-header", `"not"`},
		{"if", `{"if": {"properties": {"a": ` + prop + `}}}`, "/if/properties/a/x-mcp-header", `"if"`},
		{"then", `{"then": {"properties": {"a": ` + prop + `}}}`, "/then/properties/a/x-mcp-header", `"then"`},
		{"else", `{"else": {"properties": {"a": ` + prop + `}}}`, "/else/properties/a/x-mcp-header", `"else"`},
		{"$defs", `{"$defs": {"A": ` + prop + `}, "properties": {"a": {"$ref": "#/$defs/A"}}}`, "/$defs/A/x-mcp-header", `"$defs"`},
		{"definitions", `{"definitions": {"A": ` + prop + `}}`, "/definitions/A/x-mcp-header", `"definitions"`},
		{"dependentSchemas", `{"dependentSchemas": {"a": {"properties": {"b": ` + prop + `}}}}`, "/dependentSchemas/a/properties/b/x-mcp-header", `"dependentSchemas"`},
		{"dependencies", `{"dependencies": {"a": {"properties": {"b": ` + prop + `}}}}`, "/dependencies/a/properties/b/x-mcp-header", `"dependencies"`},
		{"unknown keyword", `{"x-extra": {"deep": [{"x-mcp-header": "H"}]}}`, "/x-extra/deep/0/x-mcp-header", `"x-extra" is not a keyword whose value is a schema`},
		{"malformed properties", `{"properties": [` + prop + `]}`, "/properties/0/x-mcp-header", `"properties"`},
		{"first misplaced wins", `{"properties": {"a": {"items": ` + prop + `}, "b": {"not": ` + prop + `}}}`, "/properties/a/items/x-mcp-header", `"items"`},

		// Properties that a reference also reaches.
		{"$ref to the property", `{"properties": {"a": ` + prop + `, "b": {"$ref": "#/properties/a"}}}`, "/properties/a/x-mcp-header", `reference at "/properties/b/$ref"`},
		{"$ref to a parent", `{"properties": {"o": {"properties": {"a": ` + prop + `}}, "b": {"$ref": "#/properties/o"}}}`, "/properties/o/properties/a/x-mcp-header", `"/properties/b/$ref"`},
		{"$ref to the root", `{"properties": {"a": ` + prop + `, "child": {"$ref": "#"}}}`, "/properties/a/x-mcp-header", `"/properties/child/$ref"`},
		{"$ref to the root by $id", `{"$id": "https://example.com/t.json", "properties": {"a": ` + prop + `, "child": {"$ref": "t.json"}}}`, "/properties/a/x-mcp-header", `"/properties/child/$ref"`},
		{"percent-encoded pointer", `{"properties": {"a b": ` + prop + `, "c": {"$ref": "#/properties/a%20b"}}}`, "/properties/a b/x-mcp-header", `"/properties/c/$ref"`},
		{"$ref by $anchor", `{"properties": {"a": {"$anchor": "A", "type": "string", "x-mcp-header": "H"}, "b": {"$ref": "#A"}}}`, "/properties/a/x-mcp-header", `"/properties/b/$ref"`},
		{"$ref by draft-07 $id anchor", `{"properties": {"a": {"$id": "#A", "type": "string", "x-mcp-header": "H"}}, "items": {"$ref": "#A"}}`, "/properties/a/x-mcp-header", `"/items/$ref"`},
		{"$ref by property $id", `{"properties": {"a": {"$id": "a.json", "type": "string", "x-mcp-header": "H"}}, "$defs": {"B": {"$ref": "a.json"}}}`, "/properties/a/x-mcp-header", `"/$defs/B/$ref"`},
		{"$ref by pointer into a property resource", `{"properties": {"o": {"$id": "o.json", "properties": {"a": ` + prop + `}}}, "not": {"$ref": "o.json#/properties/a"}}`, "/properties/o/properties/a/x-mcp-header", `"/not/$ref"`},
		{"$ref from inside the property", `{"properties": {"a": {"type": "string", "x-mcp-header": "H", "$ref": "#/properties/a"}}}`, "/properties/a/x-mcp-header", `"/properties/a/$ref"`},
		{"$dynamicRef", `{"properties": {"a": {"$dynamicAnchor": "node", "properties": {"b": ` + prop + `}}}, "$defs": {"X": {"$id": "x.json", "$dynamicRef": "#node"}}}`, "/properties/a/properties/b/x-mcp-header", `"/$defs/X/$dynamicRef"`},

		// The annotation's value.
		{"empty name", `{"properties": {"a": {"type": "string", "x-mcp-header": ""}}}`, "/properties/a/x-mcp-header", "must not be empty"},
		{"space", `{"properties": {"a": {"type": "string", "x-mcp-header": "My Region"}}}`, "/properties/a/x-mcp-header", `' ' at offset 2`},
		{"colon", `{"properties": {"a": {"type": "string", "x-mcp-header": "Region:"}}}`, "/properties/a/x-mcp-header", `':' at offset 6`},
		{"CR LF", `{"properties": {"a": {"type": "string", "x-mcp-header": "A\r\nX-Evil: 1"}}}`, "/properties/a/x-mcp-header", "control character 0x0d at offset 1"},
		{"LF", `{"properties": {"a": {"type": "string", "x-mcp-header": "A\nB"}}}`, "/properties/a/x-mcp-header", "control character 0x0a"},
		{"tab", `{"properties": {"a": {"type": "string", "x-mcp-header": "A\tB"}}}`, "/properties/a/x-mcp-header", "control character 0x09"},
		{"NUL", `{"properties": {"a": {"type": "string", "x-mcp-header": "A\u0000"}}}`, "/properties/a/x-mcp-header", "control character 0x00"},
		{"DEL", `{"properties": {"a": {"type": "string", "x-mcp-header": "A\u007f"}}}`, "/properties/a/x-mcp-header", "control character 0x7f"},
		{"separator", `{"properties": {"a": {"type": "string", "x-mcp-header": "a/b"}}}`, "/properties/a/x-mcp-header", `'/' at offset 1`},
		{"quote", `{"properties": {"a": {"type": "string", "x-mcp-header": "a\"b"}}}`, "/properties/a/x-mcp-header", `'"' at offset 1`},
		{"non-ASCII", `{"properties": {"a": {"type": "string", "x-mcp-header": "Régión"}}}`, "/properties/a/x-mcp-header", "byte 0xc3 at offset 1"},
		{"not a string", `{"properties": {"a": {"type": "string", "x-mcp-header": 7}}}`, "/properties/a/x-mcp-header", "must be a string, not a number"},
		{"null", `{"properties": {"a": {"type": "string", "x-mcp-header": null}}}`, "/properties/a/x-mcp-header", "must be a string, not null"},
		{"duplicate ignoring case", `{"properties": {"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "REGION"}}}`, "/properties/b/x-mcp-header", `already taken by the annotation at "/properties/a/x-mcp-header"`},
		{"duplicate exactly, nested", `{"properties": {"a": {"type": "string", "x-mcp-header": "R"}, "o": {"properties": {"b": {"type": "string", "x-mcp-header": "r"}}}}}`, "/properties/o/properties/b/x-mcp-header", "ignoring case"},

		// The property's type.
		{"number", `{"properties": {"a": {"type": "number", "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", `"number" is not allowed`},
		{"no type", `{"properties": {"a": {"x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", "declares no type"},
		{"type from $ref only", `{"$defs": {"S": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/S", "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", "declares no type"},
		{"type list", `{"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", "type is a list"},
		{"type list of one", `{"properties": {"a": {"type": ["string"], "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", "type is a list"},
		{"object", `{"properties": {"a": {"type": "object", "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", `type "object" is not allowed`},
		{"array", `{"properties": {"a": {"type": "array", "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", `type "array" is not allowed`},
		{"null type", `{"properties": {"a": {"type": "null", "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", `type "null" is not allowed`},
		{"type not a string", `{"properties": {"a": {"type": 1, "x-mcp-header": "H"}}}`, "/properties/a/x-mcp-header", "type is a number"},

		// The document.
		{"array schema", `[]`, "", "must be a JSON object, not an array"},
		{"boolean schema", `true`, "", "must be a JSON object, not a boolean"},
		{"null schema", `null`, "", "must be a JSON object, not null"},
		{"duplicate key", `{"properties": {"a": {"type": "string", "x-mcp-header": "A", "x-mcp-header": "B"}}}`, "/properties/a/x-mcp-header", "duplicate key"},
		{"duplicate property", `{"properties": {"a": {"type": "string"}, "a": {}}}`, "/properties/a", "duplicate key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Params([]byte(tt.schema))
			if err == nil {
				t.Fatalf("Params = %+v, want an error", got)
			}
			se, ok := errors.AsType[*SchemaError](err)
			if !ok {
				t.Fatalf("Params error %v (%T), want a *SchemaError", err, err)
			}
			if se.Pointer != tt.pointer {
				t.Errorf("Pointer = %q, want %q (error: %v)", se.Pointer, tt.pointer, err)
			}
			if !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", se.Msg, tt.msg)
			}
			if got != nil {
				t.Errorf("Params returned %+v along with the error", got)
			}
		})
	}
}

func TestParamsSyntaxError(t *testing.T) {
	for _, schema := range []string{``, `{`, `{"properties": {"a": }}`, `{} {}`, `{"a": 01}`} {
		_, err := Params([]byte(schema))
		if err == nil {
			t.Errorf("Params(%q) succeeded, want an error", schema)
			continue
		}
		if !strings.HasPrefix(err.Error(), "inputSchema: json: ") || !strings.Contains(err.Error(), "offset") {
			t.Errorf("Params(%q) error %q, want a JSON syntax error with its offset", schema, err)
		}
	}
}

func TestSchemaErrorText(t *testing.T) {
	_, err := Params([]byte(`{"properties": {"region": {"type": "number", "x-mcp-header": "Region"}}}`))
	const want = `inputSchema at "/properties/region/x-mcp-header": type "number" is not allowed, as a header cannot carry every number faithfully; use "integer" or "string"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	if got := (&SchemaError{Msg: "must be a JSON object, not null"}).Error(); got != "inputSchema: must be a JSON object, not null" {
		t.Errorf("root error = %q", got)
	}
}

func TestParamHeader(t *testing.T) {
	if got := (Param{Name: "TenantID"}).Header(); got != "Mcp-Param-TenantID" {
		t.Errorf("Header() = %q, want Mcp-Param-TenantID", got)
	}
}

// TestParamsPathIsOwned checks that the paths of sibling parameters do not
// share a backing array, which appending to a shared parent path would
// cause.
func TestParamsPathIsOwned(t *testing.T) {
	got, err := Params([]byte(`{"properties": {"o": {"properties": {
		"a": {"type": "string", "x-mcp-header": "A"},
		"b": {"type": "string", "x-mcp-header": "B"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got[0].Path[1] = "changed"
	if got[1].Path[1] != "b" {
		t.Errorf("second path = %q after changing the first", got[1].Path)
	}
}
