package oauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// TestAuthorizationCodeFlow runs the whole flow once and checks what each
// request carried: PKCE, state, resource, redirect, registration.
func TestAuthorizationCodeFlow(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	tr := NewTransport(testConfig(), nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, err := post(t, tr, rs.url(), body); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(rs.bodies) != 1 || rs.bodies[0] != body {
		t.Fatalf("the retried request's body: %q", rs.bodies)
	}
	if len(as.regs) != 1 {
		t.Fatalf("%d registrations", len(as.regs))
	}
	reg := as.regs[0]
	if !slices.Equal(reg.RedirectURIs, []string{testRedirect}) || reg.ApplicationType != "native" ||
		!slices.Contains(reg.GrantTypes, "refresh_token") || reg.TokenEndpointAuthMethod != AuthNone {
		t.Errorf("registration request %+v", reg)
	}
	q := as.authz[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" ||
		q.Get("resource") != rs.url() || q.Get("redirect_uri") != testRedirect || q.Get("client_id") == "" {
		t.Errorf("authorization request %v", q)
	}
	if q.Has("scope") {
		t.Errorf("scope sent though nothing names one: %q", q.Get("scope"))
	}
	f := as.tokenForms[0]
	if f.Get("resource") != rs.url() || f.Get("code_verifier") == "" || f.Get("client_id") != q.Get("client_id") {
		t.Errorf("token request %v", f)
	}
	// The token is reused: no second authorization.
	if status, _ := post(t, tr, rs.url(), body); status != 200 || len(as.authz) != 1 {
		t.Fatalf("second POST = %d after %d authorizations", status, len(as.authz))
	}
}

// TestDiscoveryOrder checks where the client looks for each document.
func TestDiscoveryOrder(t *testing.T) {
	cases := []struct {
		name      string
		prmPath   string
		hint      bool
		prefix    string
		metaPaths []string
		rsGets    []string
		asGets    []string
	}{
		{"hinted path PRM, RFC 8414", "/.well-known/oauth-protected-resource/mcp", true, "",
			nil,
			[]string{"/.well-known/oauth-protected-resource/mcp"},
			[]string{"/.well-known/oauth-authorization-server"}},
		{"unhinted path PRM, OpenID fallback", "/.well-known/oauth-protected-resource/mcp", false, "",
			[]string{"/.well-known/openid-configuration"},
			[]string{"/.well-known/oauth-protected-resource/mcp"},
			[]string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"root PRM, issuer with a path", "/.well-known/oauth-protected-resource", false, "/tenant1",
			nil,
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			[]string{"/.well-known/oauth-authorization-server/tenant1"}},
		{"custom PRM, OpenID appended", "/custom/prm.json", true, "/tenant1",
			[]string{"/tenant1/.well-known/openid-configuration"},
			[]string{"/custom/prm.json"},
			[]string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as := newFakeAS(t, c.prefix)
			as.metaPaths = c.metaPaths
			rs := newFakeRS(t, as)
			rs.prmPath, rs.hint = c.prmPath, c.hint
			if status, err := post(t, NewTransport(testConfig(), nil), rs.url(), `{}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
			if !slices.Equal(rs.gets, c.rsGets) {
				t.Errorf("resource server GETs %q; want %q", rs.gets, c.rsGets)
			}
			if got := as.gets[:len(c.asGets)]; !slices.Equal(got, c.asGets) {
				t.Errorf("authorization server GETs %q; want %q first", as.gets, c.asGets)
			}
			wantResource := rs.url()
			if c.prmPath == "/.well-known/oauth-protected-resource" {
				wantResource = rs.srv.URL // sent as published, no slash added
			}
			if got := as.authz[0].Get("resource"); got != wantResource {
				t.Errorf("resource %q; want %q", got, wantResource)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(as *fakeAS, rs *fakeRS)
		want  error
	}{
		{"resource mismatch", func(as *fakeAS, rs *fakeRS) { rs.resource = "https://evil.example/mcp" }, ErrResourceMismatch},
		{"metadata issuer mismatch", func(as *fakeAS, rs *fakeRS) {
			as.edit = func(m *metadata.AuthorizationServer) { m.Issuer = "https://attacker.example" }
		}, metadata.ErrIssuerMismatch},
		{"no S256", func(as *fakeAS, rs *fakeRS) {
			as.edit = func(m *metadata.AuthorizationServer) { m.CodeChallengeMethodsSupported = []string{"plain"} }
		}, ErrPKCEUnsupported},
		{"no PKCE listed", func(as *fakeAS, rs *fakeRS) {
			as.edit = func(m *metadata.AuthorizationServer) { m.CodeChallengeMethodsSupported = nil }
		}, ErrPKCEUnsupported},
		{"no registration", func(as *fakeAS, rs *fakeRS) {
			as.edit = func(m *metadata.AuthorizationServer) { m.RegistrationEndpoint = "" }
		}, ErrNoRegistration},
		{"iss advertised, missing", func(as *fakeAS, rs *fakeRS) { as.iss = "omit" }, ErrIssuerMismatch},
		{"iss wrong", func(as *fakeAS, rs *fakeRS) { as.iss = "wrong" }, ErrIssuerMismatch},
		{"iss with a trailing slash", func(as *fakeAS, rs *fakeRS) { as.iss = "slash" }, ErrIssuerMismatch},
		{"iss unadvertised, wrong", func(as *fakeAS, rs *fakeRS) {
			as.iss = "wrong"
			as.edit = func(m *metadata.AuthorizationServer) { m.AuthorizationResponseIssParameterSupported = false }
		}, ErrIssuerMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as := newFakeAS(t, "")
			rs := newFakeRS(t, as)
			c.setup(as, rs)
			_, err := post(t, NewTransport(testConfig(), nil), rs.url(), `{}`)
			if !errors.Is(err, c.want) {
				t.Fatalf("POST error %v; want %v", err, c.want)
			}
			if len(as.tokenForms) != 0 {
				t.Errorf("a token request was made: %v", as.tokenForms)
			}
		})
	}
}

func TestIssAccepted(t *testing.T) {
	for _, c := range []struct {
		name       string
		iss        string
		advertised bool
	}{{"advertised and sent", "correct", true}, {"neither", "omit", false}, {"sent unadvertised", "correct", false}} {
		t.Run(c.name, func(t *testing.T) {
			as := newFakeAS(t, "")
			as.iss = c.iss
			as.edit = func(m *metadata.AuthorizationServer) { m.AuthorizationResponseIssParameterSupported = c.advertised }
			rs := newFakeRS(t, as)
			if status, err := post(t, NewTransport(testConfig(), nil), rs.url(), `{}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
		})
	}
}

func TestStateChecked(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	cfg := testConfig()
	cfg.Authorize = func(ctx context.Context, u string) (string, error) {
		back, err := approve(ctx, u)
		return strings.Replace(back, "state=", "state=x", 1), err
	}
	if _, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("error %v; want ErrStateMismatch", err)
	}
	cfg.Authorize = func(ctx context.Context, u string) (string, error) {
		return testRedirect + "?error=access_denied&state=whatever&iss=" + as.issuer(), nil
	}
	if _, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("an error response with a foreign state: %v; want ErrStateMismatch", err)
	}
}

