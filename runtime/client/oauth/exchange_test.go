package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestJWTBearer: a workload's assertion is exchanged for a token, and a
// failing assertion is surfaced, not retried.
func TestJWTBearer(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.challengeScope = "mcp:read"
	var got []AssertionRequest
	cfg := Config{
		Grant:   GrantJWTBearer,
		Clients: []Registration{{ClientID: "workload"}},
		Assertion: func(_ context.Context, r AssertionRequest) (string, error) {
			got = append(got, r)
			return "workload-jwt", nil
		},
	}
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	f := as.tokenForms[0]
	if f.Get("grant_type") != GrantJWTBearer || f.Get("assertion") != "workload-jwt" || f.Get("client_id") != "workload" ||
		f.Get("resource") != rs.url() || f.Get("scope") != "mcp:read" || len(as.authz) != 0 || len(as.regs) != 0 {
		t.Fatalf("token request %v", f)
	}
	if len(got) != 1 || got[0].Issuer != as.issuer() || got[0].Resource != rs.url() {
		t.Fatalf("assertion requests %+v", got)
	}

	as2 := newFakeAS(t, "")
	rs2 := newFakeRS(t, as2)
	boom := errors.New("no workload identity")
	cfg.Assertion = func(context.Context, AssertionRequest) (string, error) { return "", boom }
	if _, err := post(t, NewTransport(cfg, nil), rs2.url(), `{}`); !errors.Is(err, boom) {
		t.Fatalf("error %v; want the assertion's", err)
	}
	if len(as2.tokenForms) != 0 {
		t.Fatalf("token requests without an assertion: %v", as2.tokenForms)
	}
	if err := (&Config{Grant: GrantJWTBearer, Clients: cfg.Clients}).Check(); err == nil {
		t.Fatal("Check passed a JWT bearer Config without Assertion")
	}
}

// TestIDJAGExchange: enterprise-managed authorization exchanges the ID
// token at the IdP for an ID-JAG addressed to the authorization server
// and the MCP server, then presents it with the client's secret.
func TestIDJAGExchange(t *testing.T) {
	var idpForm url.Values
	var idpAuth string
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		idpForm, idpAuth = r.PostForm, r.Header.Get("Authorization")
		writeJSON(w, http.StatusOK, map[string]string{"access_token": "the-id-jag", "issued_token_type": TokenTypeIDJAG, "token_type": "N_A"})
	}))
	t.Cleanup(idp.Close)
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	x := &IDJAGExchange{
		TokenEndpoint: idp.URL + "/token",
		SubjectToken:  func(context.Context) (string, error) { return "the-id-token", nil },
		ClientID:      "idp-client",
	}
	cfg := Config{Grant: GrantJWTBearer, Clients: []Registration{{ClientID: "app", ClientSecret: "app-secret"}}, Assertion: x.Assertion}
	if status, err := post(t, NewTransport(cfg, nil), rs.url(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	want := url.Values{
		"grant_type": {tokenExchangeGrant}, "requested_token_type": {TokenTypeIDJAG},
		"subject_token": {"the-id-token"}, "subject_token_type": {TokenTypeIDToken},
		"audience": {as.issuer()}, "resource": {rs.url()}, "client_id": {"idp-client"},
	}
	if idpForm.Encode() != want.Encode() || idpAuth != "" {
		t.Fatalf("token exchange %v (Authorization %q); want %v", idpForm, idpAuth, want)
	}
	f := as.tokenForms[0]
	if f.Get("assertion") != "the-id-jag" || f.Get("grant_type") != GrantJWTBearer ||
		as.tokenAuth[0] != "Basic "+base64.StdEncoding.EncodeToString([]byte("app:app-secret")) {
		t.Fatalf("JWT bearer request %v, Authorization %q", f, as.tokenAuth[0])
	}

	// An IdP that issues something else is refused.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"access_token": "x", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"})
	}))
	t.Cleanup(bad.Close)
	x.TokenEndpoint = bad.URL
	if _, err := x.Assertion(t.Context(), AssertionRequest{Issuer: as.issuer(), Resource: rs.url()}); err == nil {
		t.Fatal("an access token was taken for an ID-JAG")
	}
}
