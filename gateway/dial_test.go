package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// httpUpstream is an MCP server named name with one tool, echo, that
// answers "<name>:echo".
func httpUpstream(name string) *server.Server {
	s := server.New(mcp.Implementation{Name: name, Version: "1"}, nil)
	_ = s.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: name + ":echo"}}}}, nil
	})
	return s
}

// serveLegacy serves an HTTP+SSE upstream and returns its URL and the
// count of SSE streams opened on it.
func serveLegacy(t *testing.T, name string) (string, *atomic.Int32) {
	h := streamable.NewLegacyHandler(httpUpstream(name), nil)
	var streams atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			streams.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	return ts.URL + "/sse", &streams
}

// serveModern serves a Streamable HTTP upstream behind check, which
// answers 401 when it returns false.
func serveModern(t *testing.T, name string, check func(r *http.Request) bool) string {
	h := streamable.NewHandler(httpUpstream(name), nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil && !check(r) {
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	return ts.URL + "/mcp"
}

func urlUpstream(name, url, extra string) string {
	return fmt.Sprintf("      - name: %s\n        url: %s\n%s", name, url, extra)
}

func callEcho(t *testing.T, g *Gateway, tool string) string {
	t.Helper()
	s := connect(t, g, nil)
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: tool})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return firstText(r)
}

func TestUpstreamTransports(t *testing.T) {
	sse, sseStreams := serveLegacy(t, "old")
	legacy, autoStreams := serveLegacy(t, "old")
	modern := serveModern(t, "new", nil)
	g, err := startGateway(t,
		urlUpstream("sse", sse, "        transport: sse\n")+
			urlUpstream("autoold", legacy, "        transport: auto\n")+
			urlUpstream("autonew", modern, "        transport: auto\n")+
			urlUpstream("plain", modern, ""))
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, g, nil)
	got := toolNames(t, s)
	slices.Sort(got)
	if want := []string{"autonew__echo", "autoold__echo", "plain__echo", "sse__echo"}; !slices.Equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
	for tool, want := range map[string]string{"sse__echo": "old:echo", "autoold__echo": "old:echo", "autonew__echo": "new:echo", "plain__echo": "new:echo"} {
		r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: tool})
		if err != nil || firstText(r) != want {
			t.Errorf("%s: %v %q, want %q", tool, err, firstText(r), want)
		}
	}
	if sseStreams.Load() != 1 || autoStreams.Load() != 1 {
		t.Fatalf("SSE streams opened: %d by sse, %d by auto; want 1 each", sseStreams.Load(), autoStreams.Load())
	}
}

func TestUpstreamStreamableRefusesLegacyServer(t *testing.T) {
	// Without transport: auto, a Streamable HTTP client does not fall
	// back: the start fails rather than guess.
	url, _ := serveLegacy(t, "old")
	if _, err := startGateway(t, urlUpstream("old", url, "")); err == nil {
		t.Fatal("a Streamable HTTP upstream connected to an HTTP+SSE server")
	}
}

func TestUpstreamBearer(t *testing.T) {
	const secret = "s3cret-bearer-token"
	url := serveModern(t, "b", func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+secret })
	t.Run("env", func(t *testing.T) {
		t.Setenv("GW_TEST_BEARER", secret)
		g, err := startGateway(t, urlUpstream("b", url, "        auth:\n          bearer: {env: GW_TEST_BEARER}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := callEcho(t, g, "b__echo"); got != "b:echo" {
			t.Fatalf("b__echo = %q", got)
		}
	})
	t.Run("file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		g, err := startGateway(t, urlUpstream("b", url, fmt.Sprintf("        auth:\n          bearer: {file: %q}\n", file)))
		if err != nil {
			t.Fatal(err)
		}
		if got := callEcho(t, g, "b__echo"); got != "b:echo" {
			t.Fatalf("b__echo = %q", got)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		t.Setenv("GW_TEST_BEARER", "not-"+secret)
		_, err := startGateway(t, urlUpstream("b", url, "        auth:\n          bearer: {env: GW_TEST_BEARER}\n"))
		if err == nil {
			t.Fatal("a refused token connected")
		}
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("the error shows the token: %v", err)
		}
	})
}

