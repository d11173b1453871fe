package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
	"github.com/mcpgen/mcpgen/runtime/server"
)

const metadataURL = "https://mcp.example/.well-known/oauth-protected-resource/mcp"

// verifierFunc is a TokenVerifier of a function.
type verifierFunc func(ctx context.Context, token string) (*TokenInfo, error)

func (f verifierFunc) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	return f(ctx, token)
}

func newMiddleware(t *testing.T, v TokenVerifier, issuer string) *Middleware {
	t.Helper()
	m, err := New(Options{Verifier: v, Resource: resource, AuthorizationServers: []string{issuer}, Scopes: []string{"mcp"}, ResourceName: "test server"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMiddlewareChallenges(t *testing.T) {
	as := newAS(t)
	m := newMiddleware(t, as.jwtVerifier(t, nil, JWTOptions{}), as.issuer())
	var seen *TokenInfo
	var principal any
	h := m.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = TokenInfoFrom(r.Context())
		principal = server.PrincipalFrom(r.Context())
		id, err := Authenticate(r)
		if err != nil || id != principal {
			t.Errorf("Authenticate = %v, %v; want the principal %v", id, err, principal)
		}
		w.Write([]byte("ok"))
	}))
	good := as.token("alice", "mcp")
	cases := []struct {
		name      string
		url       string
		auth      []string
		status    int
		challenge string
	}{
		{"no token", "/mcp", nil, 401, `Bearer scope="mcp", resource_metadata="` + metadataURL + `"`},
		{"another scheme", "/mcp", []string{"Basic YTpi"}, 401, `Bearer scope="mcp", resource_metadata="` + metadataURL + `"`},
		{"malformed header", "/mcp", []string{"Bearer a b"}, 400, `Bearer error="invalid_request", error_description="the bearer token is malformed", scope="mcp", resource_metadata="` + metadataURL + `"`},
		{"empty bearer", "/mcp", []string{"Bearer "}, 400, `error="invalid_request"`},
		{"two headers", "/mcp", []string{"Bearer " + good, "Bearer " + good}, 400, `error="invalid_request"`},
		{"token in the query", "/mcp?access_token=" + good, []string{"Bearer " + good}, 400, `error="invalid_request", error_description="access tokens go in the Authorization header, never in the URL"`},
		{"malformed token", "/mcp", []string{"Bearer abc.def.ghi"}, 401, `Bearer error="invalid_token", error_description="not a JWT signed with an accepted algorithm", scope="mcp", resource_metadata="` + metadataURL + `"`},
		{"expired", "/mcp", []string{"Bearer " + mint(t, as.key(), as.claims(time.Now().Add(-2*time.Hour), "alice", ""))}, 401, `error="invalid_token", error_description="it expired"`},
		{"good", "/mcp", []string{"Bearer " + good}, 200, ""},
		{"good, lower-case scheme", "/mcp", []string{"bearer " + good}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seen, principal = nil, nil
			r := httptest.NewRequest("POST", c.url, strings.NewReader("{}"))
			for _, a := range c.auth {
				r.Header.Add("Authorization", a)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Fatalf("status %d; want %d (%s)", w.Code, c.status, w.Body)
			}
			got := w.Header().Get("WWW-Authenticate")
			if c.status == 200 {
				if seen == nil || seen.Subject != "alice" || principal != (Principal{Issuer: as.issuer(), Subject: "alice"}) || got != "" {
					t.Fatalf("token %+v, principal %v, challenge %q", seen, principal, got)
				}
				return
			}
			if seen != nil {
				t.Fatal("the handler ran")
			}
			if !strings.Contains(got, c.challenge) {
				t.Fatalf("WWW-Authenticate %q; want it to hold %q", got, c.challenge)
			}
			if strings.Contains(w.Body.String(), good) || strings.Contains(got, good) {
				t.Fatal("the answer repeats the token")
			}
			var body struct {
				Error struct{ Code int }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code == 0 {
				t.Fatalf("body %s is not a JSON-RPC error: %v", w.Body, err)
			}
		})
	}

	t.Run("verifier unavailable", func(t *testing.T) {
		var logs strings.Builder
		m, err := New(Options{Verifier: verifierFunc(func(context.Context, string) (*TokenInfo, error) {
			return nil, errors.New("the authorization server is down")
		}), Resource: resource, AuthorizationServers: []string{as.issuer()}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+good)
		m.Wrap(http.NotFoundHandler()).ServeHTTP(w, r)
		if w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "down") {
			t.Fatalf("status %d, body %s; want 503 that does not say why", w.Code, w.Body)
		}
		if !strings.Contains(logs.String(), "down") || strings.Contains(logs.String(), good) {
			t.Fatalf("logs %q; want the reason and not the token", logs.String())
		}
	})
	t.Run("no subject", func(t *testing.T) {
		m := newMiddleware(t, verifierFunc(func(context.Context, string) (*TokenInfo, error) {
			return &TokenInfo{Issuer: "x"}, nil
		}), as.issuer())
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer x")
		m.Wrap(http.NotFoundHandler()).ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_token") {
			t.Fatalf("status %d; want 401 invalid_token", w.Code)
		}
	})
	t.Run("not behind the middleware", func(t *testing.T) {
		if id, err := Authenticate(httptest.NewRequest("POST", "/mcp", nil)); err == nil || id != nil {
			t.Fatalf("Authenticate = %v, %v; want an error", id, err)
		}
	})
}

