package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// startFront starts a gateway whose one virtual server, default, has the
// upstream a of the test binary, with the front sections of front (YAML
// at the top level), and serves it. It adds to the virtual server the
// tools of addFrontTools.
func startFront(t testing.TB, front string) (*Gateway, *httptest.Server) {
	t.Helper()
	return startFrontLog(t, front, nil)
}

// startFrontLog is startFront with the gateway logging to log.
func startFrontLog(t testing.TB, front string, log *slog.Logger) (*Gateway, *httptest.Server) {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\n"+front+"servers:\n  default:\n    upstreams:\n"+upstreamConfig(t, "a", nil, "")))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	addFrontTools(t, g.Server("default"))
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	return g, ts
}

// addFrontTools adds tools that stand for what the gateway's other
// concerns answer: whoami says what callerOf sees; denied, limited and
// unavailable return the refusals of authorization, rate limits and the
// circuit breaker; broken fails as a dead upstream does; slow waits for
// its ctx; add needs two integers.
func addFrontTools(t testing.TB, srv *server.Server) {
	t.Helper()
	obj := mcp.ToolInputSchema{}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	addTool := func(def mcp.Tool, h server.ToolHandler) error {
		return srv.AddTool(def, h, upstreamValidates(def)...)
	}
	must(addTool(mcp.Tool{Name: "whoami", InputSchema: obj, OutputSchema: &mcp.ToolOutputSchema{Type: "object"}}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		c := callerOf(ctx)
		data, err := json.Marshal(map[string]any{"sub": c.Subject, "iss": c.Issuer, "scopes": c.Scopes, "claims": c.Claims})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(data)}}}, StructuredContent: data}, nil
	}))
	refuse := func(code int64) server.ToolHandler {
		return func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(code, "refused by the test")
		}
	}
	must(addTool(mcp.Tool{Name: "denied", InputSchema: obj}, refuse(-31403)))
	must(addTool(mcp.Tool{Name: "limited", InputSchema: obj}, refuse(server.CodeRateLimited)))
	must(addTool(mcp.Tool{Name: "unavailable", InputSchema: obj}, refuse(-31503)))
	must(addTool(mcp.Tool{Name: "broken", InputSchema: obj}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, errors.New("upstream a: connection lost")
	}))
	must(addTool(mcp.Tool{Name: "nap", InputSchema: obj}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "rested"}}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}))
	must(addTool(mcp.Tool{Name: "slow", InputSchema: obj}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	add := mcp.ToolInputSchema{
		Properties: map[string]json.RawMessage{"a": json.RawMessage(`{"type":"integer"}`), "b": json.RawMessage(`{"type":"integer"}`)},
		Required:   []string{"a", "b"},
	}
	out := &mcp.ToolOutputSchema{Type: "object", Properties: map[string]json.RawMessage{"sum": json.RawMessage(`{"type":"integer"}`)}, Required: []string{"sum"}}
	must(addTool(mcp.Tool{Name: "add", Title: "Add", Description: "Adds a and b.", InputSchema: add, OutputSchema: out}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ A, B int }
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return nil, err
		}
		data, _ := json.Marshal(map[string]int{"sum": in.A + in.B})
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(data)}}}, StructuredContent: data}, nil
	}))
}

// whoami is what the whoami tool says of its caller.
type whoami struct {
	Sub    string         `json:"sub"`
	Iss    string         `json:"iss"`
	Scopes []string       `json:"scopes"`
	Claims map[string]any `json:"claims"`
}

func callWhoami(t *testing.T, s *client.Session) whoami {
	t.Helper()
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	var w whoami
	if err := json.Unmarshal(r.StructuredContent, &w); err != nil {
		t.Fatalf("whoami: %v: %s", err, r.StructuredContent)
	}
	return w
}

// transports are the ways a downstream client reaches the default
// virtual server: Streamable HTTP in both eras at both of its paths, and
// HTTP+SSE at both of its.
var transports = []struct {
	name string
	era  mcp.Era
	path string
	sse  bool
}{
	{"streamable-2025", mcp.EraLegacy, "/mcp", false},
	{"streamable-2026", mcp.EraModern, "/mcp/default", false},
	{"sse-default", mcp.EraLegacy, "/sse", true},
	{"sse-named", mcp.EraLegacy, "/mcp/default/sse", true},
}

func dial(t *testing.T, base, path string, era mcp.Era, sse bool, header http.Header) (*client.Session, error) {
	t.Helper()
	var tr jsonrpc.Transport
	if sse {
		tr = streamable.NewLegacyClientTransport(base+path, &streamable.LegacyClientOptions{Header: header})
	} else {
		tr = streamable.NewClientTransport(base+path, &streamable.ClientOptions{Header: header})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Era: era}).Connect(ctx, tr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, nil
}

