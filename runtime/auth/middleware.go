package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Options configure a Middleware.
type Options struct {
	// Verifier checks the access tokens. Required.
	Verifier TokenVerifier
	// Resource is this MCP server's canonical resource URI: what tokens
	// name in their audience, and what the Protected Resource Metadata
	// describes. Required.
	Resource string
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers a client may get tokens from, listed in the
	// metadata. At least one is required.
	AuthorizationServers []string
	// Scopes are the scopes a client needs to use the server at all: the
	// scope parameter of a 401's challenge (which a client asks for
	// first) and, unless ScopesSupported says otherwise, the metadata's
	// scopes_supported. Required scopes of single tools (server.WithScopes)
	// are asked for when they are refused, with a 403.
	Scopes []string
	// ScopesSupported lists, in the metadata, every scope the server
	// knows; nil means Scopes.
	ScopesSupported []string
	// ResourceName and ResourceDocumentation go into the metadata.
	ResourceName          string
	ResourceDocumentation string
	// Logger hears of tokens that cannot be verified for a reason other
	// than the token (an unreachable authorization server). Tokens are
	// never logged. Nil discards.
	Logger *slog.Logger
}

// Middleware guards MCP endpoints with OAuth bearer tokens as the MCP
// authorization spec says a resource server must, and serves the
// Protected Resource Metadata that tells clients where to get them.
//
// A request without a token is answered 401 with
// WWW-Authenticate: Bearer resource_metadata="…", scope="…"; one whose
// token the Verifier refuses, 401 with error="invalid_token"; one that
// carries a token in its query string, 400 with error="invalid_request"
// (tokens go in the Authorization header only). A request whose token is
// valid reaches the wrapped handler with its TokenInfo (TokenInfoFrom) and
// its Principal (server.PrincipalFrom) in its ctx.
//
// A request the engine refuses for lacking a tool's, prompt's or
// resource's required scopes is answered 403 with
// WWW-Authenticate: Bearer error="insufficient_scope", scope="…",
// resource_metadata="…" when its response has not started yet and would
// be a 200 application/json one: always for 2026-07-28 requests (the scope
// check runs before anything is written), and for a POST of one request
// to a Streamable HTTP session, which streamable checks before it starts
// the answer's SSE stream (server.Server.CheckScopes). The 2024-11-05
// HTTP+SSE transport, whose POSTs are answered 202 before the request is
// served, gets the JSON-RPC error (server.CodeInsufficientScope) alone. A
// legacy JSON batch (2025-03-26) with one request refused so is answered
// 403 as a whole, its body still holding every response.
type Middleware struct {
	opts        Options
	metadataURL string
	document    []byte
}

// New returns a Middleware, checking its options.
func New(opts Options) (*Middleware, error) {
	if opts.Verifier == nil {
		return nil, errors.New("auth: Options.Verifier is required")
	}
	if len(opts.AuthorizationServers) == 0 {
		return nil, errors.New("auth: Options.AuthorizationServers needs at least one issuer")
	}
	u, err := metadata.ProtectedResourceURL(opts.Resource)
	if err != nil {
		return nil, errors.New("auth: Options.Resource: " + err.Error())
	}
	for _, s := range append(opts.Scopes, opts.ScopesSupported...) {
		if !validScope(s) {
			return nil, errors.New("auth: " + quoteParam(s) + " is not a valid scope")
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Middleware{opts: opts, metadataURL: u}
	doc := metadata.ProtectedResource{
		Resource:               opts.Resource,
		AuthorizationServers:   opts.AuthorizationServers,
		ScopesSupported:        opts.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           opts.ResourceName,
		ResourceDocumentation:  opts.ResourceDocumentation,
	}
	if doc.ScopesSupported == nil {
		doc.ScopesSupported = opts.Scopes
	}
	if m.document, err = doc.MarshalJSON(); err != nil {
		return nil, err
	}
	return m, nil
}

// MetadataURL returns where the Protected Resource Metadata is served:
// the well-known URL of RFC 9728 derived from the resource URI.
func (m *Middleware) MetadataURL() string { return m.metadataURL }

// Wrap returns next guarded by bearer tokens.
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(next, w, r)
	})
}

