package server

import (
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/metakey"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Caching says how long a client, or a cache between it and the server,
// may keep a result of 2026-07-28 (ttlMs and cacheScope, SEP-2549). The
// zero Caching is the safe default: immediately stale, private.
type Caching struct {
	// TTL is how long the result may be taken as fresh; zero means it is
	// stale at once, negative values are taken as zero.
	TTL time.Duration
	// Public says the result holds nothing specific to the caller, so a
	// shared cache may serve it to anyone. Results are private otherwise:
	// reused only for the same authorization context. Leave it false for
	// anything that depends on who asks; the spec warns that a public
	// per-user list leaks to other users.
	Public bool
}

func (c Caching) ttlMs() int64 { return max(c.TTL.Milliseconds(), 0) }

func (c Caching) scope() string {
	if c.Public {
		return "public"
	}
	return "private"
}

// finish completes a result for a 2026-07-28 client: resultType, the
// server's identity in _meta, and caching hints where the spec wants them.
// It works on a copy: a handler may return one result value to many
// requests.
func (s *Server) finish(r *request, msg mcp.Message) mcp.Message {
	c := s.opts.Caching
	if r.caching != nil { // a resource's own, or a list filtered per caller (visible.go)
		c = *r.caching
	}
	switch v := msg.(type) {
	case *mcp.CallToolResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		return &out
	case *mcp.GetPromptResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		return &out
	case *mcp.CompleteResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		return &out
	case *mcp.ReadResourceResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		if out.CacheScope == "" {
			out.CacheScope = mcp.ReadResourceResultCacheScope(c.scope())
			out.SetTTLMs(c.ttlMs())
		} else {
			out.SetTTLMs(max(out.TTLMs, 0))
		}
		return &out
	case *mcp.ListToolsResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		out.CacheScope = mcp.ListToolsResultCacheScope(c.scope())
		out.SetTTLMs(c.ttlMs())
		return &out
	case *mcp.ListPromptsResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		out.CacheScope = mcp.ListPromptsResultCacheScope(c.scope())
		out.SetTTLMs(c.ttlMs())
		return &out
	case *mcp.ListResourcesResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		out.CacheScope = mcp.ListResourcesResultCacheScope(c.scope())
		out.SetTTLMs(c.ttlMs())
		return &out
	case *mcp.ListResourceTemplatesResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		out.CacheScope = mcp.ListResourceTemplatesResultCacheScope(c.scope())
		out.SetTTLMs(c.ttlMs())
		return &out
	case *mcp.DiscoverResult:
		out := *v
		out.ResultType, out.Meta = "complete", s.resultMeta(v.Meta)
		out.CacheScope = mcp.DiscoverResultCacheScope(c.scope())
		out.TTLMs = c.ttlMs()
		return &out
	case *mcp.SubscriptionsListenResult:
		out := *v
		out.ResultType = "complete"
		if out.Meta.ServerInfo == nil {
			out.Meta.ServerInfo = &s.info
		}
		return &out
	case *mcp.InputRequiredResult:
		out := *v
		out.ResultType, out.Meta = "input_required", s.resultMeta(v.Meta)
		return &out
	}
	return msg
}

// checkResultMeta refuses a result whose _meta holds a key that user code
// may not write: one that breaks the key grammar, or one under a prefix
// the specification reserves. The result never goes out: the client gets
// an internal error naming the key, and the author a log line.
func (s *Server) checkResultMeta(r *request, msg mcp.Message) error {
	var m *mcp.ResultMetaObject
	switch v := msg.(type) {
	case *mcp.CallToolResult:
		m = v.Meta
	case *mcp.GetPromptResult:
		m = v.Meta
	case *mcp.ReadResourceResult:
		m = v.Meta
	case *mcp.CompleteResult:
		m = v.Meta
	}
	if m == nil {
		return nil
	}
	for k := range m.Extra {
		if err := metakey.CheckUser(k); err != nil {
			s.log.Error("a handler's result has a _meta key it may not use", "method", r.method, "error", err)
			return jsonrpc.ErrInternal("the result of " + r.method + " has an invalid _meta key: " + err.Error())
		}
	}
	return nil
}

// resultMeta returns the _meta of a result with the server's identity in
// it, as 2026-07-28 asks of every result; a handler's own _meta entries
// are kept, and an identity it set wins.
func (s *Server) resultMeta(m *mcp.ResultMetaObject) *mcp.ResultMetaObject {
	if m == nil {
		return &s.infoMeta // read only: shared by every result without a _meta of its own
	}
	if m.ServerInfo != nil {
		return m
	}
	out := *m
	out.ServerInfo = &s.info
	return &out
}

// ResourceNotFoundError is the error of a resources/read for a URI that
// nothing serves.
type ResourceNotFoundError struct {
	URI string
}

// ResourceNotFound returns the error a resource handler returns for a URI
// it does not serve. The engine answers it with the code of the client's
// version: -32602 in 2026-07-28, -32002 before, with the URI in data.
func ResourceNotFound(uri string) error { return &ResourceNotFoundError{URI: uri} }

func (e *ResourceNotFoundError) Error() string { return "resource not found: " + e.URI }

func (e *ResourceNotFoundError) wire(modern bool) *jsonrpc.Error {
	code := int64(CodeResourceNotFound)
	if modern {
		code = jsonrpc.CodeInvalidParams
	}
	out := jsonrpc.NewError(code, "resource not found: "+e.URI)
	out.Data, _ = (&mcp.ResourceUpdatedNotificationParams{URI: e.URI}).MarshalJSON()
	return out
}

// outgoingError enforces the error-code rules of the client's version on
// an error about to be sent: the MCP specification reserves -32020 to
// -32099 for the codes it defines, and 2026-07-28 retired -32002 and
// -32042. An error that breaks them never reaches the client as it is.
func (s *Server) outgoingError(r *request, err error) error {
	if nf, ok := errors.AsType[*ResourceNotFoundError](err); ok {
		return nf.wire(r.modern())
	}
	e, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok {
		return err
	}
	switch {
	case e.Code <= -32020 && e.Code >= -32099 && !specCode(e.Code):
		s.log.Error("a handler returned an error code the MCP specification reserves; answering -32603", "method", r.method, "code", e.Code, "message", e.Message)
		return jsonrpc.ErrInternal("internal error")
	case r.modern() && e.Code == CodeResourceNotFound:
		out := *e
		out.Code = jsonrpc.CodeInvalidParams
		return &out
	case r.modern() && e.Code == mcp.CodeURLElicitationRequired:
		s.log.Error("a handler returned -32042, which 2026-07-28 retired; answering -32603", "method", r.method)
		return jsonrpc.ErrInternal("internal error")
	}
	return err
}

// specCode reports whether the MCP specification defines code in the
// range it reserves.
func specCode(code int64) bool {
	switch code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion, mcp.CodeURLElicitationRequired:
		return true
	}
	return false
}