func TestScopeSelection(t *testing.T) {
	cases := []struct {
		name      string
		challenge string
		prm       []string
		asScopes  []string
		offline   bool
		want      string // "" means the parameter is absent
	}{
		{"challenge first", "mcp:basic", []string{"mcp:a", "mcp:b"}, nil, false, "mcp:basic"},
		{"scopes_supported", "", []string{"mcp:a", "mcp:b"}, nil, false, "mcp:a mcp:b"},
		{"omitted", "", nil, nil, false, ""},
		{"offline_access listed", "", []string{"mcp:a"}, []string{"mcp:a", "offline_access"}, true, "mcp:a offline_access"},
		{"offline_access not listed", "", []string{"mcp:a"}, []string{"mcp:a"}, true, "mcp:a"},
		{"offline_access not wanted", "", []string{"mcp:a"}, []string{"offline_access"}, false, "mcp:a"},
		{"offline_access alone is not asked", "", nil, []string{"offline_access"}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as := newFakeAS(t, "")
			as.edit = func(m *metadata.AuthorizationServer) { m.ScopesSupported = c.asScopes }
			rs := newFakeRS(t, as)
			rs.challengeScope, rs.prmScopes = c.challenge, c.prm
			cfg := testConfig()
			cfg.OfflineAccess = c.offline
			if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
			q := as.authz[0]
			if got := q.Get("scope"); got != c.want || q.Has("scope") != (c.want != "") {
				t.Fatalf("scope %q (present %t); want %q", got, q.Has("scope"), c.want)
			}
		})
	}
}

