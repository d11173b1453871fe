package model

import "testing"

func TestGoName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_meta", "Meta"},
		{"mimeType", "MIMEType"},
		{"uri", "URI"},
		{"uriTemplate", "URITemplate"},
		{"io.modelcontextprotocol/protocolVersion", "ProtocolVersion"},
		{"$schema", "Schema"},
		{"input_required", "InputRequired"},
		{"id", "ID"},
		{"ttlMs", "TTLMs"},
		{"isError", "IsError"},
		{"structuredContent", "StructuredContent"},
		{"listChanged", "ListChanged"},
		{"tools/call", "Call"},
		{"2.0", "V20"},
		{"JSONRPCRequest", "JSONRPCRequest"},
		{"", "X"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := GoName(c.in); got != c.want {
				t.Errorf("GoName(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
