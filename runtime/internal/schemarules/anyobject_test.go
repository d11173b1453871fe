package schemarules

import "testing"

func TestAcceptsAnyObject(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object"}`, true},
		{`{}`, true},
		{`{"type": "object", "properties": {}, "required": []}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","description":"d"}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, false},
		{`{"type":"object","required":["a"]}`, false},
		{`{"type":"object","additionalProperties":false}`, false},
		{`{"type":"array"}`, false},
		{`{"type":["object","null"]}`, false},
		{`{"type":"object","minProperties":1}`, false},
		{`{"$ref":"#/$defs/x","$defs":{"x":{}}}`, false},
		{`[]`, false},
		{`null`, false},
		{`{`, false},
	} {
		if got := AcceptsAnyObject([]byte(tt.schema)); got != tt.want {
			t.Errorf("AcceptsAnyObject(%s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}