// TestStepUp: a call needing more scope re-authorizes with the union.
func TestStepUp(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.challengeScope = "mcp:basic"
	rs.need = func(body string) []string {
		if strings.Contains(body, "tools/call") {
			return []string{"mcp:write"}
		}
		return []string{"mcp:basic"}
	}
	tr := NewTransport(testConfig(), nil)
	if status, err := post(t, tr, rs.url(), `{"method":"tools/list"}`); err != nil || status != 200 {
		t.Fatalf("tools/list = %d, %v", status, err)
	}
	if status, err := post(t, tr, rs.url(), `{"method":"tools/call"}`); err != nil || status != 200 {
		t.Fatalf("tools/call = %d, %v", status, err)
	}
	if len(as.authz) != 2 {
		t.Fatalf("%d authorizations; want 2", len(as.authz))
	}
	if got := as.authz[1].Get("scope"); got != "mcp:basic mcp:write" {
		t.Errorf("step-up scope %q; want the union", got)
	}
	if len(as.regs) != 1 {
		t.Errorf("%d registrations; the step-up should reuse the first", len(as.regs))
	}
}

// TestStepUpLimit: a server that never accepts the scope gets a bounded
// number of re-authorizations, then the caller gets its 403.
func TestStepUpLimit(t *testing.T) {
	for _, max := range []int{0, 1, -1} {
		as := newFakeAS(t, "")
		rs := newFakeRS(t, as)
		rs.challengeScope = "mcp:admin"
		rs.forbid = true
		cfg := testConfig()
		cfg.MaxStepUps = max
		tr := NewTransport(cfg, nil)
		status, err := post(t, tr, rs.url(), `{}`)
		if err != nil || status != http.StatusForbidden {
			t.Fatalf("MaxStepUps %d: POST = %d, %v; want 403", max, status, err)
		}
		want := 1 + DefaultMaxStepUps
		switch {
		case max > 0:
			want = 1 + max
		case max < 0:
			want = 1
		}
		if len(as.authz) != want {
			t.Errorf("MaxStepUps %d: %d authorizations; want %d", max, len(as.authz), want)
		}
		// The count is of step-ups in a row: a second request gets none.
		status, _ = post(t, tr, rs.url(), `{}`)
		if status != http.StatusForbidden || len(as.authz) != want {
			t.Errorf("MaxStepUps %d: a second request made %d authorizations in all", max, len(as.authz))
		}
	}
}

