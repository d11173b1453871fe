package gateway

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Handler serves each virtual server at /mcp/<name>, and "default" also
// at /mcp.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	g.obs.mount(mux)
	mux.HandleFunc("/mcp", g.serveMCP)
	mux.HandleFunc("/mcp/", g.serveMCP)
	return mux
}

// callerOf returns the principal of the downstream request ctx serves, as
// authorization rules see it; the zero Principal for an anonymous caller.
func callerOf(ctx context.Context) authz.Principal {
	switch p := server.PrincipalFrom(ctx).(type) {
	case authz.Principal:
		return p
	case *authz.Principal:
		return *p
	case auth.Principal:
		return authz.Principal{Subject: p.Subject, Issuer: p.Issuer}
	}
	return authz.Principal{}
}

// validateFront checks the auth and rest sections.
func (c *Config) validateFront(bad badFunc) error {
	return nil
}

// AuthConfig is what callers must present to reach the gateway.
type AuthConfig struct{}

// RESTConfig is the REST facade of the aggregated tools.
type RESTConfig struct{}
