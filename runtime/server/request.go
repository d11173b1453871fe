package server

import (
	"context"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// request is what the engine knows of the request a handler serves, in
// either era: the one place a handler's ctx learns about its caller. A
// 2026-07-28 request fills it from the request's own _meta; a request of
// a legacy session fills it from the session's initialize. Nothing below
// the era gate asks which era it serves except where the wire differs.
type request struct {
	// session is the legacy session the request arrived on; nil for a
	// 2026-07-28 request, which belongs to no session.
	session *Session
	id      jsonrpc.ID
	method  string
	version mcp.ProtocolVersion
	// caps are the capabilities the client declared, in initialize or in
	// the request's _meta; client is what the client said of itself, nil
	// when it did not. A legacy request has them from its session. A
	// 2026-07-28 request has them as raw JSON (capsRaw, clientRaw) that
	// is decoded on first use, by capabilities and clientInfo: most
	// requests never ask, and the generated dispatch has already checked
	// them with the rest of the params.
	caps      *mcp.ClientCapabilities
	client    *mcp.Implementation
	capsRaw   []byte
	clientRaw []byte
	decode    sync.Once
	// logLevel is the index into levels of the lowest level the request
	// asked to hear, or -1 when it asked for none (2026-07-28 only; a
	// legacy session's level is the session's).
	logLevel int
	// principal is who the transport authenticated, nil when it did not.
	principal any
	// progressToken is the raw JSON of _meta.progressToken, nil when the
	// client asked for no progress. It is echoed byte for byte.
	progressToken []byte
	// meta is the raw JSON of params._meta, nil when the request has none.
	meta []byte
	// out carries the notifications a 2026-07-28 request causes to its
	// client (its SSE stream, or the stdio stream); nil for a legacy
	// request, whose session sends them.
	out Notifier
	// input holds the rounds of a 2026-07-28 request that may end with an
	// InputRequiredResult (tools/call, prompts/get, resources/read); nil
	// for every other request and for legacy ones. It points at rounds.
	input  *rounds
	rounds rounds
	// caching is what the resource a resources/read found was registered
	// with (ResourceCaching), or, for a list a Visibility filtered, the
	// server's Options.Caching made private; nil means Options.Caching.
	caching *Caching
	// task is the task the request's handler runs as, nil when it runs
	// synchronously; starter, for a call that may still become a task
	// (WithInputBeforeTask), is what StartTask uses to do so.
	task    *taskRun
	starter *taskStarter
}

// Notifier sends notifications to the client of a request. A
// *jsonrpc.Conn is one; Streamable HTTP gives each 2026-07-28 request its
// own, writing to that request's response.
type Notifier interface {
	Notify(ctx context.Context, method string, params []byte) error
}

// capabilities returns what the client declared, never nil.
func (r *request) capabilities() *mcp.ClientCapabilities {
	r.decodeMeta()
	return r.caps
}

// clientInfo returns what the client said of itself, or nil.
func (r *request) clientInfo() *mcp.Implementation {
	r.decodeMeta()
	return r.client
}

// decodeMeta decodes a 2026-07-28 request's capabilities and client info
// once. Values that do not decode (which the dispatch refuses before any
// handler runs) read as none declared.
func (r *request) decodeMeta() {
	r.decode.Do(func() {
		if r.caps == nil {
			r.caps = new(mcp.ClientCapabilities)
			if r.caps.UnmarshalJSON(r.capsRaw) != nil {
				r.caps = noCapabilities
			}
		}
		if r.client == nil && r.clientRaw != nil {
			r.client = new(mcp.Implementation)
			if r.client.UnmarshalJSON(r.clientRaw) != nil {
				r.client = nil
			}
		}
	})
}

// modern reports whether the request is of the stateless era.
func (r *request) modern() bool { return r.session == nil }

// notify sends a notification that the request caused.
func (r *request) notify(ctx context.Context, method string, params []byte) error {
	if r.session != nil {
		return r.session.notify(ctx, method, params)
	}
	if r.out == nil {
		return nil // the transport carries no notifications for this request
	}
	return r.out.Notify(ctx, method, params)
}

type requestKey struct{}

func withRequest(ctx context.Context, r *request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx that names who the transport
// authenticated. Transports call it on the ctx they serve a request or a
// session with; handlers read it back with PrincipalFrom. State that a
// client hands back (requestState, cursors) is bound to it.
func WithPrincipal(ctx context.Context, principal any) context.Context {
	if principal == nil {
		return ctx
	}
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalFrom returns who the transport authenticated for the request
// that ctx serves, or nil when nobody was.
func PrincipalFrom(ctx context.Context) any {
	if r := requestOf(ctx); r != nil {
		return r.principal
	}
	return ctx.Value(principalKey{})
}

// ProtocolVersion returns the protocol version of the request that ctx
// serves, or "" when ctx serves none.
func ProtocolVersion(ctx context.Context) mcp.ProtocolVersion {
	if r := requestOf(ctx); r != nil {
		return r.version
	}
	return ""
}

// ClientCapabilities returns the capabilities the client of the request
// that ctx serves declared, in the request's _meta or in initialize, or
// nil when ctx serves none. The caller must not modify them.
func ClientCapabilities(ctx context.Context) *mcp.ClientCapabilities {
	if r := requestOf(ctx); r != nil {
		return r.capabilities()
	}
	return nil
}

// ClientCapabilitiesJSON returns the capabilities of ClientCapabilities as
// JSON: as the _meta of a 2026-07-28 request carried them, without an
// encode, or encoded once per legacy session; nil when ctx serves no
// request. It is for a proxy that declares them on to another server. The
// caller must not modify it.
func ClientCapabilitiesJSON(ctx context.Context) []byte {
	r := requestOf(ctx)
	switch {
	case r == nil:
		return nil
	case r.capsRaw != nil:
		return r.capsRaw
	case r.session != nil:
		return r.session.capabilitiesJSON()
	}
	return encodeCapabilities(r.capabilities())
}

func encodeCapabilities(c *mcp.ClientCapabilities) []byte {
	raw, err := c.MarshalJSON()
	if err != nil {
		return []byte(`{}`) // decoded from JSON: it cannot fail
	}
	return raw
}

// ClientInfo returns what the client of the request that ctx serves said
// of itself, or nil. It is self-reported: fit for logs, not for decisions.
func ClientInfo(ctx context.Context) *mcp.Implementation {
	if r := requestOf(ctx); r != nil {
		return r.clientInfo()
	}
	return nil
}

// RequestMeta returns the raw JSON of the params._meta object of the
// request that ctx serves, or nil when it has none or ctx serves no
// request. It lets a handler read the keys the engine does not, such as
// the trace context ("traceparent", "tracestate"). The caller must not
// modify it.
func RequestMeta(ctx context.Context) []byte {
	if r := requestOf(ctx); r != nil {
		return r.meta
	}
	return nil
}

// RequestID returns the JSON-RPC id of the request that ctx serves, or the
// zero ID when ctx serves none.
func RequestID(ctx context.Context) jsonrpc.ID {
	if r := requestOf(ctx); r != nil {
		return r.id
	}
	return jsonrpc.ID{}
}

// noCapabilities is what a client that declared nothing has.
var noCapabilities = &mcp.ClientCapabilities{}