// tokenServer is an OAuth token endpoint for the client credentials grant
// that issues tok-1, tok-2, ... and remembers which it revoked.
type tokenServer struct {
	id, secret string
	expiresIn  int

	mu      sync.Mutex
	issued  int
	revoked map[string]bool
	forms   []map[string]string // the parameters of each request
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form := map[string]string{}
	for k := range r.PostForm {
		form[k] = r.PostForm.Get(k)
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forms = append(s.forms, form)
	w.Header().Set("Content-Type", "application/json")
	if id != s.id || secret != s.secret || r.PostForm.Get("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusUnauthorized)
		// A careless server echoes what it was sent.
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": "bad secret " + secret})
		return
	}
	s.issued++
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", s.issued), "token_type": "Bearer", "expires_in": s.expiresIn})
}

// valid reports whether the request carries an issued, unrevoked token.
func (s *tokenServer) valid(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	_, err := fmt.Sscanf(tok, "tok-%d", &n)
	return ok && err == nil && n >= 1 && n <= s.issued && !s.revoked[tok]
}

func (s *tokenServer) revoke(tok string) {
	s.mu.Lock()
	s.revoked[tok] = true
	s.mu.Unlock()
}

func (s *tokenServer) fetches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.forms)
}

func newTokenServer(t *testing.T, secret string, expiresIn int) (*tokenServer, string) {
	ts := &tokenServer{id: "gw", secret: secret, expiresIn: expiresIn, revoked: map[string]bool{}}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	return ts, srv.URL + "/token"
}

func clientCredentials(tokenURL, secretEnv string) string {
	return fmt.Sprintf("        auth:\n          clientCredentials:\n            tokenURL: %s\n            clientId: gw\n            clientSecret: {env: %s}\n            scopes: [tools.read, tools.call]\n            audience: upstream-a\n            resource: https://upstream.example/mcp\n", tokenURL, secretEnv)
}

func TestUpstreamClientCredentials(t *testing.T) {
	const secret = "s3cret-client-secret"
	t.Setenv("GW_TEST_CLIENT_SECRET", secret)
	tokens, tokenURL := newTokenServer(t, secret, 3600)
	url := serveModern(t, "cc", tokens.valid)
	g, err := startGateway(t, urlUpstream("cc", url, clientCredentials(tokenURL, "GW_TEST_CLIENT_SECRET")))
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, g, nil)
	for range 3 {
		if r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "cc__echo"}); err != nil || firstText(r) != "cc:echo" {
			t.Fatalf("cc__echo: %v %q", err, firstText(r))
		}
	}
	if n := tokens.fetches(); n != 1 {
		t.Fatalf("%d token fetches for one session, want 1: the token is not kept", n)
	}
	tokens.mu.Lock()
	form := tokens.forms[0]
	tokens.mu.Unlock()
	if form["scope"] != "tools.read tools.call" || form["audience"] != "upstream-a" || form["resource"] != "https://upstream.example/mcp" {
		t.Fatalf("token request %v: scope, audience or resource missing", form)
	}

	// A token the authorization server revokes is replaced on the 401 it
	// earns, and the request goes through with the new one.
	tokens.revoke("tok-1")
	if r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "cc__echo"}); err != nil || firstText(r) != "cc:echo" {
		t.Fatalf("cc__echo after revocation: %v %q", err, firstText(r))
	}
	if n := tokens.fetches(); n != 2 {
		t.Fatalf("%d token fetches after a revocation, want 2", n)
	}
}

// TestUpstreamClientCredentialsKeepsConnections checks that calls in
// flight to an upstream with client credentials reuse their connections:
// rounds of eight calls at once, held until all eight have arrived, open
// eight connections, not eight per round.
func TestUpstreamClientCredentialsKeepsConnections(t *testing.T) {
	const secret = "s3cret-client-secret"
	t.Setenv("GW_TEST_CLIENT_SECRET", secret)
	tokens, tokenURL := newTokenServer(t, secret, 3600)
	const inFlight = 8
	var arrived sync.WaitGroup
	s := server.New(mcp.Implementation{Name: "held", Version: "1"}, nil)
	if err := s.AddTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		arrived.Done()
		all := make(chan struct{}) // the round's eight calls are all in flight
		go func() { arrived.Wait(); close(all) }()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			return nil, errors.New("the round's calls did not all arrive")
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "held"}}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(s, nil)
	var conns atomic.Int32
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !tokens.valid(r) {
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	g, err := startGateway(t, urlUpstream("cc", ts.URL+"/mcp", clientCredentials(tokenURL, "GW_TEST_CLIENT_SECRET")))
	if err != nil {
		t.Fatal(err)
	}
	sess := connect(t, g, nil)
	before := conns.Load() // the gateway's own: discovery and listing
	for round := range 3 {
		arrived.Add(inFlight)
		var calls sync.WaitGroup
		for range inFlight {
			calls.Go(func() {
				if r, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "cc__hold"}); err != nil || firstText(r) != "held" {
					t.Errorf("round %d: %v %q", round, err, firstText(r))
				}
			})
		}
		calls.Wait()
	}
	if opened := conns.Load() - before; opened > inFlight+2 {
		t.Errorf("3 rounds of %d calls at once opened %d connections to the upstream: they are not kept between rounds", inFlight, opened)
	}
}

