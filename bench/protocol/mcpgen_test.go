package protocol

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

func init() {
	mcpgenHalves.decodeCallToolRequest = benchMCPGenDecodeCallToolRequest
	mcpgenHalves.validateCallToolResult = benchMCPGenValidateCallToolResult
}

// benchMCPGenDecodeCallToolRequest decodes the whole tools/call message into
// the generated CallToolRequest, which is how an mcpgen server gets from
// bytes to typed params.
func benchMCPGenDecodeCallToolRequest(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(callToolRequest)))
	for b.Loop() {
		var r mcp.CallToolRequest
		if err := json.Unmarshal(callToolRequest, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchMCPGenValidateCallToolResult decodes the result once and times only
// the generated Validate method, as the santhosh half times only Validate
// on an instance decoded once.
func benchMCPGenValidateCallToolResult(b *testing.B) {
	var r mcp.CallToolResult
	if err := json.Unmarshal(callToolResult, &r); err != nil {
		b.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		b.Fatalf("the instance is not valid: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMCPGenDecodeCallToolRequest checks that the generated type keeps
// everything in the request, so the benchmark measures a complete decode:
// encoding the decoded value gives back the same JSON.
func TestMCPGenDecodeCallToolRequest(t *testing.T) {
	var r mcp.CallToolRequest
	if err := json.Unmarshal(callToolRequest, &r); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(callToolRequest, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("re-encoded request is not JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decode → encode changed the request:\ngot  %s\nwant %s", out, callToolRequest)
	}
}

// TestMCPGenValidateCallToolResult checks that the generated validator
// accepts the instance santhosh-tekuri/jsonschema accepts.
func TestMCPGenValidateCallToolResult(t *testing.T) {
	var r mcp.CallToolResult
	if err := json.Unmarshal(callToolResult, &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}
