package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testauth"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// TestAuthEndToEnd has mcpgen's client get its token through the
// authorization code grant from a real authorization server (a test user
// agent follows the redirect), call a tool on the server in its auth
// mode, then step up to the scope another tool requires, in both eras.
func TestAuthEndToEnd(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			ts := httptest.NewUnstartedServer(nil)
			resource := "http://" + ts.Listener.Addr().String() + endpoint
			as, err := testauth.New(resource)
			if err != nil {
				t.Fatal(err)
			}
			defer as.Close()
			as.ScopesSupported = []string{"mcp", scopeNotesWrite}

			ev, err := newEverything(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := registerAuthTools(ev.srv); err != nil {
				t.Fatal(err)
			}
			am := &authMode{Issuer: as.URL, Resource: resource, Scope: "mcp"}
			g, err := am.handler(ev.srv, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ts.Config.Handler = g
			ts.Start()
			defer ts.Close()

			cfg := oauth.Config{RedirectURL: "http://127.0.0.1:9/callback", Authorize: testauth.UserAgent}
			if err := cfg.Check(); err != nil {
				t.Fatal(err)
			}
			tr := oauth.NewTransport(cfg, nil)
			ctx := testContext(t)
			opts := &client.Options{Era: e.era}
			sess, err := client.New(mcp.Implementation{Name: "everything-auth", Version: "1"}, opts).
				Connect(ctx, streamable.NewClientTransport(resource, &streamable.ClientOptions{HTTPClient: tr.Client()}))
			if err != nil {
				t.Fatalf("connect through OAuth: %v", err)
			}
			defer sess.Close()

			text := func(ctx context.Context, tool string) string {
				t.Helper()
				res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: tool})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return onlyText(t, res.Content)
			}
			if got := text(ctx, "whoami"); got != "subject ada of "+as.URL+", scopes: mcp" {
				t.Fatalf("whoami = %q", got)
			}
			// notes_write needs notes:write: refused with 403, the client
			// authorizes again for both scopes and the call goes through.
			if got := text(ctx, "notes_write"); got != "noted" {
				t.Fatalf("notes_write = %q", got)
			}
			if got := text(ctx, "whoami"); !strings.HasSuffix(got, "scopes: mcp notes:write") {
				t.Fatalf("whoami after the step-up = %q", got)
			}
			auths := as.Authorizations()
			if len(auths) != 2 || !slices.Equal(auths[0].Scopes, []string{"mcp"}) || !slices.Equal(auths[1].Scopes, []string{"mcp", scopeNotesWrite}) {
				t.Fatalf("authorizations %+v; want mcp, then mcp and notes:write", auths)
			}
			for _, a := range auths {
				if a.Resource != resource {
					t.Errorf("authorization for resource %q, want %q", a.Resource, resource)
				}
			}
		})
	}
}