// TestUpstreamTokenRenewedBeforeExpiry runs a gateway whose tokens last
// 11 s: with the 10 s margin, a token is replaced after a second, without
// waiting for the upstream to refuse it (it would not, for 11 s).
func TestUpstreamTokenRenewedBeforeExpiry(t *testing.T) {
	const secret = "s3cret-client-secret"
	t.Setenv("GW_TEST_CLIENT_SECRET", secret)
	tokens, tokenURL := newTokenServer(t, secret, 11)
	url := serveModern(t, "cc", tokens.valid)
	g, err := startGateway(t, urlUpstream("cc", url, clientCredentials(tokenURL, "GW_TEST_CLIENT_SECRET")))
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, g, nil)
	call := func() {
		t.Helper()
		if r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "cc__echo"}); err != nil || firstText(r) != "cc:echo" {
			t.Fatalf("cc__echo: %v %q", err, firstText(r))
		}
	}
	call()
	before := tokens.fetches()
	time.Sleep(1100 * time.Millisecond) // past the token's renewal time
	call()
	if after := tokens.fetches(); after <= before {
		t.Fatalf("%d token fetches before the renewal time and %d after: the token was not renewed", before, after)
	}
}

func TestTokenCacheRefreshesAfterExpiry(t *testing.T) {
	const secret = "s3cret-client-secret"
	t.Setenv("GW_TEST_CLIENT_SECRET", secret)
	tokens, tokenURL := newTokenServer(t, secret, 60)
	c := newTokenCache(&ClientCredentialsConfig{TokenURL: tokenURL, ClientID: "gw", ClientSecret: SecretConfig{Env: "GW_TEST_CLIENT_SECRET"}})
	now := time.Now()
	c.now = func() time.Time { return now }
	ctx := context.Background()
	get := func() string {
		t.Helper()
		tok, err := c.token(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tok.AccessToken
	}
	if a, b := get(), get(); a != "tok-1" || b != "tok-1" {
		t.Fatalf("tokens %q %q, want tok-1 twice", a, b)
	}
	now = now.Add(45 * time.Second) // 15 s left: still good
	if got := get(); got != "tok-1" {
		t.Fatalf("token with 15 s left: %q, want tok-1", got)
	}
	now = now.Add(10 * time.Second) // 5 s left: inside the early expiry
	if got := get(); got != "tok-2" {
		t.Fatalf("token with 5 s left: %q, want tok-2", got)
	}
	if n := tokens.fetches(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}

// TestSecretsNotInErrors checks that a failed token fetch and a header
// file HTTP cannot carry are reported without the secret, in the error
// and in the log.
func TestSecretsNotInErrors(t *testing.T) {
	const secret = "s3cret-never-shown"
	t.Run("token fetch", func(t *testing.T) {
		t.Setenv("GW_TEST_CLIENT_SECRET", secret)
		_, tokenURL := newTokenServer(t, "another-secret", 3600) // refuses ours
		url := serveModern(t, "cc", func(*http.Request) bool { return false })
		err := startLogged(t, urlUpstream("cc", url, clientCredentials(tokenURL, "GW_TEST_CLIENT_SECRET")), secret)
		if err == nil || !strings.Contains(err.Error(), "invalid_client") {
			t.Fatalf("err = %v, want the token endpoint's refusal", err)
		}
	})
	t.Run("header file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "header")
		if err := os.WriteFile(file, []byte(secret+"\r\nX-Injected: 1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		url := serveModern(t, "h", nil)
		err := startLogged(t, urlUpstream("h", url, fmt.Sprintf("        headers:\n          X-Api-Key: {file: %q}\n", file)), secret)
		if err == nil || !strings.Contains(err.Error(), "control character") {
			t.Fatalf("err = %v, want the header refused", err)
		}
	})
	t.Run("bearer file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(file, []byte(secret+"\x00"), 0o600); err != nil {
			t.Fatal(err)
		}
		url := serveModern(t, "h", nil)
		err := startLogged(t, urlUpstream("h", url, fmt.Sprintf("        auth:\n          bearer: {file: %q}\n", file)), secret)
		if err == nil || !strings.Contains(err.Error(), "control character") {
			t.Fatalf("err = %v, want the token refused", err)
		}
	})
}

// startLogged starts a gateway that logs as text, expecting it to fail,
// and fails the test when the error or the log holds secret.
func startLogged(t *testing.T, upstreams, secret string) error {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n"+upstreams))
	if err != nil {
		t.Fatal(err)
	}
	var log testutil.SyncBuffer
	g, err := New(cfg, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = g.Start(ctx)
	if err == nil {
		_ = g.Close()
		return nil
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error shows the secret: %v", err)
	}
	if strings.Contains(log.String(), secret) {
		t.Errorf("the log shows the secret:\n%s", log.String())
	}
	return err
}

func TestValidateDialErrors(t *testing.T) {
	head := "listen: a:1\nservers:\n  default:\n    upstreams:\n      - name: x\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown transport", "        url: http://h/mcp\n        transport: websocket\n", `cfg.yaml:5: servers.default.upstreams[0] (x): transport "websocket": use streamable, sse or auto`},
		{"transport with command", "        command: [a]\n        transport: sse\n", "cfg.yaml:5: servers.default.upstreams[0] (x): transport needs url"},
		{"auth with command", "        command: [a]\n        auth:\n          bearer: {env: T}\n", "cfg.yaml:5: servers.default.upstreams[0] (x): auth needs url"},
		{"url scheme", "        url: ftp://h/mcp\n", "url: ftp://h/mcp: want an http or https URL"},
		{"url password hidden", "        url: ftp://u:hunter2@h/mcp\n", "ftp://u:xxxxx@h/mcp"},
		{"auth empty", "        url: http://h/mcp\n        auth: {}\n", "auth: give exactly one of bearer and clientCredentials"},
		{"auth both", "        url: http://h/mcp\n        auth:\n          bearer: {env: T}\n          clientCredentials: {tokenURL: https://as/token, clientId: c, clientSecret: {env: S}}\n", "auth: give exactly one of bearer and clientCredentials"},
		{"bearer without source", "        url: http://h/mcp\n        auth:\n          bearer: {}\n", "auth.bearer: give exactly one of env and file"},
		{"bearer and header", "        url: http://h/mcp\n        headers:\n          authorization: {env: H}\n        auth:\n          bearer: {env: T}\n", "header authorization and auth both set the Authorization header"},
		{"no token url", "        url: http://h/mcp\n        auth:\n          clientCredentials: {clientId: c, clientSecret: {env: S}}\n", "auth.clientCredentials.tokenURL: missing"},
		{"token url in clear", "        url: http://h/mcp\n        auth:\n          clientCredentials: {tokenURL: http://as.example/token, clientId: c, clientSecret: {env: S}}\n", "use https (http is allowed to a loopback address only)"},
		{"no client id", "        url: http://h/mcp\n        auth:\n          clientCredentials: {tokenURL: https://as/token, clientSecret: {env: S}}\n", "auth.clientCredentials.clientId: missing"},
		{"no client secret", "        url: http://h/mcp\n        auth:\n          clientCredentials: {tokenURL: https://as/token, clientId: c}\n", "auth.clientCredentials.clientSecret: give exactly one of env and file"},
		{"secret inline", "        url: http://h/mcp\n        auth:\n          bearer: hunter2\n", "line 8: a secret is not written in the config"},
		{"header inline", "        url: http://h/mcp\n        headers:\n          X-Key: hunter2\n", "line 8: a secret is not written in the config"},
		{"unknown secret key", "        url: http://h/mcp\n        headers:\n          X-Key: {value: hunter2}\n", "line 8: field value not found in a secret"},
		{"unknown auth key", "        url: http://h/mcp\n        auth:\n          basic: {env: T}\n", "field basic not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("cfg.yaml", []byte(head+tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("err = %v shows a secret", err)
			}
		})
	}
	for _, ok := range []string{
		"        url: http://h/mcp\n        transport: sse\n",
		"        url: http://h/mcp\n        transport: auto\n        auth:\n          clientCredentials: {tokenURL: http://127.0.0.1:9/token, clientId: c, clientSecret: {file: s}}\n",
		"        url: https://h/mcp\n        auth:\n          clientCredentials: {tokenURL: http://localhost:9/token, clientId: c, clientSecret: {env: S}}\n",
	} {
		if _, err := ParseConfig("cfg.yaml", []byte(head+ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
