package streamable

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// scopeChecker is a Server that can tell, before a request is served,
// whether it would be refused for lacking OAuth scopes; *server.Server is
// one (Server.CheckScopes).
type scopeChecker interface {
	CheckScopes(ctx context.Context, method string, params []byte) error
}

// refuseScopes answers a legacy session's POST of one request that the
// server would refuse for lacking scopes, before the answer's SSE stream
// starts: its status is then still free, and the JSON-RPC error goes out
// as a JSON body, which runtime/auth's middleware turns into the 403
// insufficient_scope challenge a client steps up on. The request never
// reaches the session. It reports whether it answered. A batch is left
// to the engine, whose refusal names each request.
func (h *Handler) refuseScopes(w http.ResponseWriter, r *http.Request, b *body, identity any) bool {
	sc, ok := h.srv.(scopeChecker)
	if !ok || b.batch || len(b.msgs) != 1 || b.msgs[0].Kind() != jsonrpc.MessageRequest {
		return false
	}
	m := &b.msgs[0]
	err := sc.CheckScopes(server.WithPrincipal(r.Context(), identity), m.Method, m.Params)
	e, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok {
		return false
	}
	writeJSON(w, http.StatusOK, jsonrpc.AppendError(nil, m.ID, e))
	return true
}
