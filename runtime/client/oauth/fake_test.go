package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// fakeAS is an authorization server that approves every request at once.
// What the client sent it is recorded for the tests to check.
type fakeAS struct {
	t      *testing.T
	srv    *httptest.Server
	prefix string // the issuer's path, "" or "/tenant1"
	// metaPaths are the paths that serve the metadata; empty means RFC
	// 8414's path-inserted one.
	metaPaths []string
	// edit changes the metadata document before it is served.
	edit func(m *metadata.AuthorizationServer)
	// iss is what the redirect carries: "correct" (the default), "omit",
	// "wrong" or "slash" (the issuer with a trailing slash).
	iss string
	// expiresIn and refresh shape the token responses.
	expiresIn int
	refresh   bool
	// regMethod is the token_endpoint_auth_method a registration gets;
	// empty means the one asked for; regSecret a secret, if any.
	regMethod, regSecret string

	mu         sync.Mutex
	gets       []string // paths of the GETs, in order
	authz      []url.Values
	tokenForms []url.Values
	tokenAuth  []string // the Authorization header of each token request
	regs       []metadata.Client
	challenges map[string]string   // code -> code_challenge
	scopes     map[string][]string // access token -> scopes
	seq        int
}

func newFakeAS(t *testing.T, prefix string) *fakeAS {
	a := &fakeAS{t: t, prefix: prefix, challenges: map[string]string{}, scopes: map[string][]string{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAS) issuer() string { return a.srv.URL + a.prefix }

func (a *fakeAS) metadata() metadata.AuthorizationServer {
	base := a.srv.URL + a.prefix
	m := metadata.AuthorizationServer{
		Issuer:                                     a.issuer(),
		AuthorizationEndpoint:                      base + "/authorize",
		TokenEndpoint:                              base + "/token",
		RegistrationEndpoint:                       base + "/register",
		ResponseTypesSupported:                     []string{"code"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token", "client_credentials"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          []string{"none", "client_secret_basic", "client_secret_post", "private_key_jwt"},
		AuthorizationResponseIssParameterSupported: true,
	}
	if a.edit != nil {
		a.edit(&m)
	}
	return m
}

func (a *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.Method == http.MethodGet {
		a.gets = append(a.gets, r.URL.Path)
	}
	metaPaths := a.metaPaths
	if metaPaths == nil {
		metaPaths = []string{"/.well-known/oauth-authorization-server" + a.prefix}
	}
	switch p := strings.TrimPrefix(r.URL.Path, a.prefix); {
	case r.Method == http.MethodGet && slices.Contains(metaPaths, r.URL.Path):
		writeJSON(w, http.StatusOK, a.metadata())
	case r.Method == http.MethodGet && p == "/authorize":
		q := r.URL.Query()
		a.authz = append(a.authz, q)
		a.seq++
		code := fmt.Sprintf("code-%d", a.seq)
		if q.Get("code_challenge_method") == "S256" {
			a.challenges[code] = q.Get("code_challenge")
		}
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		v := back.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		switch a.iss {
		case "", "correct":
			v.Set("iss", a.issuer())
		case "wrong":
			v.Set("iss", "https://evil.example")
		case "slash":
			v.Set("iss", a.issuer()+"/")
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case r.Method == http.MethodPost && p == "/token":
		r.ParseForm()
		a.tokenForms = append(a.tokenForms, r.PostForm)
		a.tokenAuth = append(a.tokenAuth, r.Header.Get("Authorization"))
		f := r.PostForm
		var scopes []string
		switch f.Get("grant_type") {
		case "authorization_code":
			want, ok := a.challenges[f.Get("code")]
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
				return
			}
			delete(a.challenges, f.Get("code"))
			scopes = strings.Fields(a.authz[len(a.authz)-1].Get("scope"))
		case "refresh_token", "client_credentials", GrantJWTBearer:
			scopes = strings.Fields(f.Get("scope"))
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		a.seq++
		tok := fmt.Sprintf("access-%d", a.seq)
		a.scopes[tok] = scopes
		resp := map[string]any{"access_token": tok, "token_type": "Bearer"}
		if a.expiresIn != 0 {
			resp["expires_in"] = a.expiresIn
		}
		if a.refresh {
			resp["refresh_token"] = fmt.Sprintf("refresh-%d", a.seq)
		}
		writeJSON(w, http.StatusOK, resp)
	case r.Method == http.MethodPost && p == "/register":
		var c metadata.Client
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		a.regs = append(a.regs, c)
		a.seq++
		c.ClientID = fmt.Sprintf("client-%d@%s", a.seq, strings.TrimPrefix(a.srv.URL, "http://"))
		if a.regMethod != "" {
			c.TokenEndpointAuthMethod = a.regMethod
		}
		c.ClientSecret = a.regSecret
		writeJSON(w, http.StatusCreated, c)
	default:
		http.NotFound(w, r)
	}
}

// scopesOf returns the scopes of an access token, and whether it issued it.
func (a *fakeAS) scopesOf(tok string) ([]string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.scopes[tok]
	return s, ok
}

// fakeRS is an MCP server at /mcp behind the fake authorization servers.
type fakeRS struct {
	t   *testing.T
	srv *httptest.Server
	as  []*fakeAS // the first names the authorization server in the PRM
	// prmPath is where the PRM is served; hint puts its URL in the
	// challenge; resource overrides the PRM's resource.
	prmPath  string
	hint     bool
	resource string
	// challengeScope goes in the 401 challenge; prmScopes in the PRM.
	challengeScope string
	prmScopes      []string
	// need returns the scopes the request needs, from its body; nil needs
	// none.
	need func(body string) []string
	// forbid refuses every token with 403 insufficient_scope for scope
	// mcp:admin, whatever it grants.
	forbid bool

	mu     sync.Mutex
	gets   []string
	bodies []string // bodies of the requests that got through
}

func newFakeRS(t *testing.T, as ...*fakeAS) *fakeRS {
	s := &fakeRS{t: t, as: as, prmPath: "/.well-known/oauth-protected-resource/mcp", hint: true}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *fakeRS) url() string { return s.srv.URL + "/mcp" }

func (s *fakeRS) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if r.Method == http.MethodGet {
		s.gets = append(s.gets, r.URL.Path)
	}
	as, prmPath, hint, resource, chScope, prmScopes := s.as[0], s.prmPath, s.hint, s.resource, s.challengeScope, s.prmScopes
	s.mu.Unlock()
	if r.Method == http.MethodGet && r.URL.Path == prmPath {
		if resource == "" {
			resource = s.url()
			if prmPath == "/.well-known/oauth-protected-resource" {
				resource = s.srv.URL
			}
		}
		writeJSON(w, http.StatusOK, metadata.ProtectedResource{Resource: resource, AuthorizationServers: []string{as.issuer()}, ScopesSupported: prmScopes})
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	challenge := func(status int, params string) {
		if hint {
			params += fmt.Sprintf(`, resource_metadata="%s%s"`, s.srv.URL, prmPath)
		}
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.TrimPrefix(params, ", "))
		w.WriteHeader(status)
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	var granted []string
	if ok {
		granted, ok = as.scopesOf(tok)
	}
	if !ok {
		p := `error="invalid_token"`
		if chScope != "" {
			p += fmt.Sprintf(`, scope="%s"`, chScope)
		}
		challenge(http.StatusUnauthorized, p)
		return
	}
	if s.forbid {
		challenge(http.StatusForbidden, `error="insufficient_scope", scope="mcp:admin"`)
		return
	}
	if s.need != nil {
		if need := s.need(string(body)); !containsAll(granted, need) {
			challenge(http.StatusForbidden, fmt.Sprintf(`error="insufficient_scope", scope="%s"`, strings.Join(need, " ")))
			return
		}
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

const testRedirect = "http://127.0.0.1:9/callback"

// approve is the user agent of the tests: it follows the authorization
// server's redirect to the redirect URL without requesting it.
func approve(ctx context.Context, authURL string) (string, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return "", fmt.Errorf("authorization endpoint: %s", resp.Status)
	}
	return resp.Header.Get("Location"), nil
}

// testConfig is a Config for the authorization code grant with the test
// user agent.
func testConfig() Config {
	return Config{RedirectURL: testRedirect, Authorize: approve, ClientName: "test"}
}

// post sends one MCP POST through tr and returns the status.
func post(t *testing.T, tr *Transport, u, body string) (int, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := tr.Client().Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
