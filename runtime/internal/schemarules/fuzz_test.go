package schemarules

import (
	"errors"
	"strings"
	"testing"
)

func FuzzCheck(f *testing.F) {
	f.Add(toolSchema)
	for _, s := range []string{
		`{}`, `[]`, `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$id": "#a"}}, "items": {"$ref": "#a"}}`,
		`{"$id": "https://e/x", "$defs": {"a": {"$id": "y/z.json", "$anchor": "q"}}, "not": {"$ref": "y/z.json#q"}}`,
		`{"items": {"$ref": "#/items/~1/0"}, "anyOf": [{"$dynamicRef": "#n"}], "$dynamicAnchor": "n"}`,
		`{"$ref": "//[::1]:80/x"}`, `{"$id": "urn:a:b", "$ref": "c"}`, `{"dependencies": {"a": ["b"], "c": 1}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		d, err := Check([]byte(schema), Limits{MaxDepth: 8, MaxSubschemas: 64})
		if err != nil {
			if d != 0 {
				t.Fatalf("Check(%q) = %v with error %v", schema, d, err)
			}
			if e, ok := errors.AsType[*Error](err); !ok && !strings.HasPrefix(err.Error(), "schema: malformed JSON") {
				t.Fatalf("Check(%q) error %v is neither an *Error nor a syntax error", schema, err)
			} else if ok && e.Msg == "" {
				t.Fatalf("Check(%q) error has no message", schema)
			}
			return
		}
		if d != Draft2020 && d != Draft7 {
			t.Fatalf("Check(%q) = %v without error", schema, d)
		}
	})
}
