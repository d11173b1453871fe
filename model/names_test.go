package model

import "testing"

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"_meta":       "Meta",
		"mimeType":    "MIMEType",
		"uri":         "URI",
		"uriTemplate": "URITemplate",
		"io.modelcontextprotocol/protocolVersion": "ProtocolVersion",
		"$schema":           "Schema",
		"input_required":    "InputRequired",
		"id":                "ID",
		"ttlMs":             "TTLMs",
		"isError":           "IsError",
		"structuredContent": "StructuredContent",
		"listChanged":       "ListChanged",
		"tools/call":        "Call",
		"2.0":               "V20",
		"JSONRPCRequest":    "JSONRPCRequest",
		"":                  "X",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}
