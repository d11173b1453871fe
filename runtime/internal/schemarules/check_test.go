package schemarules

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   Dialect
	}{
		{"no $schema", `{"type": "object"}`, Draft2020},
		{"empty object", `{}`, Draft2020},
		{"numbers beyond float64", `{"maximum": 1e400, "minimum": -1e400, "multipleOf": 0.1}`, Draft2020},
		{"2020-12", `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, Draft2020},
		{"2020-12 with #", `{"$schema": "https://json-schema.org/draft/2020-12/schema#"}`, Draft2020},
		{"draft-07", `{"$schema": "http://json-schema.org/draft-07/schema"}`, Draft7},
		{"draft-07 with #", `{"$schema": "http://json-schema.org/draft-07/schema#"}`, Draft7},
		{"draft-07 https", `{"$schema": "https://json-schema.org/draft-07/schema#"}`, Draft7},
		{"draft-07 https without #", `{"$schema": "https://json-schema.org/draft-07/schema"}`, Draft7},
		{"subschema repeats the dialect", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"properties": {"a": {"$schema": "https://json-schema.org/draft-07/schema"}}}`, Draft7},
		{"subschema names the default", `{"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}}`, Draft2020},
		{"spec example, 2020-12", `{"type": "object", "properties": {"name": {"type": "string"},
			"age": {"type": "integer", "minimum": 0}}, "required": ["name"]}`, Draft2020},

		// References that resolve inside the document.
		{"ref to the root", `{"properties": {"child": {"$ref": "#"}}}`, Draft2020},
		{"empty ref", `{"properties": {"child": {"$ref": ""}}}`, Draft2020},
		{"ref to $defs", `{"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/A"}}}`, Draft2020},
		{"ref to definitions, draft-07", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"A": true}, "items": {"$ref": "#/definitions/A"}}`, Draft7},
		{"ref to an array element", `{"anyOf": [{}, {"type": "string"}], "not": {"$ref": "#/anyOf/1"}}`, Draft2020},
		{"ref with escapes", `{"$defs": {"a/b": {}, "c~d": {}, "e f": {}}, "allOf": [
			{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/c~0d"}, {"$ref": "#/$defs/e%20f"}]}`, Draft2020},
		{"ref to a boolean schema", `{"$defs": {"no": false}, "not": {"$ref": "#/$defs/no"}}`, Draft2020},
		{"ref by anchor", `{"$defs": {"A": {"$anchor": "item"}}, "items": {"$ref": "#item"}}`, Draft2020},
		{"ref by draft-07 $id anchor", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"A": {"$id": "#item"}}, "items": {"$ref": "#item"}}`, Draft7},
		{"ref to a $id", `{"$defs": {"A": {"$id": "item.json", "type": "string"}}, "items": {"$ref": "item.json"}}`, Draft2020},
		{"ref to a $id with a pointer", `{"$defs": {"A": {"$id": "item.json", "$defs": {"B": {}}}},
			"items": {"$ref": "item.json#/$defs/B"}}`, Draft2020},
		{"ref to a $id with an anchor", `{"$defs": {"A": {"$id": "item.json", "$defs": {"B": {"$anchor": "b"}}}},
			"items": {"$ref": "item.json#b"}}`, Draft2020},
		{"absolute $id and refs", `{"$id": "https://example.com/schemas/tool.json",
			"$defs": {"A": {"$id": "parts/a.json", "$defs": {"B": {"$id": "b.json"}}}},
			"properties": {"a": {"$ref": "https://example.com/schemas/parts/a.json"},
				"b": {"$ref": "parts/b.json"}, "self": {"$ref": "tool.json#/properties/a"}}}`, Draft2020},
		{"relative ref within a nested resource", `{"$defs": {"A": {"$id": "dir/a.json", "$defs": {"x": {}},
			"items": {"$ref": "#/$defs/x"}}, "B": {"$id": "dir/b.json", "not": {"$ref": "a.json"}}}}`, Draft2020},
		{"urn $id", `{"$id": "urn:example:tool", "properties": {"a": {"$ref": "urn:example:tool#/properties/b"}, "b": {}}}`, Draft2020},
		{"$dynamicRef", `{"$dynamicAnchor": "node", "properties": {"children": {"items": {"$dynamicRef": "#node"}}}}`, Draft2020},
		{"draft-07 $ref makes a sibling $id ignored", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"A": {"$id": "a.json", "$ref": "#/definitions/B"}, "B": {}}}`, Draft7},

		// Values in which $ref means nothing.
		{"data keywords", `{"const": {"$ref": "https://example.com"}, "default": {"$ref": "x.json"},
			"enum": [{"$ref": "#/nowhere"}], "examples": [{"$schema": "x"}]}`, Draft2020},
		{"unknown keyword", `{"x-extra": {"$ref": "https://example.com/x"}}`, Draft2020},
		{"property named $ref", `{"properties": {"$ref": {"type": "string"}, "$schema": {}}}`, Draft2020},
		{"property dependencies", `{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"$ref": "#"}}}`, Draft7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check([]byte(tt.schema), Limits{})
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got != tt.want {
				t.Errorf("Check = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheckInvalid(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		pointer string
		msg     string // a part of the message
	}{
		// Dialects.
		{"draft-04", `{"$schema": "http://json-schema.org/draft-04/schema#"}`, "/$schema", "asks for JSON Schema draft-04, which is not supported"},
		{"draft-06", `{"$schema": "https://json-schema.org/draft-06/schema"}`, "/$schema", "draft-06"},
		{"2019-09", `{"$schema": "https://json-schema.org/draft/2019-09/schema"}`, "/$schema", "2019-09"},
		{"2020-12 over http", `{"$schema": "http://json-schema.org/draft/2020-12/schema"}`, "/$schema", "2020-12 over http"},
		{"random URL", `{"$schema": "https://example.com/my-meta"}`, "/$schema", `"https://example.com/my-meta" is not a supported dialect; use JSON Schema 2020-12`},
		{"supported ones are named", `{"$schema": ""}`, "/$schema", `or draft-07 ("http://json-schema.org/draft-07/schema#")`},
		{"draft-07 with a pointer fragment", `{"$schema": "http://json-schema.org/draft-07/schema#/definitions"}`, "/$schema", "not a supported dialect"},
		{"not a string", `{"$schema": 7}`, "/$schema", "must be a string, not a number"},
		{"subschema switches dialect", `{"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}`, "/properties/a/$schema", "names draft-07, but the schema is 2020-12"},
		{"subschema unknown dialect", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"$schema": "http://json-schema.org/draft-04/schema#"}}`, "/items/$schema", "draft-04"},

		// The document.
		{"array", `[]`, "", "must be a JSON object, not an array"},
		{"boolean", `true`, "", "must be a JSON object, not a boolean"},
		{"null", `null`, "", "must be a JSON object, not null"},
		{"string", `"{}"`, "", "must be a JSON object, not a string"},

		// References out of the document.
		{"https ref", `{"properties": {"a": {"$ref": "https://example.com/a.json"}}}`, "/properties/a/$ref", "refers to a network URI; remote schemas are never fetched"},
		{"http ref at depth", `{"properties": {"a": {"items": {"anyOf": [{}, {"properties": {"b": {"$ref": "http://example.com/b.json#/x"}}}]}}}}`,
			"/properties/a/items/anyOf/1/properties/b/$ref", "network URI"},
		{"network-path ref", `{"not": {"$ref": "//example.com/a.json"}}`, "/not/$ref", "refers to a network location"},
		{"relative ref under an https $id", `{"$id": "https://example.com/tool.json", "items": {"$ref": "defs.json"}}`, "/items/$ref", `network URI; remote schemas are never fetched, so a schema that needs one is refused (it resolves to "https://example.com/defs.json")`},
		{"relative file ref", `{"items": {"$ref": "defs.json#/$defs/A"}}`, "/items/$ref", "refers to another document"},
		{"parent directory ref", `{"items": {"$ref": "../shared/a.json"}}`, "/items/$ref", "refers to another document"},
		{"absolute path ref", `{"items": {"$ref": "/etc/passwd"}}`, "/items/$ref", "refers to another document"},
		{"file ref", `{"items": {"$ref": "file:///etc/schema.json"}}`, "/items/$ref", "refers to a resource outside this schema"},
		{"urn ref", `{"items": {"$ref": "urn:example:other"}}`, "/items/$ref", "outside this schema"},
		{"$dynamicRef out", `{"items": {"$dynamicRef": "https://json-schema.org/draft/2020-12/schema#meta"}}`, "/items/$dynamicRef", "network URI"},
		{"meta-schema ref", `{"properties": {"s": {"$ref": "http://json-schema.org/draft-07/schema#"}}}`, "/properties/s/$ref", "network URI"},
		{"ref to a sibling resource by the wrong path", `{"$defs": {"A": {"$id": "dir/a.json"}}, "items": {"$ref": "a.json"}}`, "/items/$ref", "another document"},
		{"draft-07 sibling $id does not count", `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"A": {"$id": "a.json", "$ref": "#/definitions/B"}, "B": {}}, "items": {"$ref": "a.json"}}`, "/items/$ref", "another document"},

		// References inside the document that lead nowhere.
		{"dangling pointer", `{"items": {"$ref": "#/$defs/Missing"}}`, "/items/$ref", `does not resolve: there is no member "$defs"`},
		{"pointer to a string", `{"description": "d", "items": {"$ref": "#/description"}}`, "/items/$ref", "leads to a string, not to a schema"},
		{"pointer past a leaf", `{"description": "d", "items": {"$ref": "#/description/x"}}`, "/items/$ref", `"x" steps into a string`},
		{"bad array index", `{"anyOf": [{}], "items": {"$ref": "#/anyOf/01"}}`, "/items/$ref", `"01" is not an index of an array of 1`},
		{"index out of range", `{"anyOf": [{}], "items": {"$ref": "#/anyOf/1"}}`, "/items/$ref", "not an index"},
		{"bad escape", `{"$defs": {"a": {}}, "items": {"$ref": "#/$defs/~2"}}`, "/items/$ref", "not a valid JSON pointer token"},
		{"missing anchor", `{"items": {"$ref": "#nowhere"}}`, "/items/$ref", `names the anchor "nowhere", which its resource does not declare`},
		{"anchor of another resource", `{"$defs": {"A": {"$id": "a.json", "$anchor": "x"}}, "items": {"$ref": "#x"}}`, "/items/$ref", "does not declare"},
		{"pointer into the wrong resource", `{"$defs": {"A": {"$id": "a.json"}, "B": {}}, "items": {"$ref": "a.json#/$defs/B"}}`, "/items/$ref", "does not resolve"},
		{"malformed ref", `{"items": {"$ref": "%zz"}}`, "/items/$ref", "is not a URI reference"},
		{"ref not a string", `{"items": {"$ref": {"x": 1}}}`, "/items/$ref", "$ref must be a string, not an object"},

		// Declarations.
		{"duplicate $id", `{"$defs": {"A": {"$id": "a.json"}, "B": {"$id": "a.json"}}}`, "/$defs/B/$id", `names the same resource as the schema at "/$defs/A"`},
		{"duplicate anchor", `{"$defs": {"A": {"$anchor": "x"}, "B": {"$anchor": "x"}}}`, "/$defs/B/$anchor", `already declared by the schema at "/$defs/A"`},
		{"2020-12 $id with a fragment", `{"$defs": {"A": {"$id": "#a"}}}`, "/$defs/A/$id", "does not allow; declare a plain name with $anchor"},
		{"draft-07 $id with a pointer", `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"A": {"$id": "#/x"}}}`, "/definitions/A/$id", "JSON pointer fragment"},
		{"$id not a string", `{"$id": 1}`, "/$id", "$id must be a string"},
		{"$anchor not a string", `{"items": {"$anchor": null}}`, "/items/$anchor", "$anchor must be a string, not null"},
		{"malformed $id", `{"$id": "http://[::1"}`, "/$id", "is not a URI reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Check([]byte(tt.schema), Limits{})
			if err == nil {
				t.Fatalf("Check = %v, want an error", d)
			}
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Check error %v (%T), want an *Error", err, err)
			}
			if e.Pointer != tt.pointer {
				t.Errorf("Pointer = %q, want %q (error: %v)", e.Pointer, tt.pointer, err)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", e.Msg, tt.msg)
			}
			if d != 0 {
				t.Errorf("Check returned dialect %v along with the error", d)
			}
		})
	}
}

func TestCheckErrorText(t *testing.T) {
	_, err := Check([]byte(`{"properties": {"a": {"$ref": "https://example.com/a.json"}}}`), Limits{})
	const want = `schema at "/properties/a/$ref": "https://example.com/a.json" refers to a network URI; remote schemas are never fetched, so a schema that needs one is refused`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	_, err = Check([]byte(`[]`), Limits{})
	if err == nil || err.Error() != "schema: must be a JSON object, not an array" {
		t.Errorf("root error = %v", err)
	}
}

func TestCheckSyntaxError(t *testing.T) {
	for _, schema := range []string{``, `{`, `{"a": }`, `{} {}`} {
		_, err := Check([]byte(schema), Limits{})
		if err == nil || !strings.HasPrefix(err.Error(), "schema: malformed JSON at byte ") {
			t.Errorf("Check(%q) error %v, want a syntax error with its offset", schema, err)
		}
	}
}

// TestCheckFirstErrorIsStable checks that of several problems the same
// one is reported every time, though the schema is decoded into maps.
func TestCheckFirstErrorIsStable(t *testing.T) {
	schema := []byte(`{"properties": {"z": {"$ref": "https://z"}, "b": {"$ref": "https://b"}, "m": {"$ref": "https://m"}}, "allOf": [{"$ref": "https://a"}]}`)
	for range 50 {
		_, err := Check(schema, Limits{})
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Pointer != "/allOf/0/$ref" {
			t.Fatalf("error %v, want the one at /allOf/0/$ref", err)
		}
	}
}

// nested returns a schema whose deepest subschema is depth levels below
// the root, cycling through keywords of every shape.
func nested(depth int) string {
	var b strings.Builder
	var closers []string
	for i := range depth {
		switch i % 4 {
		case 0:
			b.WriteString(`{"properties": {"p": `)
			closers = append(closers, `}}`)
		case 1:
			b.WriteString(`{"items": `)
			closers = append(closers, `}`)
		case 2:
			b.WriteString(`{"anyOf": [true, `)
			closers = append(closers, `]}`)
		case 3:
			b.WriteString(`{"not": `)
			closers = append(closers, `}`)
		}
	}
	b.WriteString(`{"type": "string"}`)
	for _, c := range slices.Backward(closers) {
		b.WriteString(c)
	}
	return b.String()
}

// levels counts the subschema levels of a pointer into a schema from
// nested.
func levels(ptr string) int {
	n := 0
	for _, step := range []string{"/properties/p", "/items", "/anyOf/", "/not"} {
		n += strings.Count(ptr, step)
	}
	return n
}

func TestCheckDepth(t *testing.T) {
	tests := []struct {
		depth int
		lim   Limits
		ok    bool
	}{
		{DefaultMaxDepth, Limits{}, true},
		{DefaultMaxDepth + 1, Limits{}, false},
		{DefaultMaxDepth + 1, Limits{MaxDepth: -1}, false},
		{10, Limits{MaxDepth: 10}, true},
		{11, Limits{MaxDepth: 10}, false},
		{200, Limits{MaxDepth: 200}, true},
		{2000, Limits{}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d", tt.depth, tt.lim.MaxDepth), func(t *testing.T) {
			schema := nested(tt.depth)
			if _, err := Check([]byte(nested(tt.depth)), Limits{MaxDepth: tt.depth}); err != nil {
				t.Fatalf("the test schema is broken: %v", err)
			}
			_, err := Check([]byte(schema), tt.lim)
			if tt.ok {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			e, ok := errors.AsType[*Error](err)
			if !ok || !strings.Contains(e.Msg, "deeper than the limit") {
				t.Fatalf("Check error %v, want the depth limit", err)
			}
			limit := tt.lim.MaxDepth
			if limit <= 0 {
				limit = DefaultMaxDepth
			}
			if n := levels(e.Pointer); n != limit+1 {
				t.Errorf("Pointer %q is %d levels deep, want %d, the first past the limit", e.Pointer, n, limit+1)
			}
		})
	}
}

// wide returns a schema with n properties, so n+1 schemas with the root.
func wide(n int) string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"p%05d": {"type": "string"}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

func TestCheckSubschemas(t *testing.T) {
	tests := []struct {
		schema string
		lim    Limits
		ok     bool
	}{
		{wide(DefaultMaxSubschemas - 1), Limits{}, true},
		{wide(DefaultMaxSubschemas), Limits{}, false},
		{wide(9), Limits{MaxSubschemas: 10}, true},
		{wide(10), Limits{MaxSubschemas: 10}, false},
		// Boolean schemas and list elements count too: the root, anyOf's
		// three elements and not.
		{`{"anyOf": [true, false, {"not": {}}]}`, Limits{MaxSubschemas: 5}, true},
		{`{"anyOf": [true, false, {"not": {}}]}`, Limits{MaxSubschemas: 4}, false},
	}
	for i, tt := range tests {
		_, err := Check([]byte(tt.schema), tt.lim)
		if tt.ok {
			if err != nil {
				t.Errorf("%d: Check: %v", i, err)
			}
			continue
		}
		e, ok := errors.AsType[*Error](err)
		if !ok || !strings.Contains(e.Msg, "subschemas, the limit") || e.Pointer == "" {
			t.Errorf("%d: Check error %v, want the subschema limit at a subschema", i, err)
		}
	}
}

func TestDialect(t *testing.T) {
	tests := []struct {
		d         Dialect
		str, uri  string
		roundTrip bool
	}{
		{Draft2020, "2020-12", "https://json-schema.org/draft/2020-12/schema", true},
		{Draft7, "draft-07", "http://json-schema.org/draft-07/schema#", true},
		{0, "Dialect(0)", "", false},
		{3, "Dialect(3)", "", false},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.str {
			t.Errorf("Dialect(%d).String() = %q, want %q", int(tt.d), got, tt.str)
		}
		if got := tt.d.URI(); got != tt.uri {
			t.Errorf("Dialect(%d).URI() = %q, want %q", int(tt.d), got, tt.uri)
		}
		if !tt.roundTrip {
			continue
		}
		got, err := Check([]byte(`{"$schema": "`+tt.d.URI()+`"}`), Limits{})
		if err != nil || got != tt.d {
			t.Errorf("Check of $schema %q = %v, %v; want %v", tt.d.URI(), got, err, tt.d)
		}
	}
}
