package mcp

import (
	"encoding/json"
	"testing"
)

// fuzzTypes are the types FuzzDecode feeds; the examples seed the corpus.
var fuzzTypes = []string{"CallToolResult", "CallToolRequest", "JSONRPCMessage", "ClientRequest", "ServerResult",
	"PrimitiveSchemaDefinition", "CreateMessageResult", "Tool", "InputRequiredResult", "ElicitRequestParams", "RequestId"}

// FuzzDecode feeds arbitrary bytes to the generated decoders: they must
// never panic, and whatever decodes must encode, and decode again to the
// same JSON.
func FuzzDecode(f *testing.F) {
	for _, ex := range loadExamples(f) {
		f.Add(ex.data)
	}
	f.Add([]byte(`{"type":"text","text":"a","type":"image"}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range fuzzTypes {
			v := newMessage(name)
			if err := json.Unmarshal(data, v); err != nil {
				continue
			}
			_ = v.Validate()
			out, err := json.Marshal(v)
			if err != nil {
				// Only numbers that cannot be written back may fail.
				continue
			}
			w := newMessage(name)
			if err := json.Unmarshal(out, w); err != nil {
				t.Fatalf("%s: re-decoding %s: %v (input %q)", name, out, err, data)
			}
			again, err := json.Marshal(w)
			if err != nil || string(again) != string(out) {
				t.Fatalf("%s: not stable: %s then %s (%v)", name, out, again, err)
			}
		}
	})
}

// TestDecodeResult decodes results through the method table.
func TestDecodeResult(t *testing.T) {
	r, err := DecodeResult(MethodCallTool, []byte(`{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, ok := r.(*CallToolResult)
	if !ok || len(res.Content) != 1 {
		t.Fatalf("DecodeResult gave %T %+v", r, r)
	}
	if text, ok := res.Content[0].Value.(*TextContent); !ok || text.Text != "hi" {
		t.Fatalf("content = %#v", res.Content[0].Value)
	}
	// The request decides the type: an empty object is a valid EmptyResult.
	if r, err := DecodeResult(MethodPing, []byte(`{}`)); err != nil {
		t.Fatal(err)
	} else if _, ok := r.(*Result); !ok {
		t.Fatalf("ping result is %T", r)
	}
	if _, err := DecodeResult("notifications/progress", []byte(`{}`)); err == nil {
		t.Fatal("a notification has no result")
	}
	if _, err := DecodeResult("no/such", []byte(`{}`)); err == nil {
		t.Fatal("unknown method accepted")
	}
	if _, err := DecodeResult(MethodCallTool, []byte(`{"content":7}`)); err == nil || err.Error() != "content: expected array, got number" {
		t.Fatalf("bad result: %v", err)
	}
	m, ok := LookupMethod(MethodCallTool)
	if !ok || m.Direction != ClientToServer || m.Params != "CallToolRequestParams" || !m.Versions.Has(Version20241105) {
		t.Fatalf("LookupMethod(tools/call) = %+v", m)
	}
	if _, ok := m.NewParams().(*CallToolRequestParams); !ok {
		t.Fatal("NewParams")
	}
	if Version20241105.Era() != EraLegacy || Version20251125.Era() != EraLegacy || Version20260728.Era() != EraModern {
		t.Fatal("eras")
	}
}
