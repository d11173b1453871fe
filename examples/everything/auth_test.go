package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestAuthMode runs the server in its auth mode against a small
// authorization server of the test's: it publishes a JWKS, and the test
// mints tokens with its key.
func TestAuthMode(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k", Algorithm: "ES256", Use: "sig"}}}
		json.NewEncoder(w).Encode(set)
	}))
	defer as.Close()
	const res = "http://127.0.0.1/mcp"
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	if err != nil {
		t.Fatal(err)
	}
	token := func(scope string) string {
		tok, err := jwt.Signed(signer).Claims(map[string]any{"iss": as.URL, "sub": "ada", "aud": res, "scope": scope,
			"exp": time.Now().Add(time.Hour).Unix()}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	e, err := newEverything(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := registerAuthTools(e.srv); err != nil {
		t.Fatal(err)
	}
	am := &authMode{Issuer: as.URL, Resource: res, JWKS: as.URL + "/jwks", Scope: "mcp"}
	g, err := am.handler(e.srv, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ts := httptest.NewServer(g)
	defer ts.Close()

	call := func(tool, token string) (int, http.Header, string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}

	status, hdr, _ := call("test_simple_text", "")
	if status != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") != `Bearer scope="mcp", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"` {
		t.Fatalf("no token: %d %q", status, hdr.Get("WWW-Authenticate"))
	}
	if status, _, body := call("test_simple_text", token("mcp")); status != 200 || !strings.Contains(body, "This is a simple text response for testing.") {
		t.Fatalf("a conformance tool with a token: %d %s", status, body)
	}
	if status, _, body := call("whoami", token("mcp")); status != 200 || !strings.Contains(body, "subject ada of "+as.URL+", scopes: mcp") {
		t.Fatalf("whoami: %d %s", status, body)
	}
	status, hdr, _ = call("notes_write", token("mcp"))
	if status != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) || !strings.Contains(hdr.Get("WWW-Authenticate"), `scope="notes:write"`) {
		t.Fatalf("notes_write without its scope: %d %q", status, hdr.Get("WWW-Authenticate"))
	}
	if status, _, body := call("notes_write", token("mcp notes:write")); status != 200 || !strings.Contains(body, "noted") {
		t.Fatalf("notes_write with its scope: %d %s", status, body)
	}

	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(doc), `"scopes_supported":["mcp","notes:write"]`) || !strings.Contains(string(doc), `"authorization_servers":["`+as.URL+`"]`) {
		t.Fatalf("metadata: %d %s", resp.StatusCode, doc)
	}
}
