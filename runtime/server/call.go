package server

import (
	"context"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/clip"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Call is one request of the stateless era (2026-07-28) as a transport
// hands it to ServeCall.
type Call struct {
	ID     jsonrpc.ID
	Method string
	// Params is the raw JSON of the request's params, nil for none.
	Params []byte
	// Header holds the HTTP headers the request arrived with, nil on
	// transports without headers. The engine checks the values 2026-07-28
	// mirrors into headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
	// Mcp-Param-*) against the body.
	Header http.Header
	// Out carries the notifications the request causes (progress, log
	// messages, a subscription's changes) to its client; nil drops them,
	// and refuses subscriptions/listen, whose changes are all it sends.
	Out Notifier
}

// ServeCall serves one request of the stateless era, which belongs to no
// session: its protocol version, client capabilities, client info and log
// level come from its params._meta, and the principal from ctx (see
// WithPrincipal). It returns the raw JSON result, or an error to send as
// the response: a *jsonrpc.Error with the code 2026-07-28 prescribes.
// Handlers run with a ctx derived from ctx, which ends the request when it
// ends.
//
// Transports call it for requests whose _meta (or HTTP
// MCP-Protocol-Version header) names a 2026-07-28-era version; Serve calls
// it for such requests arriving on a stream, interleaved with a legacy
// session's. A request without the required _meta fields is -32602, a
// version the engine does not serve per request is -32022 with the
// supported versions, headers that disagree with the body are -32020, and
// methods the era removed are -32601.
func (s *Server) ServeCall(ctx context.Context, c *Call) ([]byte, error) {
	return s.serveCall(ctx, c, scanMeta(c.Params))
}

func (s *Server) serveCall(ctx context.Context, c *Call, m requestMeta) ([]byte, error) {
	r, err := s.modernRequest(ctx, c, m)
	if err != nil {
		return nil, err
	}
	return s.serve(ctx, r, c.Params)
}

// modernRequest builds the request context of a 2026-07-28 request from
// its _meta, or says why the request is refused. The order of the checks
// is the order a client needs the answers in: what is missing, then what
// the headers contradict, then what the server does not speak.
func (s *Server) modernRequest(ctx context.Context, c *Call, m requestMeta) (*request, error) {
	switch {
	case !m.present:
		return nil, invalidMeta("params._meta: required: a 2026-07-28 request carries its protocol version and client capabilities in _meta")
	case m.version == nil:
		return nil, invalidMeta("params._meta." + metaProtocolVersion + ": required")
	case m.capabilities == nil:
		return nil, invalidMeta("params._meta." + metaClientCapabilities + ": required")
	}
	version, ok := rawString(m.version)
	if !ok {
		return nil, invalidMeta("params._meta." + metaProtocolVersion + ": must be a string")
	}
	if c.Header != nil {
		if err := checkStandardHeaders(c, version); err != nil {
			return nil, err
		}
	}
	v := mcp.ProtocolVersion(version)
	if !v.Supported() || v.Era() != mcp.EraModern {
		return nil, unsupportedVersion(version)
	}
	r := &request{
		id:            c.ID,
		method:        c.Method,
		version:       v,
		capsRaw:       m.capabilities,
		clientRaw:     m.clientInfo,
		logLevel:      -1,
		principal:     ctx.Value(principalKey{}),
		progressToken: m.progressToken,
		meta:          m.raw,
		out:           c.Out,
	}
	if m.logLevel != nil {
		level, _ := rawString(m.logLevel)
		if r.logLevel = levelIndex(mcp.LoggingLevel(level)); r.logLevel < 0 {
			return nil, invalidMeta("params._meta." + metaLogLevel + ": not a logging level: " + quote(string(m.logLevel)))
		}
	}
	if c.Header != nil && c.Method == mcp.MethodCallTool {
		if err := s.checkParamHeaders(c); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func invalidMeta(msg string) error { return jsonrpc.ErrInvalidParams("invalid params: " + msg) }

// unsupportedVersion is the -32022 error for a version the engine does
// not serve per request, listing the ones it does.
func unsupportedVersion(requested string) error {
	modern := mcp.EraModern.Versions()
	e := jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "unsupported protocol version "+quote(requested)+": requests with per-request _meta speak "+joinVersions(modern))
	e.Data = versionErrorData(requested, modern)
	return e
}

// versionErrorData is the data of a -32022 error: the versions offered,
// in order of preference, and the one the client asked for.
func versionErrorData(requested string, supported []mcp.ProtocolVersion) []byte {
	d := mcp.UnsupportedProtocolVersionErrorErrorData{Requested: requested, Supported: make([]string, len(supported))}
	for i, v := range supported {
		d.Supported[i] = string(v)
	}
	data, _ := d.MarshalJSON() // strings only: it cannot fail
	return data
}

// serve runs a request through the middleware chain and the generated
// dispatch, in either era, and encodes its result as the era wants it.
func (s *Server) serve(ctx context.Context, r *request, params []byte) (result []byte, err error) {
	defer func() {
		// Handlers recover their own panics; this catches middleware's,
		// which would otherwise take an HTTP request's goroutine down.
		if v := recover(); v != nil {
			s.log.Error("serving a request panicked", "method", r.method, "panic", v, "stack", string(debug.Stack()))
			result, err = nil, jsonrpc.ErrInternal("internal error: serving "+r.method+" panicked")
		}
	}()
	ctx = withRequest(ctx, r)
	chain := s.currentChain()
	if r.session != nil {
		chain = r.session.chain
	}
	msg, err := chain(ctx, &Request{Session: r.session, ID: r.id, Method: r.method, Params: params, ProtocolVersion: r.version})
	if err != nil {
		return nil, s.outgoingError(r, err)
	}
	if r.modern() {
		if err := s.checkResultMeta(r, msg); err != nil {
			return nil, err
		}
		msg = s.finish(r, msg)
	}
	out, err := mcp.AppendJSON(make([]byte, 0, resultBuffer), msg)
	if err != nil {
		s.log.Error("result does not encode", "method", r.method, "error", err)
		return nil, jsonrpc.ErrInternal("the result of " + r.method + " does not encode: " + err.Error())
	}
	return out, nil
}

// resultBuffer is the room a result's encoding starts with: enough for a
// small tool result and its _meta, so that most need no regrowth.
const resultBuffer = 512

// dispatch is the innermost handler of every chain: the generated
// dispatch into the engine's handlers. A round of a multi round-trip
// request that asks the client for input ends here as the
// InputRequiredResult it is, so middleware sees it as a result.
func (s *Server) dispatch(ctx context.Context, req *Request) (mcp.Message, error) {
	r := requestOf(ctx)
	if r.modern() && isTasksMethod(req.Method) && s.hasTaskTools() {
		return s.dispatchTasks(ctx, r, req)
	}
	msg, err := mcp.DispatchServerRequest(ctx, dispatcher{s}, r.version, req.Method, req.Params)
	switch e := err.(type) {
	case *inputRequired:
		return e.result, nil
	case *taskCreated:
		return e.result, nil
	case *relayed:
		return e.result, nil
	}
	return msg, err
}

func joinVersions(vs []mcp.ProtocolVersion) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(v))
	}
	return b.String()
}

// quote quotes a value a client sent for an error message: short, and
// with control characters escaped.
func quote(s string) string { return clip.Quote(s, 100) }
