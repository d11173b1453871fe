package streamable

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcpclient "github.com/mcpgen/mcpgen/runtime/client"
)

// TestClientCallsInParallel makes two calls at once on one session whose
// tool answers neither until both have arrived: a transport that sent one
// request at a time, waiting for its reply to begin before the next (as a
// JSON reply, which begins only with the result, makes it), would never
// let the second call through. Both eras, both reply kinds.
func TestClientCallsInParallel(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		for _, jsonReply := range []bool{false, true} {
			name := fmt.Sprintf("era=%d/json=%t", era, jsonReply)
			t.Run(name, func(t *testing.T) { callInParallel(t, era, jsonReply) })
		}
	}
}

// callInParallel makes the two calls of TestClientCallsInParallel.
func callInParallel(t *testing.T, era mcp.Era, jsonReply bool) {
	s := newMCP(t)
	var arrived atomic.Int32
	both := make(chan struct{})
	addTool(t, s, "meet", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return textResult("met"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	_, ts := serveEngine(t, s, &HandlerOptions{JSONResponse: jsonReply})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	sess, err := mcpclient.New(mcp.Implementation{Name: "client-test", Version: "1"}, &mcpclient.Options{Era: era}).Connect(ctx, NewClientTransport(ts.URL, nil))
	if err != nil {
		cancel()
		t.Fatalf("Connect: %v", err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "meet"})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	cancel()
	sess.Close()
}
