package server

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Required scopes.
//
// A tool, prompt or resource registered with WithScopes, PromptScopes or
// ResourceScopes is served only to a request whose credentials grant every
// one of those OAuth scopes; the check runs before anything else of the
// request (arguments, tasks, rounds of input), in both eras. The engine
// learns the scopes from the request's principal, the value the transport
// authenticated (WithPrincipal): a principal that is a ScopeHolder has
// fixed scopes; one that is a RequestScoper has the scopes of the
// credentials each request came with, which is how runtime/auth's
// Principal works, since a legacy session outlives the access token it
// began with. A request without such a principal has no scopes, so a
// scoped tool is refused on a transport that authenticates nobody (stdio,
// unless its ctx names a principal).
//
// A refusal is a JSON-RPC error with CodeInsufficientScope whose data
// names the scopes the operation requires. Before it is sent, a holder
// that is also a ScopeChallenger hears of it: runtime/auth turns it into
// the HTTP 403 insufficient_scope challenge the MCP authorization spec
// asks for, where the response's status is not yet written.

// CodeInsufficientScope is the JSON-RPC error code of a request refused
// because its credentials lack a scope that the tool, prompt or resource
// it names requires. The MCP spec defines no code for it (over HTTP the
// answer's status, 403, says it); this one is mcpgen's, outside
// -32768..-32000 as 2026-07-28 asks of codes it does not define, and
// echoing the HTTP status. Its data is {"requiredScopes":["..."]}, every
// scope the operation requires.
const CodeInsufficientScope = -31403

// ScopeHolder is what a request's credentials say of the OAuth scopes
// they grant. runtime/auth's TokenInfo is one; so may be a principal of
// an application's own.
type ScopeHolder interface {
	HasScope(scope string) bool
}

// RequestScoper is a principal whose scopes are not its own but those of
// the credentials each request comes with: the principal stays the same
// across token refreshes and step-up authorization (so sessions, tasks and
// requestStates stay bound to it) while the scopes change. RequestScopes
// returns the credentials of the request ctx serves, or nil when there
// are none.
type RequestScoper interface {
	RequestScopes(ctx context.Context) ScopeHolder
}

// ScopeChallenger is a ScopeHolder that is told when a request was
// refused for lacking scopes, before the error is sent, so that the
// transport can answer with a challenge (HTTP 403 with WWW-Authenticate).
// required is every scope the operation requires; the callee must not
// modify it.
type ScopeChallenger interface {
	ChallengeScopes(ctx context.Context, required []string)
}

// WithScopes makes the tool callable only with credentials that grant
// every one of scopes (see ScopeHolder). The tool is still listed to
// everyone, so that a client can learn of it and ask for the scopes.
func WithScopes(scopes ...string) ToolOption {
	scopes = normalScopes(scopes)
	return func(t *tool) { t.scopes = scopes }
}

// PromptOption adjusts how a prompt is served.
type PromptOption func(*prompt)

// PromptScopes makes the prompt available only with credentials that
// grant every one of scopes, as WithScopes does for a tool.
func PromptScopes(scopes ...string) PromptOption {
	scopes = normalScopes(scopes)
	return func(p *prompt) { p.scopes = scopes }
}

// ResourceScopes makes the resource readable only with credentials that
// grant every one of scopes, as WithScopes does for a tool. It applies to
// resource templates as well (AddResourceTemplate), and to
// resources/read only: subscribing to a resource is open to everyone who
// may use the server, as listing it is.
func ResourceScopes(scopes ...string) ResourceOption {
	scopes = normalScopes(scopes)
	return func(r *resource) { r.scopes = scopes }
}

// normalScopes drops empty scopes and repeats, keeping the order given.
func normalScopes(scopes []string) []string {
	var out []string
	for _, s := range scopes {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// checkScopes refuses the request ctx serves unless its credentials grant
// every one of required.
func checkScopes(ctx context.Context, required []string) error {
	if len(required) == 0 {
		return nil
	}
	var holder ScopeHolder
	switch p := PrincipalFrom(ctx).(type) {
	case RequestScoper:
		holder = p.RequestScopes(ctx)
	case ScopeHolder:
		holder = p
	}
	var missing []string
	for _, s := range required {
		if holder == nil || !holder.HasScope(s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if c, ok := holder.(ScopeChallenger); ok {
		c.ChallengeScopes(ctx, required)
	}
	return insufficientScope(required, missing)
}

// insufficientScope is the error of a request refused for lacking scopes.
func insufficientScope(required, missing []string) *jsonrpc.Error {
	quoted := make([]string, len(missing))
	for i, s := range missing {
		quoted[i] = strconv.Quote(s)
	}
	msg := "insufficient scope: the request's credentials do not grant " + strings.Join(quoted, ", ")
	e := jsonrpc.NewError(CodeInsufficientScope, msg)
	data := []byte(`{"requiredScopes":[`)
	for i, s := range required {
		if i > 0 {
			data = append(data, ',')
		}
		data = jsonrpc.AppendString(data, s)
	}
	e.Data = append(data, "]}"...)
	return e
}

// noteScopes records that something registered requires scopes, so that
// CheckScopes has work to do; a server that never had scopes skips it.
func (s *Server) noteScopes(scopes []string) {
	if len(scopes) > 0 {
		s.scoped.Store(true)
	}
}

// CheckScopes tells a transport, before it commits to an answer, whether
// the request method with params would be refused for lacking scopes: it
// returns the same *jsonrpc.Error the engine would (and tells a
// ScopeChallenger, as the engine does), or nil when the request names
// nothing scoped or its credentials grant what it needs. ctx carries the
// principal (WithPrincipal) and whatever the principal reads its
// request's credentials from.
//
// Streamable HTTP calls it for a legacy session's POST before it starts
// the SSE stream of the answer: the engine's own check runs only once the
// stream has begun, too late for the 403 a client steps up on.
func (s *Server) CheckScopes(ctx context.Context, method string, params []byte) error {
	if !s.scoped.Load() {
		return nil
	}
	key := "name"
	if method == mcp.MethodReadResource {
		key = "uri"
	}
	var sc jsonrpc.Scanner
	sc.Reset(params)
	raw, ok := member(&sc, key)
	if !ok {
		return nil // malformed: the engine says what is wrong
	}
	name, ok := rawString(raw)
	if !ok {
		return nil
	}
	var required []string
	switch method {
	case mcp.MethodCallTool:
		if t := s.tool(name); t != nil {
			required = t.scopes
		}
	case mcp.MethodGetPrompt:
		if p := s.findPrompt(name); p != nil {
			required = p.scopes
		}
	case mcp.MethodReadResource:
		if res, tmpl, _ := s.findResource(name); res != nil || tmpl != nil {
			required = readScopes(res, tmpl)
		}
	}
	return checkScopes(ctx, required)
}

// readScopes returns the scopes a read of the resource, or of a URI of the
// template when there is no resource, requires.
func readScopes(res *resource, tmpl *template) []string {
	if res != nil {
		return res.scopes
	}
	return tmpl.scopes
}
