// Package echo is the echo benchmark server built on
// github.com/mark3labs/mcp-go, used the way its README shows: a tool built
// with mcp.NewTool and a handler reading its argument with RequireString.
package echo

import (
	"context"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// NewServer returns an mcp-go server with the echo tool registered.
func NewServer() *server.MCPServer {
	s := server.NewMCPServer("mcpgo", "0.0.0", server.WithToolCapabilities(false))
	AddTool(s)
	return s
}

// AddTool registers the echo tool on s with opts after its own (the text
// argument), so that other benchmarks serve the same tool with more
// options, such as task support.
func AddTool(s *server.MCPServer, opts ...mcp.ToolOption) {
	opts = append([]mcp.ToolOption{mcp.WithString("text", mcp.Required())}, opts...)
	s.AddTool(mcp.NewTool("echo", opts...), echo)
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

// Serve speaks newline-delimited JSON-RPC over rwc until the peer closes it
// or ctx is done. It closes rwc when it returns. mcp-go serves both eras on
// it, deciding per request from _meta.
//
// mcp-go keeps its stdio session in a package variable, so only one Serve
// may run in a process at a time.
func Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	defer rwc.Close()
	stop := context.AfterFunc(ctx, func() { rwc.Close() })
	defer stop()
	s := server.NewStdioServer(NewServer())
	s.SetErrorLogger(log.New(os.Stderr, "mcpgo: ", 0))
	return s.Listen(ctx, rwc, rwc)
}

// HTTP returns mcp-go's Streamable HTTP server, which answers POSTs with
// application/json unless a handler sends notifications. It serves both
// eras, deciding per request: legacy sessions, and 2026-07-28 requests
// each on an ephemeral session of its own.
func HTTP() (http.Handler, error) {
	return server.NewStreamableHTTPServer(NewServer(), server.WithEndpointPath("/mcp")), nil
}
