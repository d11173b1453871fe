package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// endpoint is the path of the MCP endpoint.
const endpoint = "/mcp"

// serveHTTP serves srv over Streamable HTTP at /mcp on the connections ln
// accepts until ctx ends, and closes ln; behind bearer tokens when am is
// not nil, with the sessions and events in Redis when sh is not nil.
func serveHTTP(ctx context.Context, srv *server.Server, ln net.Listener, log *slog.Logger, am *authMode, sh *shared) error {
	if am != nil {
		am.shared = sh
		g, err := am.handler(srv, log)
		if err != nil {
			ln.Close()
			return err
		}
		return streamable.Serve(ctx, ln, g, nil)
	}
	h := streamable.NewHandler(srv, sh.handlerOptions(&streamable.HandlerOptions{Logger: log}))
	return streamable.Serve(ctx, ln, onlyAt{endpoint, h}, nil)
}

// onlyAt serves h at one path and 404 elsewhere. It passes Shutdown and
// Close on to h, so that shutting down lets the calls in progress finish
// and then ends the sessions and their streams.
type onlyAt struct {
	path string
	h    *streamable.Handler
}

func (o onlyAt) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != o.path {
		http.NotFound(w, r)
		return
	}
	o.h.ServeHTTP(w, r)
}

func (o onlyAt) Shutdown(ctx context.Context) error { return o.h.Shutdown(ctx) }

func (o onlyAt) Close() error { return o.h.Close() }
