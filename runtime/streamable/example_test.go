package streamable_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// exampleServer returns a server with one tool, which says which protocol
// version its caller speaks.
func exampleServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{Name: "version"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		text := "called in " + string(server.ProtocolVersion(ctx))
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}, nil
	})
	if err != nil {
		panic(err)
	}
	return s
}

// One Streamable HTTP endpoint serves both eras, deciding per request. A
// real server runs streamable.ListenAndServe(ctx, ":3000", h); here
// httptest serves h on a loopback port, and the client reaches it with
// NewClientTransport.
func ExampleNewHandler() {
	h := streamable.NewHandler(exampleServer(), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background()) // before the listener closes, as Serve does

	for _, version := range []mcp.ProtocolVersion{"", mcp.Version20251125} { // negotiated, then pinned to a legacy version
		c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{ProtocolVersion: version})
		sess, err := c.Connect(context.Background(), streamable.NewClientTransport(ts.URL, nil))
		if err != nil {
			panic(err)
		}
		r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "version"})
		if err != nil {
			panic(err)
		}
		fmt.Println(r.Content[0].Value.(*mcp.TextContent).Text)
		sess.Close()
	}
	// Output:
	// called in 2026-07-28
	// called in 2025-11-25
}