// TestRefresh: an expired token is renewed with its refresh token and the
// resource indicator, without a new authorization.
func TestRefresh(t *testing.T) {
	as := newFakeAS(t, "")
	as.expiresIn, as.refresh = 3600, true
	rs := newFakeRS(t, as)
	tr := NewTransport(testConfig(), nil)
	now := time.Now()
	tr.now = func() time.Time { return now }
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	now = now.Add(2 * time.Hour)
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST after expiry = %d, %v", status, err)
	}
	if len(as.authz) != 1 || len(as.tokenForms) != 2 {
		t.Fatalf("%d authorizations, %d token requests; want 1, 2", len(as.authz), len(as.tokenForms))
	}
	f := as.tokenForms[1]
	if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") == "" || f.Get("resource") != rs.url() || f.Get("client_id") == "" {
		t.Errorf("refresh request %v", f)
	}
	// A 401 for a live token also tries the refresh token first.
	tok, _ := tr.store.Token(t.Context(), rs.url())
	as.mu.Lock()
	delete(as.scopes, tok.AccessToken)
	as.mu.Unlock()
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST after revocation = %d, %v", status, err)
	}
	if len(as.authz) != 1 || as.tokenForms[2].Get("grant_type") != "refresh_token" {
		t.Fatalf("after a 401: %d authorizations, last grant %q", len(as.authz), as.tokenForms[2].Get("grant_type"))
	}
}

func TestRegistrationChoice(t *testing.T) {
	t.Run("pre-registered first", func(t *testing.T) {
		as := newFakeAS(t, "")
		as.edit = func(m *metadata.AuthorizationServer) { m.ClientIDMetadataDocumentSupported = true }
		rs := newFakeRS(t, as)
		cfg := testConfig()
		cfg.ClientIDMetadataURL = "https://client.example/meta.json"
		cfg.Clients = []Registration{{Issuer: as.issuer(), ClientID: "pre", ClientSecret: "s3cret"}}
		if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		if as.authz[0].Get("client_id") != "pre" || len(as.regs) != 0 {
			t.Fatalf("client_id %q, %d registrations", as.authz[0].Get("client_id"), len(as.regs))
		}
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte("pre:s3cret"))
		if as.tokenAuth[0] != want || as.tokenForms[0].Has("client_secret") {
			t.Errorf("token request auth %q, form %v; want client_secret_basic", as.tokenAuth[0], as.tokenForms[0])
		}
	})
	t.Run("pre-registered for another server", func(t *testing.T) {
		as := newFakeAS(t, "")
		as.edit = func(m *metadata.AuthorizationServer) { m.RegistrationEndpoint = "" }
		rs := newFakeRS(t, as)
		cfg := testConfig()
		cfg.Clients = []Registration{{Issuer: "https://other.example", ClientID: "pre"}}
		if _, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); !errors.Is(err, ErrNoRegistration) {
			t.Fatalf("error %v; want ErrNoRegistration", err)
		}
	})
	t.Run("client ID metadata document", func(t *testing.T) {
		as := newFakeAS(t, "")
		as.edit = func(m *metadata.AuthorizationServer) { m.ClientIDMetadataDocumentSupported = true }
		rs := newFakeRS(t, as)
		cfg := testConfig()
		cfg.ClientIDMetadataURL = "https://client.example/meta.json"
		if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		if as.authz[0].Get("client_id") != cfg.ClientIDMetadataURL || len(as.regs) != 0 {
			t.Fatalf("client_id %q, %d registrations", as.authz[0].Get("client_id"), len(as.regs))
		}
	})
	t.Run("dynamic registration with a secret", func(t *testing.T) {
		as := newFakeAS(t, "")
		as.edit = func(m *metadata.AuthorizationServer) {
			m.TokenEndpointAuthMethodsSupported = []string{AuthClientSecretPost}
		}
		as.regSecret = "dcr-secret"
		rs := newFakeRS(t, as)
		if status, err := post(t, NewTransport(testConfig(), nil), rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		if as.regs[0].TokenEndpointAuthMethod != AuthClientSecretPost {
			t.Errorf("asked for %q", as.regs[0].TokenEndpointAuthMethod)
		}
		if f := as.tokenForms[0]; f.Get("client_secret") != "dcr-secret" || as.tokenAuth[0] != "" {
			t.Errorf("token request %v, Authorization %q; want client_secret_post", f, as.tokenAuth[0])
		}
	})
}