func (m *Middleware) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); q.Has("access_token") {
		m.refuse(w, http.StatusBadRequest, "invalid_request", "access tokens go in the Authorization header, never in the URL")
		return
	}
	token, problem := bearer(r.Header.Values("Authorization"))
	switch {
	case problem != "":
		m.refuse(w, http.StatusBadRequest, "invalid_request", problem)
		return
	case token == "":
		m.refuse(w, http.StatusUnauthorized, "", "")
		return
	}
	info, err := m.opts.Verifier.Verify(r.Context(), token)
	if err == nil && info == nil {
		err = errors.New("the verifier returned no token info")
	}
	if err == nil && info.Subject == "" {
		err = invalid("it has no subject to bind sessions to")
	}
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			m.refuse(w, http.StatusUnauthorized, "invalid_token", strings.TrimPrefix(err.Error(), "invalid token: "))
			return
		}
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return // the client went away
		}
		m.opts.Logger.Warn("auth: cannot verify an access token", "err", err)
		writeError(w, http.StatusServiceUnavailable, "the access token cannot be verified now; try again later")
		return
	}
	cw := &challengeWriter{ResponseWriter: w, m: m}
	ctx := context.WithValue(r.Context(), grantKey{}, &grant{info: info, w: cw})
	ctx = server.WithPrincipal(ctx, info.Principal())
	next.ServeHTTP(cw, r.WithContext(ctx))
}

// bearer reads the token of the Authorization headers: "" when there is
// none, and a problem to answer with 400 when they are malformed.
func bearer(headers []string) (token, problem string) {
	switch len(headers) {
	case 0:
		return "", ""
	case 1:
	default:
		return "", "more than one Authorization header"
	}
	scheme, rest, _ := strings.Cut(strings.TrimSpace(headers[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", "" // another scheme: as if there were no token, so the client learns the one wanted
	}
	token = strings.TrimLeft(rest, " ")
	if token == "" || !token68(token) {
		return "", "the bearer token is malformed"
	}
	return token, ""
}

// token68 reports whether s is RFC 6750's b64token.
func token68(s string) bool {
	end := strings.TrimRight(s, "=")
	if end == "" {
		return false
	}
	for i := 0; i < len(end); i++ {
		c := end[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// refuse answers with status and a Bearer challenge: errCode "" for a
// request without credentials.
func (m *Middleware) refuse(w http.ResponseWriter, status int, errCode, description string) {
	w.Header().Set("WWW-Authenticate", m.challenge(errCode, description, m.opts.Scopes))
	msg := "unauthorized"
	switch {
	case description != "":
		msg += ": " + description
	case errCode == "":
		msg += ": this server needs an OAuth access token; its metadata is at " + m.metadataURL
	}
	writeError(w, status, msg)
}

// challenge builds a WWW-Authenticate value.
func (m *Middleware) challenge(errCode, description string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if errCode != "" {
		b.WriteString(`error="` + errCode + `", `)
		if description != "" {
			b.WriteString(`error_description="` + quoteParam(description) + `", `)
		}
	}
	if len(scopes) > 0 {
		b.WriteString(`scope="` + quoteParam(strings.Join(scopes, " ")) + `", `)
	}
	b.WriteString(`resource_metadata="` + quoteParam(m.metadataURL) + `"`)
	return b.String()
}

// quoteParam keeps what RFC 6750 allows inside a quoted auth-param:
// printable ASCII but for the double quote and the backslash.
func quoteParam(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, s)
}

// validScope reports whether s is a scope-token of RFC 6749 section 3.3.
func validScope(s string) bool {
	return s != "" && quoteParam(s) == s && !strings.Contains(s, " ")
}

// writeError answers with status and a JSON-RPC error without an id, as
// the transport does for what it refuses.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, msg)))
}

// challengeWriter is the ResponseWriter of a verified request: it turns
// the response into a 403 insufficient_scope challenge when the engine
// refused the request for lacking scopes before the response started.
type challengeWriter struct {
	http.ResponseWriter
	m *Middleware

	mu      sync.Mutex
	started bool
	denied  []string // the scopes of the last refusal; nil when none
}

// deny records a refusal naming required.
func (c *challengeWriter) deny(required []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.denied = append([]string(nil), required...)
	}
}

// WriteHeader sends the status, 403 instead of 200 for a JSON answer to
// a request that was refused for lacking scopes.
func (c *challengeWriter) WriteHeader(status int) {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		c.ResponseWriter.WriteHeader(status)
		return
	}
	c.started = true
	denied := c.denied
	c.mu.Unlock()
	if denied != nil && status == http.StatusOK && isJSON(c.Header().Get("Content-Type")) {
		c.Header().Set("WWW-Authenticate", c.m.challenge("insufficient_scope", "the request needs more scopes", denied))
		status = http.StatusForbidden
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *challengeWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	if !started {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController.Flush calls.
func (c *challengeWriter) FlushError() error {
	c.mu.Lock()
	started := c.started
	c.mu.Unlock()
	if !started {
		c.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(c.ResponseWriter).Flush()
}

// Flush implements http.Flusher.
func (c *challengeWriter) Flush() { c.FlushError() }

// Unwrap gives http.ResponseController the ResponseWriter underneath.
func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// isJSON reports whether a Content-Type is application/json.
func isJSON(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(t), "application/json")
}
