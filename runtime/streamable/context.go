package streamable

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// sessionKey is the ctx key of the *session that a Serve ctx, and every
// handler ctx derived from it, belongs to.
type sessionKey struct{}

// HTTPRequestFromContext returns the HTTP request that carried the MCP
// request whose handler ctx is given, or nil when ctx belongs to no
// request served by a Handler or a LegacyHandler. Its body has been read
// already, and its Context ends with the HTTP exchange, which may be
// before the handler is done (a client may drop an SSE stream and resume
// it; on HTTP+SSE the POST ends once its message is handed over): read
// its headers, URL and RemoteAddr, not its ctx.
func HTTPRequestFromContext(ctx context.Context) *http.Request {
	if c, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return c.req
	}
	if inf := inflightOf(ctx); inf != nil {
		return inf.req
	}
	if s, ok := ctx.Value(legacySessionKey{}).(*legacySession); ok {
		if r := jsonrpc.RequestFromContext(ctx); r != nil {
			return s.request(r.ID)
		}
	}
	return nil
}

// IdentityFromContext returns what HandlerOptions.Authenticate returned
// for the HTTP request that carried the MCP request whose handler ctx is
// given, or nil. On the HTTP+SSE transport of a LegacyHandler it is what
// LegacyOptions.Authenticate returned for the GET that opened the
// session, which every POST into the session matches.
func IdentityFromContext(ctx context.Context) any {
	if c, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return c.identity
	}
	if inf := inflightOf(ctx); inf != nil {
		return inf.identity
	}
	if s, ok := ctx.Value(legacySessionKey{}).(*legacySession); ok {
		return s.owner
	}
	return nil
}

func inflightOf(ctx context.Context) *inflight {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return nil
	}
	return s.lookup(ctx)
}