// TestAuthorizationServerMigration: when the resource names a new
// authorization server, the client registers there anew and never shows
// it the old server's client.
func TestAuthorizationServerMigration(t *testing.T) {
	as1, as2 := newFakeAS(t, ""), newFakeAS(t, "")
	rs := newFakeRS(t, as1)
	store := &MemoryStore{}
	cfg := testConfig()
	cfg.Store = store
	tr := NewTransport(cfg, nil)
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	rs.mu.Lock()
	rs.as = []*fakeAS{as2}
	rs.mu.Unlock()
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST after migration = %d, %v", status, err)
	}
	old := as1.authz[0].Get("client_id")
	if len(as2.regs) != 1 || as2.authz[0].Get("client_id") == old || as2.tokenForms[0].Get("client_id") == old {
		t.Fatalf("at the new server: %d registrations, client_id %q (old %q)", len(as2.regs), as2.authz[0].Get("client_id"), old)
	}
	tok, _ := store.Token(t.Context(), rs.url())
	if tok.Issuer != as2.issuer() {
		t.Errorf("stored token bound to %q", tok.Issuer)
	}
	for _, iss := range []string{as1.issuer(), as2.issuer()} {
		if r, _ := store.Registration(t.Context(), iss); r == nil || r.Issuer != iss {
			t.Errorf("registration for %s: %v", iss, r)
		}
	}
}

func TestClientCredentials(t *testing.T) {
	t.Run("client_secret_basic", func(t *testing.T) {
		as := newFakeAS(t, "")
		as.edit = func(m *metadata.AuthorizationServer) {
			m.TokenEndpointAuthMethodsSupported = []string{AuthClientSecretBasic}
		}
		rs := newFakeRS(t, as)
		rs.challengeScope = "mcp:read"
		cfg := Config{Grant: GrantClientCredentials, Clients: []Registration{{ClientID: "svc", ClientSecret: "pw"}}}
		if err := cfg.Check(); err != nil {
			t.Fatal(err)
		}
		if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		f := as.tokenForms[0]
		if f.Get("grant_type") != "client_credentials" || f.Get("resource") != rs.url() || f.Get("scope") != "mcp:read" ||
			as.tokenAuth[0] != "Basic "+base64.StdEncoding.EncodeToString([]byte("svc:pw")) || len(as.authz) != 0 {
			t.Fatalf("token request %v, Authorization %q", f, as.tokenAuth[0])
		}
	})
	t.Run("private_key_jwt", func(t *testing.T) {
		as := newFakeAS(t, "/tenant")
		rs := newFakeRS(t, as)
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Grant: GrantClientCredentials, Clients: []Registration{{ClientID: "svc", PrivateKey: parsed, KeyID: "k1"}}}
		if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		f := as.tokenForms[0]
		if f.Get("client_assertion_type") != clientAssertionType || f.Has("client_secret") || as.tokenAuth[0] != "" {
			t.Fatalf("token request %v, Authorization %q", f, as.tokenAuth[0])
		}
		tok, err := jwt.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		if tok.Headers[0].KeyID != "k1" {
			t.Errorf("kid %q", tok.Headers[0].KeyID)
		}
		var c jwt.Claims
		if err := tok.Claims(&key.PublicKey, &c); err != nil {
			t.Fatalf("the assertion does not verify: %v", err)
		}
		if err := c.Validate(jwt.Expected{Issuer: "svc", Subject: "svc", AnyAudience: jwt.Audience{as.issuer()}, Time: time.Now()}); err != nil || c.ID == "" {
			t.Fatalf("claims %+v: %v", c, err)
		}
	})
}

// TestConcurrentAuthorization: requests that get 401 together share one
// authorization.
func TestConcurrentAuthorization(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	tr := NewTransport(testConfig(), nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
				t.Errorf("POST = %d, %v", status, err)
			}
		})
	}
	wg.Wait()
	if len(as.authz) != 1 || len(as.regs) != 1 {
		t.Fatalf("%d authorizations, %d registrations; want 1 each", len(as.authz), len(as.regs))
	}
}

