package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The downstream endpoints of a virtual server NAME:
//
//	/mcp/NAME           Streamable HTTP, both eras ("default" also at /mcp)
//	/mcp/NAME/sse       the HTTP+SSE transport of 2024-11-05: the stream (GET)
//	/mcp/NAME/message   and its messages (POST), as the endpoint event says
//	                    ("default" also at /sse and /message)
//	/rest/NAME/...      the REST facade, with a rest section (rest.go)
//
// A virtual server may itself be named "sse" or "message": it is served
// at /mcp/sse, which the legacy endpoints of "default" never take, since
// they sit at the root as streamable.Mux puts them.

// front is the gateway's front door: the downstream transports of every
// virtual server, and the authentication in front of them.
type front struct {
	cfg *Config
	log *slog.Logger
	// keys are the API keys in force, nil without any; a reload replaces
	// them (reloadKeys).
	keys atomic.Pointer[keyring]
	// guards says callers must authenticate: the config had an auth
	// section at start. It is fixed, as the handlers are built on it.
	guards bool
	mw     *auth.Middleware // nil without OAuth
	rest   *restFacade      // nil without a rest section
	// lookup finds the endpoint of a virtual server in force.
	lookup func(name string) *endpoint
}

// endpoint is what serves one virtual server downstream: its transports,
// each behind the guard.
type endpoint struct {
	srv        *server.Server
	streamable http.Handler // guarded
	legacy     http.Handler // guarded
	closers    []func() error
	// sessions counts the downstream sessions open on both transports.
	sessions func() int
	// endSessions ends the sessions, on both transports, whose owner
	// match reports true, and returns how many.
	endSessions func(match func(owner any) bool) int
	// tool returns the definition of a tool as the caller of ctx may
	// call it (virtual.visibleTool).
	tool func(ctx context.Context, name string) (mcp.Tool, bool)
}

// close ends the endpoint's sessions and waits for them.
func (e *endpoint) close() error {
	var errs []error
	for _, c := range e.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

func newFront(cfg *Config, log *slog.Logger, lookup func(string) *endpoint) (*front, error) {
	f := &front{cfg: cfg, log: log, lookup: lookup, guards: cfg.Auth != nil}
	if a := cfg.Auth; a != nil {
		keys, err := newKeyring(a.Keys, nil)
		if err != nil {
			return nil, err
		}
		f.keys.Store(keys)
		if a.OAuth != nil {
			if f.mw, err = newOAuth(a.OAuth, log); err != nil {
				return nil, err
			}
		}
	}
	if cfg.REST != nil {
		f.rest = newRESTFacade(cfg.REST, f)
	}
	return f, nil
}

// serve makes the downstream transports of the virtual server name.
func (f *front) serve(name string, srv *server.Server) *endpoint {
	var authenticate func(*http.Request) (any, error)
	perPrincipal := 0
	if f.guarded() {
		authenticate = identityOf
		perPrincipal = f.cfg.Auth.MaxSessionsPerPrincipal
	}
	log := f.log.With("server", name)
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Authenticate: authenticate, MaxSessionsPerIdentity: perPrincipal, Logger: log})
	lh := streamable.NewLegacyHandler(srv, &streamable.LegacyOptions{
		Endpoint:               "message", // beside the stream's path, wherever it is
		Authenticate:           authenticate,
		MaxSessionsPerIdentity: perPrincipal,
		Logger:                 log,
	})
	return &endpoint{
		srv:        srv,
		streamable: f.guard(h),
		legacy:     f.guard(lh),
		closers:    []func() error{func() error { h.Close(); return nil }, lh.Close},
		sessions:   func() int { return h.SessionCount() + lh.SessionCount() },
		endSessions: func(match func(any) bool) int {
			return h.EndSessions(match) + lh.EndSessions(match)
		},
	}
}

// guarded reports whether callers must authenticate.
func (f *front) guarded() bool { return f.guards }

// identityOf is the Authenticate of the transports behind the guard: the
// principal the guard put in the request's ctx, which binds the sessions
// the request starts.
func identityOf(r *http.Request) (any, error) {
	if p := server.PrincipalFrom(r.Context()); p != nil {
		return p, nil
	}
	return nil, errors.New("unauthenticated") // the guard lets no such request through
}

// Handler serves each virtual server at /mcp/<name>, and "default" also
// at /mcp, over Streamable HTTP; the HTTP+SSE transport of 2024-11-05 at
// /mcp/<name>/sse (and /sse for "default"); the REST facade under
// /rest/<name> when configured; the Protected Resource Metadata when
// OAuth is; and the telemetry endpoints.
func (g *Gateway) Handler() http.Handler {
	f := g.door
	mux := http.NewServeMux()
	g.obs.mount(mux, f.guard) // behind the same keys as /mcp; metricsListen serves it apart
	if f.mw != nil {
		if u, err := url.Parse(f.mw.MetadataURL()); err == nil {
			mux.Handle(u.EscapedPath(), f.mw.MetadataHandler())
		}
	}
	for _, p := range []string{"/mcp", "/mcp/", "/sse", "/message"} {
		mux.HandleFunc(p, g.serveMCP)
	}
	if f.rest != nil {
		f.rest.mount(mux)
	}
	return mux
}

// callerOf returns the principal of the downstream request ctx serves, as
// authorization rules see it; the zero Principal for an anonymous caller.
// A caller of an API key is what its configuration says; one of an OAuth
// token has the issuer and subject of the session's principal and the
// claims and scopes of the token its current request came with (a
// refreshed or stepped-up token changes them within one session).
func callerOf(ctx context.Context) authz.Principal {
	switch p := server.PrincipalFrom(ctx).(type) {
	case *keyPrincipal:
		return p.caller
	case authz.Principal:
		return p
	case *authz.Principal:
		return *p
	case auth.Principal:
		out := authz.Principal{Subject: p.Subject, Issuer: p.Issuer}
		if t := p.Token(ctx); t != nil {
			out.Claims, out.Scopes = t.Claims, t.Scopes
		}
		return out
	}
	return authz.Principal{}
}

// callerKey names a caller by subject and issuer, quoted so that no two
// callers read the same, as subject@issuer does when either holds an "@".
func callerKey(p authz.Principal) string {
	return strconv.Quote(p.Subject) + "@" + strconv.Quote(p.Issuer)
}

// validateFront checks the auth and rest sections.
func (c *Config) validateFront(bad badFunc) error {
	if c.Auth != nil {
		if err := c.Auth.validate(bad); err != nil {
			return err
		}
	}
	if c.REST != nil {
		if err := c.REST.validate(bad); err != nil {
			return err
		}
	}
	return nil
}
