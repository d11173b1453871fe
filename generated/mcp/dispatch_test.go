package mcp

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// toolServer answers tools/call and tools/list; its other methods are nil
// and are never reached in these tests.
type toolServer struct {
	ServerHandler
	pages  int
	repeat bool
}

func (s *toolServer) CallTool(ctx context.Context, p *CallToolRequestParams) (*CallToolResult, error) {
	if p.Name == "fail" {
		return nil, errors.New("boom")
	}
	return &CallToolResult{Content: []ContentBlock{{Value: &TextContent{Text: "called " + p.Name}}}, ResultType: "complete"}, nil
}

func (s *toolServer) ListTools(ctx context.Context, p *PaginatedRequestParams) (*ListToolsResult, error) {
	page := 0
	if p.Cursor != "" {
		page, _ = strconv.Atoi(string(p.Cursor))
	}
	r := &ListToolsResult{Tools: []Tool{{Name: "t" + strconv.Itoa(page)}}, ResultType: "complete"}
	if page+1 < s.pages {
		r.NextCursor = strconv.Itoa(page + 1)
	}
	if s.repeat {
		r.NextCursor = "same"
	}
	return r, nil
}

// loopback is a Caller that dispatches straight into a ServerHandler.
type loopback struct {
	h ServerHandler
	v ProtocolVersion
}

func (l loopback) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	r, err := DispatchServerRequest(ctx, l.h, l.v, method, params)
	if err != nil {
		return nil, err
	}
	return r.MarshalJSON()
}

func TestDispatchAndClient(t *testing.T) {
	ctx := context.Background()
	c := &Client{Caller: loopback{&toolServer{pages: 3}, Version20251125}}
	r, err := c.CallTool(ctx, &CallToolRequestParams{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Content[0].Value.(*TextContent).Text; text != "called echo" {
		t.Fatalf("text = %q", text)
	}
	var names []string
	for tool, err := range c.AllTools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) != 3 || names[2] != "t2" {
		t.Fatalf("AllTools = %v", names)
	}
	rep := &Client{Caller: loopback{&toolServer{repeat: true}, Version20251125}}
	n := 0
	var last error
	for _, err := range rep.AllTools(ctx) {
		n++
		last = err
	}
	if last == nil || n != 3 {
		t.Fatalf("a repeated cursor gave %d items, last error %v", n, last)
	}
}

func TestDispatchErrors(t *testing.T) {
	ctx := context.Background()
	h := &toolServer{}
	code := func(err error) int64 {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			t.Fatalf("%v is not a *jsonrpc.Error", err)
		}
		return e.Code
	}
	tests := []struct {
		name    string
		v       ProtocolVersion
		method  string
		params  string
		code    int64
		message string
	}{
		{"unknown method", Version20251125, "no/such", `{}`, jsonrpc.CodeMethodNotFound, "method not found: no/such"},
		{"method the version lacks", Version20260728, "ping", `{}`, jsonrpc.CodeMethodNotFound, "method not found: ping"},
		{"params missing", Version20251125, "tools/call", ``, jsonrpc.CodeInvalidParams, "invalid params: params: required"},
		{"required property", Version20251125, "tools/call", `{}`, jsonrpc.CodeInvalidParams, "invalid params: name: required"},
		{"wrong type", Version20251125, "tools/call", `{"name":"x","arguments":[]}`, jsonrpc.CodeInvalidParams, "invalid params: arguments: expected object, got array"},
		{"malformed", Version20251125, "tools/call", `{"name":`, jsonrpc.CodeInvalidParams, ""},
		{"version rule", Version20260728, "tools/call", `{"name":"x"}`, jsonrpc.CodeInvalidParams, "invalid params: _meta: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var params []byte
			if tt.params != "" {
				params = []byte(tt.params)
			}
			_, err := DispatchServerRequest(ctx, h, tt.v, tt.method, params)
			if err == nil {
				t.Fatal("no error")
			}
			if got := code(err); got != tt.code {
				t.Fatalf("code %d, want %d (%v)", got, tt.code, err)
			}
			var e *jsonrpc.Error
			errors.As(err, &e)
			if tt.message != "" && e.Message != tt.message {
				t.Fatalf("message %q, want %q", e.Message, tt.message)
			}
		})
	}
	if _, err := DispatchServerRequest(ctx, h, Version20251125, "tools/call", []byte(`{"name":"fail"}`)); err == nil || err.Error() != "boom" {
		t.Fatalf("a handler's error must come back as it is, got %v", err)
	}
}