// TestNoSecretsLogged runs flows with a debug logger and looks for every
// token, secret and code in what it wrote.
func TestNoSecretsLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	as := newFakeAS(t, "")
	as.regSecret, as.refresh, as.expiresIn = "dcr-secret-value", true, 3600
	as.edit = func(m *metadata.AuthorizationServer) {
		m.TokenEndpointAuthMethodsSupported = []string{AuthClientSecretBasic}
	}
	rs := newFakeRS(t, as)
	cfg := testConfig()
	cfg.Logger = log
	tr := NewTransport(cfg, nil)
	now := time.Now()
	tr.now = func() time.Time { return now }
	for range 2 {
		if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		now = now.Add(2 * time.Hour) // the second POST refreshes
	}
	tok, _ := tr.store.Token(t.Context(), rs.url())
	reg, _ := tr.store.Registration(t.Context(), as.issuer())
	secrets := []string{tok.AccessToken, tok.RefreshToken, reg.ClientSecret, "refresh-", "access-", "code-", as.authz[0].Get("state")}
	out := buf.String() + tok.String() + reg.String() + metadata.Client{ClientSecret: "dcr-secret-value"}.String()
	for _, s := range secrets {
		if s != "" && strings.Contains(out, s) {
			t.Errorf("%q appears in the log or a String:\n%s", s, out)
		}
	}
	if !strings.Contains(buf.String(), "oauth: authorized") {
		t.Errorf("the log says nothing of the authorization:\n%s", buf.String())
	}
}

// TestLegacyFallback: a server without Protected Resource Metadata (the
// 2025-03-26 revision) has its origin as authorization server, with
// default endpoints when it publishes no metadata.
func TestLegacyFallback(t *testing.T) {
	as := newFakeAS(t, "")
	as.metaPaths = []string{"/nowhere"}
	mux := http.NewServeMux()
	mux.Handle("/authorize", as.srv.Config.Handler)
	mux.Handle("/token", as.srv.Config.Handler)
	mux.Handle("/register", as.srv.Config.Handler)
	rs := newFakeRS(t, as)
	rs.prmPath = "/none"
	rs.hint = false
	// The resource server is also the authorization server.
	rsHandler := rs.srv.Config.Handler
	rs.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			rsHandler.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	cfg := testConfig()
	as.iss = "omit"
	if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.regs) != 1 || as.authz[0].Get("resource") != rs.url() {
		t.Fatalf("%d registrations, resource %q", len(as.regs), as.authz[0].Get("resource"))
	}
}

// TestStoredTokenRefreshed: a token left in a store by an earlier process,
// expired, is refreshed after the server's 401 rather than replaced by a
// new authorization.
func TestStoredTokenRefreshed(t *testing.T) {
	as := newFakeAS(t, "")
	as.expiresIn, as.refresh = 3600, true
	rs := newFakeRS(t, as)
	store := &MemoryStore{}
	cfg := testConfig()
	cfg.Store = store
	if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	tr := NewTransport(cfg, nil) // a new process with the same store
	tr.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST from the new process = %d, %v", status, err)
	}
	if len(as.authz) != 1 || len(as.regs) != 1 || as.tokenForms[1].Get("grant_type") != "refresh_token" {
		t.Fatalf("%d authorizations, %d registrations, second grant %q; want the stored token refreshed",
			len(as.authz), len(as.regs), as.tokenForms[1].Get("grant_type"))
	}
}

// TestUnresendableBody: a request whose body cannot be read again gets the
// 401 as it came, and no authorization is started for it.
func TestUnresendableBody(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	tr := NewTransport(testConfig(), nil)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, rs.url(), strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.GetBody = nil
	resp, err := tr.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(as.authz) != 0 {
		t.Fatalf("status %d after %d authorizations; want the 401 and none", resp.StatusCode, len(as.authz))
	}
}
