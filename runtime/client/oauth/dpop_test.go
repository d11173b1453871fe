package oauth

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// checkProof verifies a DPoP proof with the key in its header and returns
// its claims and the key's thumbprint. It reports with Errorf, for it runs
// in the servers' handlers too.
func checkProof(t *testing.T, proof string) (dpopClaims, string) {
	t.Helper()
	tok, err := jwt.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Errorf("proof %q: %v", proof, err)
		return dpopClaims{}, ""
	}
	h := tok.Headers[0]
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		t.Errorf("proof header %+v", h)
		return dpopClaims{}, ""
	}
	var c dpopClaims
	if err := tok.Claims(h.JSONWebKey.Key, &c); err != nil {
		t.Errorf("the proof does not verify with its own key: %v", err)
		return dpopClaims{}, ""
	}
	thumb, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		t.Error(err)
	}
	return c, base64.RawURLEncoding.EncodeToString(thumb)
}

func TestDPoP(t *testing.T) {
	const asNonce, rsNonce = "as-nonce-1", "rs-nonce-1"
	var mu sync.Mutex
	var asProofs, rsProofs, schemes []string
	tokens := map[string]bool{}

	as := newFakeAS(t, "")
	as.edit = func(m *metadata.AuthorizationServer) {
		m.Extra = map[string]json.RawMessage{"dpop_signing_alg_values_supported": json.RawMessage(`["ES256"]`)}
	}
	asHandler := as.srv.Config.Handler
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" {
			asHandler.ServeHTTP(w, r)
			return
		}
		proof := r.Header.Get("DPoP")
		mu.Lock()
		asProofs = append(asProofs, proof)
		mu.Unlock()
		if c, _ := checkProof(t, proof); c.Nonce != asNonce {
			w.Header().Set("DPoP-Nonce", asNonce)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce"})
			return
		}
		rec := httptest.NewRecorder()
		asHandler.ServeHTTP(rec, r)
		var resp map[string]any
		json.Unmarshal(rec.Body.Bytes(), &resp)
		resp["token_type"] = "DPoP"
		mu.Lock()
		tokens[resp["access_token"].(string)] = true
		mu.Unlock()
		writeJSON(w, rec.Code, resp)
	})

	rs := newFakeRS(t, as)
	rsHandler := rs.srv.Config.Handler
	rs.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if r.URL.Path != "/mcp" || scheme == "" {
			rsHandler.ServeHTTP(w, r)
			return
		}
		proof := r.Header.Get("DPoP")
		mu.Lock()
		schemes = append(schemes, scheme)
		rsProofs = append(rsProofs, proof)
		mu.Unlock()
		if c, _ := checkProof(t, proof); scheme == "DPoP" && c.Nonce != rsNonce {
			w.Header().Set("DPoP-Nonce", rsNonce)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.Header.Set("Authorization", "Bearer "+tok) // the fake checks Bearer tokens
		rsHandler.ServeHTTP(w, r)
	})

	cfg := testConfig()
	cfg.DPoP = true
	tr := NewTransport(cfg, nil)
	for range 2 {
		if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
	}
	// The token request: once without the nonce, once with it.
	if len(asProofs) != 2 {
		t.Fatalf("%d proofs at the token endpoint; want 2 (the nonce retry)", len(asProofs))
	}
	c, asKey := checkProof(t, asProofs[1])
	if c.HTM != "POST" || c.HTU != as.srv.URL+"/token" || c.ATH != "" || c.Nonce != asNonce {
		t.Errorf("token request proof %+v", c)
	}
	// The MCP requests: the first with a token is refused for the nonce,
	// then every one carries it, with its own jti, the token's hash and
	// the same key as the token request.
	if !slices.Equal(schemes, []string{"DPoP", "DPoP", "DPoP"}) {
		t.Fatalf("schemes %q; want DPoP three times", schemes)
	}
	tok, _ := tr.store.Token(t.Context(), rs.url())
	sum := sha256.Sum256([]byte(tok.AccessToken))
	jtis := map[string]bool{}
	for i, p := range rsProofs {
		c, key := checkProof(t, p)
		if c.HTM != "POST" || c.HTU != rs.url() || c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) || key != asKey {
			t.Errorf("MCP proof %d: %+v (key %s, token request's %s)", i, c, key, asKey)
		}
		if i > 0 && c.Nonce != rsNonce {
			t.Errorf("MCP proof %d without the server's nonce: %+v", i, c)
		}
		if jtis[c.ID] {
			t.Errorf("jti %q reused", c.ID)
		}
		jtis[c.ID] = true
		if d := time.Since(c.IssuedAt.Time()); d < -time.Minute || d > time.Minute {
			t.Errorf("iat %v", c.IssuedAt.Time())
		}
	}
	if len(as.authz) != 1 {
		t.Errorf("%d authorizations; the nonce retries are not authorizations", len(as.authz))
	}
}

// TestDPoPNotSupported: an authorization server that does not list ES256
// gets no proofs, and the token is a Bearer one.
func TestDPoPNotSupported(t *testing.T) {
	as := newFakeAS(t, "")
	var proofs int
	asHandler := as.srv.Config.Handler
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("DPoP") != "" {
			proofs++
		}
		asHandler.ServeHTTP(w, r)
	})
	rs := newFakeRS(t, as)
	cfg := testConfig()
	cfg.DPoP = true
	tr := NewTransport(cfg, nil)
	if status, err := post(t, tr, rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if tok, _ := tr.store.Token(t.Context(), rs.url()); proofs != 0 || tok.TokenType != "Bearer" {
		t.Fatalf("%d proofs, token type %q", proofs, tok.TokenType)
	}
}
