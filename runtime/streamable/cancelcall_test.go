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

// waitCall is a client Conn over a ClientTransport to a server whose
// tool "wait" runs until its ctx ends: started closes when it begins,
// ended when its ctx has ended.
type waitCall struct {
	ct             *ClientTransport
	conn           *jsonrpc.Conn
	started, ended chan struct{}
}

func newWaitCall(t *testing.T) *waitCall {
	t.Helper()
	w := &waitCall{started: make(chan struct{}), ended: make(chan struct{})}
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	if err := s.AddTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(w.started)
		<-ctx.Done()
		close(w.ended)
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewHandler(s, nil))
	w.ct = NewClientTransport(ts.URL, nil)
	w.conn = jsonrpc.NewConn(w.ct, nil, jsonrpc.Options{})
	go w.conn.Run(context.Background())
	t.Cleanup(func() {
		w.conn.Close()
		w.ct.Close()
		ts.Close()
	})
	return w
}

// call calls the tool wait with ctx.
func (w *waitCall) call(ctx context.Context) error {
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"wait"}`
	_, err := w.conn.Call(ctx, mcp.MethodCallTool, []byte(params))
	return err
}

// await fails the test unless ch closes within 10 s.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

// TestCallCancelledBeforeReply checks that a 2026-07-28 request whose
// caller gives up before the server has answered its POST is cancelled:
// its POST is closed, and the handler's ctx ends.
func TestCallCancelledBeforeReply(t *testing.T) {
	w := newWaitCall(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-w.started
		cancel()
	}()
	if err := w.call(ctx); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	await(t, w.ended, "the handler's ctx did not end: the POST was not closed")
}

// TestCallEndsWhenClientCloses checks that Close ends a 2026-07-28
// request whose reply the caller's goroutine is reading: the Call fails,
// Close returns, and the server sees the request go.
func TestCallEndsWhenClientCloses(t *testing.T) {
	w := newWaitCall(t)
	called := make(chan error, 1)
	go func() { called <- w.call(context.Background()) }()
	<-w.started
	closed := make(chan struct{})
	go func() {
		w.ct.Close()
		close(closed)
	}()
	await(t, closed, "Close did not return")
	await(t, w.ended, "the handler's ctx did not end")
	select {
	case err := <-called:
		if err == nil {
			t.Error("the Call succeeded after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Call did not end after Close")
	}
}
