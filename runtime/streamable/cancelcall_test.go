package streamable

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestCallCancelledBeforeReply checks that a 2026-07-28 request whose
// caller gives up before the server has answered its POST is cancelled:
// its POST is closed, and the handler's ctx ends.
func TestCallCancelledBeforeReply(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	started, ended := make(chan struct{}), make(chan struct{})
	if err := s.AddTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewHandler(s, nil))
	defer ts.Close()
	ct := NewClientTransport(ts.URL, nil)
	defer ct.Close()
	conn := jsonrpc.NewConn(ct, jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) ([]byte, error) { return nil, nil }), jsonrpc.Options{})
	go conn.Run(context.Background())
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"wait"}`
	if _, err := conn.Call(ctx, mcp.MethodCallTool, []byte(params)); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's ctx did not end: the POST was not closed")
	}
}

// TestCallEndsWhenClientCloses checks that Close ends a 2026-07-28
// request whose reply the caller's goroutine is reading: the Call fails,
// Close returns, and the server sees the request go.
func TestCallEndsWhenClientCloses(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	started, ended := make(chan struct{}), make(chan struct{})
	if err := s.AddTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewHandler(s, nil))
	defer ts.Close()
	ct := NewClientTransport(ts.URL, nil)
	conn := jsonrpc.NewConn(ct, nil, jsonrpc.Options{})
	go conn.Run(context.Background())
	defer conn.Close()
	called := make(chan error, 1)
	go func() {
		params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"wait"}`
		_, err := conn.Call(context.Background(), mcp.MethodCallTool, []byte(params))
		called <- err
	}()
	<-started
	closed := make(chan struct{})
	go func() {
		ct.Close()
		close(closed)
	}()
	for name, ch := range map[string]<-chan struct{}{"Close": closed, "the handler's ctx": ended} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not end", name)
		}
	}
	select {
	case err := <-called:
		if err == nil {
			t.Error("the Call succeeded after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Call did not end after Close")
	}
}