func TestTransports(t *testing.T) {
	_, ts := startFront(t, "")
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s, err := dial(t, ts.URL, tr.path, tr.era, tr.sse, nil)
			if err != nil {
				t.Fatal(err)
			}
			if names := toolNames(t, s); !slices.Contains(names, "a__echo") || !slices.Contains(names, "whoami") {
				t.Fatalf("tools %q", names)
			}
			r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__echo"})
			if err != nil || firstText(r) != "a:echo" {
				t.Fatalf("a__echo: %v %q", err, firstText(r))
			}
			if w := callWhoami(t, s); w.Sub != "" || w.Iss != "" {
				t.Fatalf("an anonymous caller is %+v", w)
			}
		})
	}
}

const (
	aliceKey = "alice-key-0123456789abcdef"
	bobKey   = "bob-key-0123456789abcdef-b"
)

func TestAPIKeys(t *testing.T) {
	t.Setenv("GW_TEST_ALICE", aliceKey)
	bobFile := t.TempDir() + "/bob"
	if err := os.WriteFile(bobFile, []byte(bobKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, ts := startFront(t, `auth:
  keys:
    - subject: alice
      key: {env: GW_TEST_ALICE}
      scopes: [tools.read, tools.write]
      claims: {role: admin, level: 3}
    - subject: bob
      key: {file: `+bobFile+`}
`)
	t.Run("metrics with a key", func(t *testing.T) {
		req, _ := http.NewRequest("GET", ts.URL+"/metrics", nil)
		req.Header.Set(APIKeyHeader, aliceKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /metrics with a key: %s", resp.Status)
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			name, header, value, challenge string
		}{
			{"none", "", "", `Bearer realm="mcpgen-gateway"`},
			{"wrong bearer", "Authorization", "Bearer " + aliceKey + "x", `Bearer realm="mcpgen-gateway", error="invalid_token"`},
			{"wrong header", APIKeyHeader, "nope-nope-nope-nope", `Bearer realm="mcpgen-gateway", error="invalid_token"`},
			{"another scheme", "Authorization", "Basic " + aliceKey, `Bearer realm="mcpgen-gateway"`},
		} {
			for _, path := range []string{"/mcp", "/mcp/default", "/sse", "/mcp/default/message", "/metrics"} {
				req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Content-Type", "application/json")
				if c.header != "" {
					req.Header.Set(c.header, c.value)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != c.challenge {
					t.Errorf("%s %s: %d %q, want 401 %q", c.name, path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), c.challenge)
				}
				// The JSON-RPC error the OAuth middleware answers with too.
				var e struct {
					JSONRPC string `json:"jsonrpc"`
					Error   struct {
						Code    int64  `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if strings.Contains(string(body), aliceKey) || json.Unmarshal(body, &e) != nil || e.JSONRPC != "2.0" ||
					e.Error.Code != jsonrpc.CodeInvalidRequest || !strings.HasPrefix(e.Error.Message, "unauthorized: ") {
					t.Errorf("%s %s: body %s", c.name, path, body)
				}
			}
		}
		if _, err := dial(t, ts.URL, "/mcp", mcp.EraLegacy, false, nil); err == nil {
			t.Error("a client without a key connected")
		}
	})
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s, err := dial(t, ts.URL, tr.path, tr.era, tr.sse, http.Header{"Authorization": {"Bearer " + aliceKey}})
			if err != nil {
				t.Fatal(err)
			}
			w := callWhoami(t, s)
			if w.Sub != "alice" || w.Iss != APIKeyIssuer || !slices.Equal(w.Scopes, []string{"tools.read", "tools.write"}) ||
				w.Claims["role"] != "admin" || w.Claims["level"] != 3.0 || w.Claims["sub"] != "alice" {
				t.Fatalf("alice is seen as %+v", w)
			}
			s, err = dial(t, ts.URL, tr.path, tr.era, tr.sse, http.Header{APIKeyHeader: {bobKey}})
			if err != nil {
				t.Fatal(err)
			}
			if w := callWhoami(t, s); w.Sub != "bob" || len(w.Scopes) != 0 || w.Claims["role"] != nil {
				t.Fatalf("bob is seen as %+v", w)
			}
		})
	}
}

func TestAPIKeyConfig(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"auth: {}\n", "give keys, oauth or both"},
		{"auth:\n  keys:\n    - subject: a\n      key: {}\n", "give exactly one of env and file"},
		{"auth:\n  keys:\n    - key: {env: X}\n", "subject: missing"},
		{"auth:\n  keys:\n    - {subject: a, key: {env: X}}\n    - {subject: a, key: {env: Y}}\n", `subject "a" is also auth.keys[0]`},
		{"auth:\n  oauth: {issuer: https://as}\n", "audience: missing"},
		{"rest: {timeoutMs: -1}\n", "rest.timeoutMs"},
	} {
		_, err := ParseConfig("t.yaml", []byte(c.yaml+"listen: x:1\nservers:\n  default:\n    upstreams:\n      - {name: a, url: 'http://x'}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
	t.Setenv("GW_TEST_SHORT", "short")
	cfg, err := ParseConfig("t.yaml", []byte("auth:\n  keys:\n    - {subject: a, key: {env: GW_TEST_SHORT}}\nlisten: x:1\nservers:\n  default:\n    upstreams:\n      - {name: a, url: 'http://x'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "shorter than 16 bytes") || strings.Contains(err.Error(), "short\"") {
		t.Fatalf("a short key: %v", err)
	}
}

// testIssuer is an OAuth authorization server as far as a resource server
// sees one: an issuer URL and the JWKS of its ES256 key.
type testIssuer struct {
	srv *httptest.Server
	key *ecdsa.PrivateKey
}

func newTestIssuer(t *testing.T) *testIssuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	xy := pub.Bytes()[1:]
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig", "x": b64(xy[:32]), "y": b64(xy[32:]),
	}}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(jwks)
	}))
	t.Cleanup(srv.Close)
	return &testIssuer{srv: srv, key: key}
}

// token signs claims, adding iss, aud, iat and exp when they are absent.
func (is *testIssuer) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": is.srv.URL, "aud": testAudience, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	b64 := base64.RawURLEncoding.EncodeToString
	h, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "at+jwt", "kid": "k1"})
	p, _ := json.Marshal(c)
	input := b64(h) + "." + b64(p)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, is.key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig)
}

const testAudience = "https://gw.example/mcp"

func TestOAuth(t *testing.T) {
	is := newTestIssuer(t)
	t.Setenv("GW_TEST_ALICE", aliceKey)
	var logs testutil.SyncBuffer
	_, ts := startFrontLog(t, `auth:
  keys:
    - {subject: ci, key: {env: GW_TEST_ALICE}}
  oauth:
    issuer: `+is.srv.URL+`
    audience: `+testAudience+`
    jwksUri: `+is.srv.URL+`/jwks
    scopes: [mcp]
rest: {}
`, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() {
		// Neither keys nor tokens reach the log.
		if l := logs.String(); strings.Contains(l, aliceKey) || strings.Contains(l, "eyJ") {
			t.Errorf("a credential was logged:\n%s", l)
		}
	})
	metadata := "https://gw.example/.well-known/oauth-protected-resource/mcp"
	good := is.token(t, map[string]any{"sub": "carol", "scope": "mcp tools.read", "role": "admin", "groups": []string{"ops"}})
	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct{ name, auth, challenge string }{
			{"none", "", `Bearer scope="mcp", resource_metadata="` + metadata + `"`},
			{"wrong audience", "Bearer " + is.token(t, map[string]any{"sub": "carol", "aud": "https://other.example/mcp"}), `Bearer error="invalid_token", error_description="it was not issued for this resource (aud)", scope="mcp", resource_metadata="` + metadata + `"`},
			{"expired", "Bearer " + is.token(t, map[string]any{"sub": "carol", "exp": time.Now().Add(-time.Hour).Unix()}), `error="invalid_token", error_description="it expired"`},
			{"not a key nor a token", "Bearer " + aliceKey + "x", `error="invalid_token"`},
		} {
			for _, path := range []string{"/mcp", "/mcp/default/sse", "/rest/openapi.json"} {
				req, _ := http.NewRequest("GET", ts.URL+path, nil)
				if c.auth != "" {
					req.Header.Set("Authorization", c.auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(got, c.challenge) {
					t.Errorf("%s %s: %d %q, want 401 with %q", c.name, path, resp.StatusCode, got, c.challenge)
				}
			}
		}
		resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatal(err)
		}
		var md struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || md.Resource != testAudience || !slices.Equal(md.AuthorizationServers, []string{is.srv.URL}) {
			t.Fatalf("metadata: %v %+v", err, md)
		}
	})
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s, err := dial(t, ts.URL, tr.path, tr.era, tr.sse, http.Header{"Authorization": {"Bearer " + good}})
			if err != nil {
				t.Fatal(err)
			}
			w := callWhoami(t, s)
			if w.Sub != "carol" || w.Iss != is.srv.URL || !slices.Equal(w.Scopes, []string{"mcp", "tools.read"}) ||
				w.Claims["role"] != "admin" || len(w.Claims["groups"].([]any)) != 1 {
				t.Fatalf("carol is seen as %+v", w)
			}
			// The API key still works beside OAuth.
			s, err = dial(t, ts.URL, tr.path, tr.era, tr.sse, http.Header{"Authorization": {"Bearer " + aliceKey}})
			if err != nil {
				t.Fatal(err)
			}
			if w := callWhoami(t, s); w.Sub != "ci" || w.Iss != APIKeyIssuer {
				t.Fatalf("the key is seen as %+v", w)
			}
		})
	}
}
