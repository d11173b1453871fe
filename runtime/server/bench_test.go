package server

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// BenchmarkCallTool measures the engine's own work for one echo
// tools/call, in each era, from a decoded JSON-RPC request to the encoded
// result: what the era gate, the request context, the dispatch and the
// result's finishing cost, without a transport.
func BenchmarkCallTool(b *testing.B) {
	s := newServer(nil)
	echoTool(b, s)
	a, _ := transport.NewPipe()
	sess := s.newSession(a)
	ctx := context.Background()
	init := &jsonrpc.Request{ID: jsonrpc.IntID(1), Method: mcp.MethodInitialize, Params: []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)}
	if _, err := sess.Handle(ctx, init); err != nil {
		b.Fatal(err)
	}
	sess.Handle(ctx, &jsonrpc.Request{Method: mcp.MethodInitializedNotification})
	for _, c := range []struct {
		era    string
		params string
	}{
		{"legacy", `{"name":"echo","arguments":{"text":"hello"}}`},
		{"2026-07-28", `{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`},
	} {
		b.Run(c.era, func(b *testing.B) {
			params := []byte(c.params)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out, err := sess.Handle(ctx, &jsonrpc.Request{ID: jsonrpc.IntID(int64(i + 2)), Method: mcp.MethodCallTool, Params: params})
				if err != nil || len(out) == 0 {
					b.Fatalf("call %s: %s %v", strconv.Itoa(i), out, err)
				}
			}
		})
	}
}
