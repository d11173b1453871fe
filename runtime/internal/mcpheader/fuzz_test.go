package mcpheader

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzDecode(f *testing.F) {
	for _, ex := range specExamples {
		f.Add(ex.header)
	}
	for _, s := range []string{"", " ", "=?base64?", "=?base64?=", "=?base64??=", "=?base64?SGVsbG8?=", "=?base64?/w==?=", "a\x00b", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		text, err := Decode(value)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n\x00") || len(msg) > 300 {
				t.Fatalf("Decode(%q) error %q is not sanitized", value, msg)
			}
			return
		}
		if !utf8.ValidString(text) {
			t.Fatalf("Decode(%q) = %q, not UTF-8", value, text)
		}
		back, err := Decode(Encode(text))
		if err != nil || back != text {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", text, back, err)
		}
	})
}

func FuzzParams(f *testing.F) {
	f.Add(checkSchema)
	for _, s := range []string{
		`{}`, `[]`, `{"x-mcp-header": "A"}`,
		`{"properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"$ref": "#/properties/a"}}}`,
		`{"$id": "https://e/x", "properties": {"a": {"$id": "#A", "$anchor": "B", "type": "integer", "x-mcp-header": "A"}}, "items": {"$dynamicRef": "%zz"}}`,
		`{"properties": {"a": {"items": [{"x-mcp-header": 1}], "dependencies": {"a": ["b"]}}}}`,
		`{"properties": {"a": {"type": "string", "x-mcp-header": "A", "x-mcp-header": "B"}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		params, err := Params([]byte(schema))
		if err != nil {
			if params != nil {
				t.Fatalf("Params(%q) returned params with error %v", schema, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range params {
			if len(p.Path) == 0 || checkName(p.Name) != "" || seen[strings.ToLower(p.Name)] {
				t.Fatalf("Params(%q) gave the invalid or repeated %+v", schema, p)
			}
			seen[strings.ToLower(p.Name)] = true
			switch p.Type {
			case "string", "integer", "boolean":
			default:
				t.Fatalf("Params(%q) gave type %q", schema, p.Type)
			}
		}
	})
}

func FuzzCheck(f *testing.F) {
	f.Add(`{"region": "us-west1", "count": 42, "dry": true, "target": {"zone": "b"}}`, "us-west1", "42")
	f.Add(`{"count": 4.2e1, "region": null}`, "=?base64?SGVsbG8=?=", "42.0")
	f.Add(`{"target": {"zone": "\u00e9", "zone": 1}}`, "", "=?base64?QQ==?=")
	params, err := Params([]byte(checkSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args, region, count string) {
		h := http.Header{"Mcp-Param-Region": {region}, "Mcp-Param-Count": {count}, "Mcp-Param-Zone": {region}}
		err := Check(params, []byte(args), h)
		if _, ok := errors.AsType[*MismatchError](err); err != nil && !ok {
			t.Fatalf("Check error %v is not a *MismatchError", err)
		}
	})
}
