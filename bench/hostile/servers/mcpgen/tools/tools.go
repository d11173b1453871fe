// Package tools is the hostile-client harness's server on mcpgen's
// runtime, a package so that tests can run it from their own binary. It
// is built the way a user builds a server: tools registered through
// runtime/handler as generated code registers them, ServeStdio on
// stdio, and streamable.ListenAndServe with the default handler options
// over HTTP, shutting down when SIGTERM ends its context.
//
// Its tools: sample (one sampling/createMessage round trip to the
// client), slow (sleeps ms milliseconds), count (how many slow calls
// started, are running, and ran to the end), spam (n progress
// notifications of size bytes each).
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/bench/hostile/servers/internal/cli"
	"github.com/mcpgen/mcpgen/bench/hostile/servers/internal/tally"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/handler"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

const name = "mcpgen"

// Main runs the server as its command line asks, and exits.
func Main() {
	mode := cli.Parse(name)
	ctx, stop := cli.Context()
	defer stop()
	srv, err := newServer()
	if err != nil {
		cli.Exit(name, err)
	}
	switch {
	case mode.Stdio:
		err = srv.ServeStdio(ctx)
	case mode.HTTP != "":
		err = streamable.ListenAndServe(ctx, mode.HTTP, at{cli.HTTPPath, streamable.NewHandler(srv, nil)})
	default:
		h := streamable.NewLegacyHandler(srv, &streamable.LegacyOptions{Authenticate: authenticate})
		err = streamable.ListenAndServe(ctx, mode.SSE, at{cli.SSEPath, h})
	}
	cli.Exit(name, err)
}

// args are the arguments of every tool; each reads the ones it needs.
type args struct {
	Prompt string `json:"prompt"`
	Ms     int    `json:"ms"`
	N      int    `json:"n"`
	Size   int    `json:"size"`
}

// tool adapts a handler of decoded args and text results to a
// server.ToolHandler.
func tool(h func(ctx context.Context, a args) (string, error)) server.ToolHandler {
	return func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var a args
		if len(p.Arguments) > 0 {
			if err := json.Unmarshal(p.Arguments, &a); err != nil {
				return nil, fmt.Errorf("arguments: %w", err)
			}
		}
		text, err := h(ctx, a)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}, nil
	}
}

func newServer() (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "mcpgen-hostile", Version: "1.0.0"}, nil)
	var slow tally.Slow
	tools := []struct {
		name string
		h    func(ctx context.Context, a args) (string, error)
	}{
		{"sample", sample},
		{"slow", func(ctx context.Context, a args) (string, error) {
			return "slept", slow.Sleep(ctx, ms(a.Ms))
		}},
		{"count", func(context.Context, args) (string, error) { return slow.String(), nil }},
		{"spam", spam},
	}
	for _, t := range tools {
		def := mcp.Tool{Name: t.name}
		if err := handler.AddTool(s, def, `{"type":"object"}`, "", tool(t.h), server.InputCheckedByHandler()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func sample(ctx context.Context, a args) (string, error) {
	r, err := server.CreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages: []mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: a.Prompt}},
		}},
		MaxTokens: 10,
	})
	if err != nil {
		return "", fmt.Errorf("sampling: %w", err)
	}
	if t, ok := r.Content.Value.(*mcp.TextContent); ok {
		return t.Text, nil
	}
	return "(no text)", nil
}

func spam(ctx context.Context, a args) (string, error) {
	err := tally.Spam(a.N, a.Size, func(i int, msg string) error {
		return server.Progress(ctx, float64(i+1), float64(a.N), msg)
	})
	return "spammed", err
}

// ms is n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// authenticate identifies the user of a -sse request by its bearer token.
func authenticate(r *http.Request) (any, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if user, known := cli.Users[token]; ok && known {
		return user, nil
	}
	return nil, errors.New("unknown bearer token")
}

// at serves h at path alone and passes Shutdown and Close on to h, so
// that ListenAndServe's shutdown lets the calls in progress finish.
type at struct {
	path string
	h    interface {
		http.Handler
		Shutdown(ctx context.Context) error
		Close() error
	}
}

func (a at) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != a.path {
		http.NotFound(w, r)
		return
	}
	a.h.ServeHTTP(w, r)
}

func (a at) Shutdown(ctx context.Context) error { return a.h.Shutdown(ctx) }

func (a at) Close() error { return a.h.Close() }