func TestPrincipal(t *testing.T) {
	a1 := (&TokenInfo{Issuer: "https://as", Subject: "alice", Scopes: []string{"x"}}).Principal()
	a2 := (&TokenInfo{Issuer: "https://as", Subject: "alice", Scopes: []string{"y"}, ClientID: "other"}).Principal()
	if a1 != a2 || a1.String() != a2.String() {
		t.Fatalf("%v != %v: tokens of one subject", a1, a2)
	}
	others := []Principal{
		{Issuer: "https://as", Subject: "bob"},
		{Issuer: "https://as2", Subject: "alice"},
		{Issuer: `https://as" "alice`, Subject: ""},
		{Issuer: "", Subject: `alice"@"https://as`},
	}
	for _, o := range others {
		if o == a1 || o.String() == a1.String() {
			t.Errorf("%#v reads as %#v", o, a1)
		}
	}
	// A principal has the scopes of the request's token only when the
	// token is its own.
	info := &TokenInfo{Issuer: "https://as", Subject: "alice", Scopes: []string{"x"}}
	ctx := context.WithValue(context.Background(), grantKey{}, &grant{info: info, w: &challengeWriter{}})
	if h := a2.RequestScopes(ctx); h == nil || !h.HasScope("x") || h.HasScope("y") {
		t.Fatalf("alice's scopes with alice's token: %v", h)
	}
	if h := others[0].RequestScopes(ctx); h != nil {
		t.Fatalf("bob has the scopes of alice's token: %v", h)
	}
	if h := a1.RequestScopes(context.Background()); h != nil {
		t.Fatalf("scopes without a token: %v", h)
	}
	// Its token, claims and all, likewise.
	info.Claims = map[string]any{"sub": "alice", "role": "admin"}
	if tok := a2.Token(ctx); tok != info || tok.Claims["role"] != "admin" {
		t.Fatalf("alice's token: %+v", tok)
	}
	if tok := others[0].Token(ctx); tok != nil {
		t.Fatalf("bob has alice's token: %+v", tok)
	}
	if tok := a1.Token(context.Background()); tok != nil {
		t.Fatalf("a token without a request: %+v", tok)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	as := newAS(t)
	m := newMiddleware(t, as.jwtVerifier(t, nil, JWTOptions{}), as.issuer())
	if m.MetadataURL() != metadataURL {
		t.Fatalf("MetadataURL %q", m.MetadataURL())
	}
	mux := http.NewServeMux()
	if err := m.Mount(mux, "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("mcp")) })); err != nil {
		t.Fatal(err)
	}
	if err := m.Mount(mux, "", http.NotFoundHandler()); err == nil {
		t.Fatal("mounting twice on one mux: no error")
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc metadata.ProtectedResource
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Resource != resource || !slices.Equal(doc.AuthorizationServers, []string{as.issuer()}) ||
		!slices.Equal(doc.ScopesSupported, []string{"mcp"}) || !slices.Equal(doc.BearerMethodsSupported, []string{"header"}) ||
		doc.ResourceName != "test server" || len(doc.Extra) != 0 {
		t.Fatalf("document %s", body)
	}
	resp, err = http.Post(ts.URL+"/.well-known/oauth-protected-resource/mcp", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST to the metadata: %d", resp.StatusCode)
	}
	resp, err = http.Post(ts.URL+"/mcp", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+metadataURL+`"`) {
		t.Fatalf("the endpoint without a token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	// A resource at the root has its metadata at the root.
	root, err := New(Options{Verifier: m.opts.Verifier, Resource: "https://mcp.example", AuthorizationServers: []string{as.issuer()}})
	if err != nil {
		t.Fatal(err)
	}
	if root.MetadataURL() != "https://mcp.example/.well-known/oauth-protected-resource" {
		t.Fatalf("root MetadataURL %q", root.MetadataURL())
	}
	for _, o := range []Options{
		{Resource: resource, AuthorizationServers: []string{"x"}},
		{Verifier: m.opts.Verifier, AuthorizationServers: []string{"x"}},
		{Verifier: m.opts.Verifier, Resource: resource},
		{Verifier: m.opts.Verifier, Resource: resource, AuthorizationServers: []string{"x"}, Scopes: []string{`a"b`}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v): no error", o)
		}
	}
}
