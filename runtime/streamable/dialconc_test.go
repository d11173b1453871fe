package streamable

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcpclient "github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestDialedCallsRunTogether checks that the calls of a session over a
// dialed transport are in flight at once, whichever transport and era the
// dial settles on: four calls of a tool that answers only once all four
// have arrived.
func TestDialedCallsRunTogether(t *testing.T) {
	const n = 4
	for _, c := range []struct {
		name   string
		era    mcp.Era
		legacy bool // the server speaks HTTP+SSE only
	}{
		{"streamable 2026-07-28", mcp.EraModern, false},
		{"streamable legacy", mcp.EraLegacy, false},
		{"HTTP+SSE", mcp.EraLegacy, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var arrived sync.WaitGroup
			arrived.Add(n)
			s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
			addTool(t, s, "together", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				arrived.Done()
				all := make(chan struct{})
				go func() { arrived.Wait(); close(all) }()
				select {
				case <-all:
					return textResult("together"), nil
				case <-time.After(10 * time.Second):
					return nil, errors.New("the other calls did not arrive: the client sends one at a time")
				}
			})
			var h interface {
				http.Handler
				Close() error
			} = NewHandler(s, nil)
			path := "/mcp"
			if c.legacy {
				h, path = NewLegacyHandler(s, nil), "/sse"
			}
			ts := httptest.NewServer(h)
			t.Cleanup(func() { h.Close(); ts.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			tr, err := DialClientTransport(ctx, ts.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess, err := mcpclient.New(mcp.Implementation{Name: "c", Version: "1"}, &mcpclient.Options{Era: c.era}).Connect(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			var calls sync.WaitGroup
			for range n {
				calls.Go(func() {
					if r, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "together"}); err != nil || toolText(t, r) != "together" {
						t.Errorf("%v", err)
					}
				})
			}
			calls.Wait()
		})
	}
}
