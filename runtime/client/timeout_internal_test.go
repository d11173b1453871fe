package client

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

func TestWithProgressToken(t *testing.T) {
	tok := mcp.ProgressTokenFromInteger(7)
	tests := []struct {
		in, want string
		token    string // the token reported, as JSON; empty for none
	}{
		{"", `{"_meta":{"progressToken":7}}`, "7"},
		{`{}`, `{"_meta":{"progressToken":7}}`, "7"},
		{` { } `, ` {"_meta":{"progressToken":7} } `, "7"},
		{`{"name":"x"}`, `{"_meta":{"progressToken":7},"name":"x"}`, "7"},
		{`{"name":"x","_meta":{}}`, `{"name":"x","_meta":{"progressToken":7}}`, "7"},
		{`{"_meta":{"a":1},"b":2}`, `{"_meta":{"progressToken":7,"a":1},"b":2}`, "7"},
		{`{"_meta":{"a":1,"progressToken":"own"}}`, `{"_meta":{"a":1,"progressToken":"own"}}`, `"own"`},
		{`{"_meta":5}`, `{"_meta":5}`, ""},
	}
	for _, tt := range tests {
		var in []byte
		if tt.in != "" {
			in = []byte(tt.in)
		}
		out, got, err := withProgressToken(in, tok)
		if err != nil {
			t.Errorf("withProgressToken(%s): %v", tt.in, err)
			continue
		}
		if string(out) != tt.want || !json.Valid(out) {
			t.Errorf("withProgressToken(%s) = %s, want %s", tt.in, out, tt.want)
		}
		gotJSON := ""
		if !got.IsZero() {
			b, _ := got.MarshalJSON()
			gotJSON = string(b)
		}
		if gotJSON != tt.token {
			t.Errorf("withProgressToken(%s) token = %s, want %s", tt.in, gotJSON, tt.token)
		}
	}
	if _, _, err := withProgressToken([]byte(`[1]`), tok); err == nil {
		t.Error("withProgressToken accepted an array")
	}
}
