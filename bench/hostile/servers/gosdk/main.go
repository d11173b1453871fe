// Command gosdk is the hostile-client harness's server on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk), with the tools of the
// mcpgen one and built the way the SDK's documentation shows: typed
// tools added with mcp.AddTool, Run over mcp.StdioTransport on stdio,
// and the Streamable HTTP (or SSE, behind auth.RequireBearerToken)
// handler on a plain http.Server, since the SDK has no server of its
// own. On SIGTERM that server shuts down gracefully for up to ten
// seconds, as streamable.ListenAndServe promises to.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/bench/hostile/servers/internal/cli"
	"github.com/mcpgen/mcpgen/bench/hostile/servers/internal/tally"
)

const name = "gosdk"

func main() {
	mode := cli.Parse(name)
	ctx, stop := cli.Context()
	defer stop()
	srv := newServer()
	var err error
	switch {
	case mode.Stdio:
		err = srv.Run(ctx, &mcp.StdioTransport{})
		if errors.Is(err, context.Canceled) {
			err = nil
		}
	case mode.HTTP != "":
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		err = serve(ctx, mode.HTTP, cli.HTTPPath, h)
	default:
		h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		err = serve(ctx, mode.SSE, cli.SSEPath, auth.RequireBearerToken(verify, nil)(h))
	}
	cli.Exit(name, err)
}

// args are the arguments of every tool; each reads the ones it needs.
type args struct {
	Prompt string `json:"prompt,omitempty"`
	Ms     int    `json:"ms,omitempty"`
	N      int    `json:"n,omitempty"`
	Size   int    `json:"size,omitempty"`
}

// text is a tool result of one text block.
func text(s string, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil, nil
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-hostile", Version: "1.0.0"}, nil)
	var slow tally.Slow
	mcp.AddTool(s, &mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return text(sample(ctx, req.Session, a.Prompt))
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return text("slept", slow.Sleep(ctx, time.Duration(a.Ms)*time.Millisecond))
	})
	mcp.AddTool(s, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return text(slow.String(), nil)
	})
	mcp.AddTool(s, &mcp.Tool{Name: "spam"}, func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		token := req.Params.GetProgressToken()
		return text("spammed", tally.Spam(a.N, a.Size, func(i int, msg string) error {
			return req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i + 1), Total: float64(a.N), Message: msg,
			})
		}))
	})
	return s
}

func sample(ctx context.Context, ss *mcp.ServerSession, prompt string) (string, error) {
	r, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: 10,
	})
	if err != nil {
		return "", fmt.Errorf("sampling: %w", err)
	}
	if t, ok := r.Content.(*mcp.TextContent); ok {
		return t.Text, nil
	}
	return "(no text)", nil
}

// verify identifies the user of a -sse request by its bearer token.
func verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	user, ok := cli.Users[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
}

// serve serves h at path on addr until ctx ends, then shuts down
// gracefully for up to ten seconds.
func serve(ctx context.Context, addr, path string, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle(path, h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
