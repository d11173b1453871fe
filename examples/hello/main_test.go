package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// TestHello serves the example in memory to mcpgen's client; the
// interop tests serve the built binary to the TypeScript SDK.
func TestHello(t *testing.T) {
	s, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := transport.NewPipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, a) }()
	sess, err := client.New(mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sess.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	r, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3.5}`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.StructuredContent) != `{"sum":5.5}` {
		t.Errorf("add: structuredContent %s, want {\"sum\":5.5}", r.StructuredContent)
	}

	if _, err := sess.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "greet"}); err == nil {
		t.Error("greet without a name: no error")
	}

	res, err := sess.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "hello://world"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("hello://world: %d contents, want 1", len(res.Contents))
	}
	if tc, ok := res.Contents[0].Value.(*mcp.TextResourceContents); !ok || tc.Text != "Hello, world!" {
		t.Errorf("hello://world: %+v, want \"Hello, world!\"", res.Contents[0].Value)
	}
}
