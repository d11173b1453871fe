package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// authMode is the opt-in OAuth mode (-auth-issuer and -auth-resource): the
// endpoint takes only access tokens of the issuer for the resource, serves
// its Protected Resource Metadata, and gains two tools that show the
// token's reach. Without the flags the server runs without authorization,
// as the conformance suite expects.
type authMode struct {
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// Resource is the server's canonical URI, which tokens name in aud.
	Resource string
	// JWKS is the issuer's JWKS URL; "" finds it in the issuer's metadata.
	JWKS string
	// Scope is what a client is told to ask for first.
	Scope string
	// shared, when not nil, keeps the handler's sessions and events in
	// Redis (-redis).
	shared *shared
}

// scopeNotesWrite is the scope the notes_write tool requires: a client
// with only the base scope is refused with 403 and steps up.
const scopeNotesWrite = "notes:write"

// handler returns the guarded endpoint at /mcp, with the metadata at its
// well-known path, passing Shutdown and Close on to the MCP handler.
func (a *authMode) handler(srv *server.Server, log *slog.Logger) (*guarded, error) {
	if a.Issuer == "" || a.Resource == "" {
		return nil, errors.New("the auth mode needs both -auth-issuer and -auth-resource")
	}
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: a.Issuer, Resource: a.Resource, JWKSURI: a.JWKS, Logger: log})
	if err != nil {
		return nil, err
	}
	scopes := strings.Fields(a.Scope)
	m, err := auth.New(auth.Options{
		Verifier:             v,
		Resource:             a.Resource,
		AuthorizationServers: []string{a.Issuer},
		Scopes:               scopes,
		ScopesSupported:      append(scopes, scopeNotesWrite),
		ResourceName:         "mcpgen everything",
		Logger:               log,
	})
	if err != nil {
		return nil, err
	}
	h := streamable.NewHandler(srv, a.shared.handlerOptions(&streamable.HandlerOptions{Logger: log, Authenticate: auth.Authenticate}))
	mux := http.NewServeMux()
	if err := m.Mount(mux, endpoint, h); err != nil {
		h.Close()
		return nil, err
	}
	log.Info("OAuth resource server", "resource", a.Resource, "issuer", a.Issuer, "metadata", m.MetadataURL())
	return &guarded{mux: mux, h: h}, nil
}

// guarded is the mux of the auth mode, shut down and closed with the MCP
// handler behind it.
type guarded struct {
	mux *http.ServeMux
	h   *streamable.Handler
}

func (g *guarded) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

func (g *guarded) Shutdown(ctx context.Context) error { return g.h.Shutdown(ctx) }

func (g *guarded) Close() error { return g.h.Close() }

// registerAuthTools adds the tools of the auth mode: whoami, open to every
// token, and notes_write, which needs notes:write.
func registerAuthTools(srv *server.Server) error {
	var whoami, write mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"whoami","description":"Says who the access token names and what it grants.","inputSchema":{"type":"object"}}`), &whoami); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(`{"name":"notes_write","description":"Pretends to write a note; needs the notes:write scope.","inputSchema":{"type":"object"}}`), &write); err != nil {
		return err
	}
	err := srv.AddTool(whoami, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		info := auth.TokenInfoFrom(ctx)
		if info == nil {
			return nil, errors.New("no access token")
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{text("subject " + info.Subject + " of " + info.Issuer + ", scopes: " + strings.Join(info.Scopes, " "))}}, nil
	})
	if err != nil {
		return err
	}
	return srv.AddTool(write, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{text("noted")}}, nil
	}, server.WithScopes(scopeNotesWrite))
}
