// Package echo is the echo benchmark's mcpgen server: the one echo tool
// registered on mcpgen's server engine, with its arguments decoded and
// validated by code of the kind the handler generator writes, so that
// every request is validated without a schema interpreter.
package echo

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

const inputSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// New returns the echo server.
func New() (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "mcpgen-echo", Version: "1.0.0"}, nil)
	return s, AddTool(s)
}

// AddTool registers the echo tool on s with opts after its own (the input
// validator), so that other benchmarks serve the same tool with more
// options, such as task support.
func AddTool(s *server.Server, opts ...server.ToolOption) error {
	var def mcp.Tool
	if err := def.UnmarshalJSON([]byte(`{"name":"echo","description":"Echoes the text back.","inputSchema":` + inputSchema + `}`)); err != nil {
		return err
	}
	opts = append([]server.ToolOption{server.WithInputValidator(func(args []byte) error {
		_, err := decodeText(args)
		return err
	})}, opts...)
	return s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		text, err := decodeText(p.Arguments)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}, nil
	}, opts...)
}

// decodeText reads {"text": string}, as a generated decoder would.
func decodeText(args []byte) (string, error) {
	var s jsonrpc.Scanner
	s.Reset(args)
	if err := s.ObjectStart(); err != nil {
		return "", errors.New("arguments: expected an object")
	}
	var text string
	found := false
	for {
		key, more, err := s.NextKey()
		if err != nil {
			return "", err
		}
		if !more {
			break
		}
		if string(key) != "text" {
			return "", errors.New(string(key) + ": unknown property")
		}
		if text, err = s.String(); err != nil {
			return "", errors.New("text: expected a string")
		}
		found = true
	}
	if !found {
		return "", errors.New("text: required")
	}
	return text, nil
}

// Serve serves one stream over rwc until the peer closes it: a legacy
// session after initialize, and 2026-07-28 requests, which carry their
// _meta and need no initialize, on their own, interleaved.
func Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s, err := New()
	if err != nil {
		return err
	}
	return s.Serve(ctx, transport.NewStream(rwc, rwc, transport.StreamOptions{}))
}

// HTTP returns mcpgen's Streamable HTTP handler for the echo server in
// JSON-response mode: each POSTed request is answered with one
// application/json body. It serves both eras, deciding per request: legacy
// sessions, and 2026-07-28 requests served with no session at all.
func HTTP() (http.Handler, error) {
	s, err := New()
	if err != nil {
		return nil, err
	}
	return streamable.NewHandler(s, &streamable.HandlerOptions{JSONResponse: true}), nil
}
