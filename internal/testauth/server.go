// Package testauth is an OAuth 2.1 authorization server for mcpgen's
// end-to-end tests: it publishes its metadata (RFC 8414) and JWKS, takes
// dynamic client registrations (RFC 7591), runs the authorization code
// grant with PKCE (S256 only), the resource indicator (RFC 8707) and the
// iss response parameter (RFC 9207), and refreshes tokens. Access tokens
// are JWTs signed with an ES256 key made at start, for one subject.
//
// The authorization endpoint approves at once, as a user would, and
// redirects; a test's user agent follows the authorization URL without
// following that last redirect (UserAgent). Everything is checked as a
// strict server would, so a client that leaves out PKCE, the resource or
// the state fails here as it would in production.
package testauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// Server is a running authorization server. Its fields other than URL
// are set before the first request and not changed after.
type Server struct {
	// URL is the issuer identifier, the server's base URL.
	URL string
	// Subject is the sub of every token.
	Subject string
	// Resource is the only resource tokens are issued for.
	Resource string
	// ScopesSupported is published in the metadata; a request for a
	// scope outside it is refused with invalid_scope. Nil allows any.
	ScopesSupported []string
	// TokenTTL is the access tokens' lifetime; zero means an hour.
	TokenTTL time.Duration

	srv    *httptest.Server
	key    *ecdsa.PrivateKey
	signer jose.Signer

	mu       sync.Mutex
	clients  map[string]client
	codes    map[string]grant
	refresh  map[string]grant
	requests []Authorization
}

// Authorization is one request the authorization endpoint approved.
type Authorization struct {
	ClientID string
	Scopes   []string
	Resource string
}

type client struct {
	redirectURIs []string
}

// grant is what a code or a refresh token stands for.
type grant struct {
	clientID, redirectURI, challenge, resource string
	scopes                                     []string
	expires                                    time.Time
}

// New starts a Server for resource, which tests close with Close.
func New(resource string) (*Server, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		return nil, err
	}
	s := &Server{Subject: "ada", Resource: resource, key: key, signer: signer,
		clients: map[string]client{}, codes: map[string]grant{}, refresh: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /jwks", s.jwks)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Authorizations returns the requests the authorization endpoint has
// approved, oldest first.
func (s *Server) Authorizations() []Authorization {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, metadata.AuthorizationServer{
		Issuer:                            s.URL,
		AuthorizationEndpoint:             s.URL + "/authorize",
		TokenEndpoint:                     s.URL + "/token",
		RegistrationEndpoint:              s.URL + "/register",
		JWKSURI:                           s.URL + "/jwks",
		ScopesSupported:                   s.ScopesSupported,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
	})
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: s.key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
}

// register takes a public client's registration: its redirect URIs.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "redirect_uris are required")
		return
	}
	id := random()
	s.mu.Lock()
	s.clients[id] = client{redirectURIs: req.RedirectURIs}
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
}

// authorize approves a well-formed request and redirects with a code;
// a request it cannot redirect safely is answered 400.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if !known || !slices.Contains(c.redirectURIs, redirect) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		http.Redirect(w, r, withQuery(redirect, url.Values{"error": {code}, "error_description": {desc}, "state": {q.Get("state")}, "iss": {s.URL}}), http.StatusFound)
	}
	scopes := strings.Fields(q.Get("scope"))
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		fail("invalid_request", "PKCE with S256 is required")
	case q.Get("state") == "":
		fail("invalid_request", "state is required")
	case q.Get("resource") != s.Resource:
		fail("invalid_target", "resource must be "+s.Resource)
	case s.ScopesSupported != nil && slices.ContainsFunc(scopes, func(sc string) bool { return !slices.Contains(s.ScopesSupported, sc) }):
		fail("invalid_scope", "unknown scope")
	default:
		code := random()
		s.mu.Lock()
		s.codes[code] = grant{clientID: q.Get("client_id"), redirectURI: redirect, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: scopes, expires: time.Now().Add(time.Minute)}
		s.requests = append(s.requests, Authorization{ClientID: q.Get("client_id"), Scopes: scopes, Resource: q.Get("resource")})
		s.mu.Unlock()
		http.Redirect(w, r, withQuery(redirect, url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {s.URL}}), http.StatusFound)
	}
}

// token exchanges a code (with its PKCE verifier) or a refresh token for
// an access token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "a form body is expected")
		return
	}
	f := r.PostForm
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		var ok bool
		g, ok = s.codes[f.Get("code")]
		delete(s.codes, f.Get("code")) // a code is used once
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || time.Now().After(g.expires):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or expired code")
			return
		case f.Get("client_id") != g.clientID || f.Get("redirect_uri") != g.redirectURI:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client or redirect_uri")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		}
	case "refresh_token":
		s.mu.Lock()
		var ok bool
		g, ok = s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token")) // rotated, as OAuth 2.1 asks of public clients
		s.mu.Unlock()
		if !ok || f.Get("client_id") != g.clientID {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code or refresh_token")
		return
	}
	if f.Get("resource") != g.resource {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be the one authorized")
		return
	}
	ttl := s.TokenTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	now := time.Now()
	access, err := jwt.Signed(s.signer).Claims(map[string]any{
		"iss": s.URL, "sub": s.Subject, "aud": g.resource, "client_id": g.clientID,
		"scope": strings.Join(g.scopes, " "), "iat": now.Unix(), "exp": now.Add(ttl).Unix(), "jti": random(),
	}).Serialize()
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	refresh := random()
	g.expires = now.Add(24 * time.Hour)
	s.mu.Lock()
	s.refresh[refresh] = g
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(ttl.Seconds()), "scope": strings.Join(g.scopes, " "), "refresh_token": refresh})
}

// UserAgent is the user agent of a test: it opens the authorization URL,
// which approves at once, and returns where the server redirected (the
// client's redirect URI with the code) without following it.
func UserAgent(ctx context.Context, authorizationURL string) (string, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authorizationURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || loc == "" {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return "", fmt.Errorf("testauth: the authorization endpoint answered %s: %s", resp.Status, body)
	}
	return loc, nil
}

func withQuery(base string, v url.Values) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func random() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": fmt.Sprint(desc)})
}
