package testauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

// TestCodeFlow walks the authorization code grant by hand: what a client
// leaves out is refused, and the token it gets verifies with mcpgen's
// resource-server verifier.
func TestCodeFlow(t *testing.T) {
	const resource = "http://127.0.0.1:1/mcp"
	as, err := New(resource)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	ctx := context.Background()

	resp, err := http.Post(as.URL+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1:2/cb"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()

	verifier := "a-verifier-of-at-least-forty-three-characters-long"
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"http://127.0.0.1:2/cb"},
		"state": {"st"}, "resource": {resource}, "scope": {"a b"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}

	noPKCE := url.Values{}
	for k, v := range q {
		if k != "code_challenge" && k != "code_challenge_method" {
			noPKCE[k] = v
		}
	}
	loc, err := UserAgent(ctx, as.URL+"/authorize?"+noPKCE.Encode())
	if err != nil || !strings.Contains(loc, "error=invalid_request") {
		t.Fatalf("without PKCE: %s, %v", loc, err)
	}
	loc, err = UserAgent(ctx, as.URL+"/authorize?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := url.Parse(loc)
	code := cb.Query().Get("code")
	if code == "" || cb.Query().Get("state") != "st" || cb.Query().Get("iss") != as.URL {
		t.Fatalf("redirect %s", loc)
	}
	exchange := func(form url.Values) (int, map[string]any) {
		resp, err := http.Post(as.URL+"/token", "application/x-www-form-urlencoded", bytes.NewBufferString(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {reg.ClientID},
		"redirect_uri": {"http://127.0.0.1:2/cb"}, "resource": {resource}, "code_verifier": {"wrong"}}
	if st, out := exchange(form); st != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("a wrong verifier: %d %v", st, out)
	}
	// The code was spent by the failed try: a client must start again.
	loc, _ = UserAgent(ctx, as.URL+"/authorize?"+q.Encode())
	cb, _ = url.Parse(loc)
	form.Set("code", cb.Query().Get("code"))
	form.Set("code_verifier", verifier)
	st, out := exchange(form)
	if st != http.StatusOK {
		t.Fatalf("token: %d %v", st, out)
	}
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.URL, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	info, err := v.Verify(ctx, out["access_token"].(string))
	if err != nil {
		t.Fatalf("the access token does not verify: %v", err)
	}
	if info.Subject != "ada" || !info.HasScope("a") || !info.HasScope("b") {
		t.Fatalf("token info %+v", info)
	}
	if got := as.Authorizations(); len(got) != 2 || got[1].ClientID != reg.ClientID {
		t.Fatalf("authorizations %+v", got)
	}
}
