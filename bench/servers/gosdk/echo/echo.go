// Package echo is the echo benchmark server built on the official Go SDK,
// github.com/modelcontextprotocol/go-sdk, used the way its documentation
// shows: a typed tool added with mcp.AddTool, which decodes and validates
// the arguments against the input schema.
package echo

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input is the echo tool's arguments.
type Input struct {
	Text string `json:"text"`
}

// NewServer returns an SDK server with the echo tool registered.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk", Version: "0.0.0"}, nil)
	// The schema is given rather than inferred from Input, so every server
	// in the benchmark publishes the same one.
	schema := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"text": {Type: "string"}},
		Required:   []string{"text"},
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", InputSchema: schema}, echo)
	return s
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in Input) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

// Serve speaks newline-delimited JSON-RPC over rwc until the peer closes it
// or ctx is done. The SDK serves both eras on it, deciding per request from
// _meta.
func Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	err := NewServer().Run(ctx, &mcp.IOTransport{Reader: rwc, Writer: rwc})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// HTTP returns the SDK's Streamable HTTP handler in JSON-response mode.
// It keeps a session per client, and so serves only the legacy era: the
// SDK answers a 2026-07-28 request on it with -32022 and the legacy
// versions.
func HTTP() (http.Handler, error) {
	s := NewServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: true}), nil
}

// Stateless returns the SDK's Streamable HTTP handler in stateless,
// JSON-response mode, the one way the SDK serves 2026-07-28 over HTTP: it
// connects a fresh server session for every POST and closes it when the
// POST is answered. Legacy requests get such a session too, initialized
// on the spot.
func Stateless() (http.Handler, error) {
	s := NewServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: true}), nil
}
