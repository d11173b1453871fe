package auth_test

import (
	"context"
	"encoding/json"
	"log"
	"net/http"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// An MCP server at https://mcp.example/mcp that takes JWT access tokens of
// one authorization server, with a tool that needs a scope of its own.
func Example() {
	const resource = "https://mcp.example/mcp"
	const issuer = "https://auth.example"

	s := server.New(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	var write mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"write_note","inputSchema":{"type":"object"}}`), &write); err != nil {
		log.Fatal(err)
	}
	err := s.AddTool(write, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		who := auth.TokenInfoFrom(ctx).Subject // the token the request came with
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "noted for " + who}}}}, nil
	}, server.WithScopes("notes:write"))
	if err != nil {
		log.Fatal(err)
	}

	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: issuer, Resource: resource})
	if err != nil {
		log.Fatal(err)
	}
	m, err := auth.New(auth.Options{Verifier: v, Resource: resource,
		AuthorizationServers: []string{issuer}, Scopes: []string{"notes:read"}})
	if err != nil {
		log.Fatal(err)
	}
	h := streamable.NewHandler(s, &streamable.HandlerOptions{Authenticate: auth.Authenticate})
	mux := http.NewServeMux()
	if err := m.Mount(mux, "", h); err != nil { // /mcp and /.well-known/oauth-protected-resource/mcp
		log.Fatal(err)
	}
	_ = http.ListenAndServe("127.0.0.1:8080", mux) // behind a TLS-terminating proxy for mcp.example
}
