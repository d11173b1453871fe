package mcp

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestValidateVersion checks rules that differ between protocol versions.
func TestValidateVersion(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		json    string
		version ProtocolVersion
		wantErr string // "" for valid
	}{
		{"resultType required from 2026-07-28", "CallToolResult", `{"content":[]}`, Version20260728, "resultType: required"},
		{"resultType absent before 2026-07-28", "CallToolResult", `{"content":[]}`, Version20251125, ""},
		{"resultType absent in 2024-11-05", "CallToolResult", `{"content":[{"type":"text","text":"hi"}]}`, Version20241105, ""},
		{"tool use in sampling from 2025-11-25", "SamplingMessage",
			`{"role":"assistant","content":{"type":"tool_use","id":"t1","name":"n","input":{}}}`, Version20251125, ""},
		{"no tool use in sampling in 2025-06-18", "SamplingMessage",
			`{"role":"assistant","content":{"type":"tool_use","id":"t1","name":"n","input":{}}}`, Version20250618,
			"content: ToolUseContent is not a SamplingMessageContent in this protocol version"},
		{"request _meta required from 2026-07-28", "CallToolRequestParams", `{"name":"x"}`, Version20260728, "_meta: required"},
		{"request _meta optional before", "CallToolRequestParams", `{"name":"x"}`, Version20250618, ""},
		{"ping is not a 2026-07-28 client request", "ClientRequest", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, Version20260728,
			"PingRequest is not a ClientRequest in this protocol version"},
		{"ping is a 2025-11-25 client request", "ClientRequest", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, Version20251125, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newMessage(tt.typ)
			if err := json.Unmarshal([]byte(tt.json), v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			err := v.ValidateVersion(tt.version)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ValidateVersion(%s) = %v, want nil", tt.version, err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("ValidateVersion(%s) = %v, want %q", tt.version, err, tt.wantErr)
			}
			if tt.wantErr != "" {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %T is not a *FieldError", err)
				}
			}
		})
	}
	if err := new(CallToolResult).ValidateVersion("1999-01-01"); err == nil {
		t.Fatal("ValidateVersion accepted an unknown version")
	}
}

// TestLegacyRoundTrip decodes and re-encodes messages of older versions,
// whose shapes the merged types must keep.
func TestLegacyRoundTrip(t *testing.T) {
	tests := []struct{ typ, in string }{
		{"CallToolRequestParams", `{"name":"x","_meta":{"progressToken":"abc"}}`},
		{"CallToolRequest", `{"method":"tools/call","params":{"name":"x","arguments":{}}}`},
		{"InitializeResult", `{"protocolVersion":"2024-11-05","capabilities":{"logging":{},"experimental":{"x":{"y":1.5}}},"serverInfo":{"name":"s","version":"1"}}`},
		{"JSONRPCResponse", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"JSONRPCError", `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`},
		{"CallToolResult", `{"content":[{"type":"text","text":"hi"}]}`},
		{"Resource", `{"uri":"file:///a","name":"a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			v := newMessage(tt.typ)
			if err := json.Unmarshal([]byte(tt.in), v); err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal([]byte(tt.in), &a)
			json.Unmarshal(out, &b)
			if !jsonEqual(a, b) {
				t.Errorf("got %s, want %s", out, tt.in)
			}
		})
	}
}

// TestPresenceRoundTrip checks that optional properties present with zero
// values survive a round trip and that Go-built values omit absent ones.
func TestPresenceRoundTrip(t *testing.T) {
	in := `{"content":[],"isError":false,"structuredContent":{},"resultType":"complete"}`
	var r CallToolResult
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if !jsonEqual(a, b) {
		t.Fatalf("round trip: got %s, want %s", out, in)
	}
	built, err := json.Marshal(CallToolResult{ResultType: "complete"})
	if err != nil {
		t.Fatal(err)
	}
	if string(built) != `{"content":[],"resultType":"complete"}` {
		t.Fatalf("Go-built value encodes as %s", built)
	}
	// A property only newer versions have is written only when set, and a
	// value built in Go without it is valid for the older versions only.
	legacy := CallToolResult{}
	if out, _ := json.Marshal(legacy); string(out) != `{"content":[]}` {
		t.Fatalf("legacy value encodes as %s", out)
	}
	if err := legacy.ValidateVersion(Version20251125); err != nil {
		t.Fatalf("legacy value for 2025-11-25: %v", err)
	}
	if err := legacy.Validate(); err == nil || err.Error() != "resultType: required" {
		t.Fatalf("legacy value for 2026-07-28: %v", err)
	}
	// Required constants are written for values built in Go.
	if out, _ := json.Marshal(TextContent{Text: "hi"}); string(out) != `{"text":"hi","type":"text"}` {
		t.Fatalf("TextContent encodes as %s", out)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestEraVersions(t *testing.T) {
	all := SupportedVersions()
	var got []ProtocolVersion
	for _, era := range []Era{EraModern, EraLegacy} {
		vs := era.Versions()
		for i, v := range vs {
			if v.Era() != era {
				t.Errorf("%s listed in era %d, but its Era is %d", v, era, v.Era())
			}
			if i > 0 && vs[i-1] <= v {
				t.Errorf("era %d: %s before %s, want newest first", era, vs[i-1], v)
			}
		}
		got = append(got, vs...)
	}
	if len(got) != len(all) {
		t.Errorf("the eras list %d versions, the package knows %d", len(got), len(all))
	}
	if Era(0).Versions() != nil {
		t.Error("the zero Era lists versions")
	}
}
