package rawschema_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// call sends tools/call of name with args as a 2026-07-28 request.
func call(t *testing.T, s *server.Server, name, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"` + name + `","arguments":` + args + `}`
	raw, err := s.ServeCall(context.Background(), &server.Call{ID: jsonrpc.IntID(1), Method: mcp.MethodCallTool, Params: []byte(params)})
	if err != nil {
		return nil, err
	}
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	return &r, nil
}

func text(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	tc, _ := r.Content[0].Value.(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

func TestValidate(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"temp","inputSchema":{"type":"object","properties":{"city":{"type":"string","minLength":2}},"required":["city"]},
		"outputSchema":{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}}`), &def); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		out := `{"celsius":21.5}`
		if strings.Contains(string(p.Arguments), "Nowhere") {
			out = `{"celsius":"warm"}`
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: out}}}, StructuredContent: json.RawMessage(out)}, nil
	}, rawschema.Validate()); err != nil {
		t.Fatal(err)
	}

	if r, err := call(t, s, "temp", `{"city":"Oslo"}`); err != nil || r.IsError || string(r.StructuredContent) != `{"celsius":21.5}` {
		t.Errorf("valid call: %+v, %v", r, err)
	}
	for _, args := range []string{`{"city":"X"}`, `{}`, `{"city":7}`} {
		r, err := call(t, s, "temp", args)
		if err != nil || !r.IsError || !strings.Contains(text(r), "invalid arguments for tool temp") {
			t.Errorf("arguments %s: %+v, %v; want an isError result", args, r, err)
		}
	}
	_, err := call(t, s, "temp", `{"city":"Nowhere"}`)
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "outputSchema") {
		t.Errorf("structuredContent off its schema: %v, want an internal error naming the outputSchema", err)
	}
}

func TestValidateRefusesBadSchemas(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	for _, schema := range []string{
		`{"type":"object","properties":{"x":{"type":"nonsense"}}}`,    // not a schema the validator compiles
		`{"type":"object","properties":{"x":{"$ref":"https://e/x"}}}`, // would have to be fetched
	} {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(`{"name":"bad","inputSchema":`+schema+`}`), &def); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(def, h, rawschema.Validate()); err == nil || !strings.Contains(err.Error(), "input schema") {
			t.Errorf("schema %s: %v, want AddTool to refuse it", schema, err)
		}
	}
}
