package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Errors of the authorization response; Transport.RoundTrip returns them
// wrapped. On any of them the code is never sent to a token endpoint.
var (
	// ErrIssuerMismatch: the authorization response's iss is not the
	// issuer identifier of the authorization server the client sent the
	// user to (RFC 9207), or the server promised an iss and sent none.
	// iss is compared as a plain string, without URL normalization.
	ErrIssuerMismatch = errors.New("oauth: the authorization response is not from the expected authorization server")
	// ErrStateMismatch: the authorization response's state is not the one
	// the client sent.
	ErrStateMismatch = errors.New("oauth: the authorization response's state does not match the request's")
	// ErrNoAuthorizer: the authorization code grant needs
	// Config.Authorize and Config.RedirectURL.
	ErrNoAuthorizer = errors.New("oauth: the authorization code grant needs Config.Authorize and Config.RedirectURL")
)

// AuthorizationError is an error response of the authorization endpoint
// (RFC 6749, section 4.1.2.1), such as access_denied. It is returned only
// once the response's iss and state have been checked.
type AuthorizationError struct {
	Code        string // the error parameter
	Description string // error_description, if any
}

func (e *AuthorizationError) Error() string {
	if e.Description != "" {
		return fmt.Sprintf("oauth: the authorization server refused: %s: %s", e.Code, e.Description)
	}
	return "oauth: the authorization server refused: " + e.Code
}

// obtain gets a new token from the authorization server of d with the
// configured grant.
func (t *Transport) obtain(ctx context.Context, d *discovery, reg *Registration, scopes []string) (*Token, error) {
	hc, err := t.tokenClient(d)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	switch t.cfg.Grant {
	case GrantClientCredentials:
		return t.clientCredentials(ctx, d, reg, scopes)
	case GrantJWTBearer:
		return t.jwtBearer(ctx, d, reg, scopes)
	}
	return t.authorizationCode(ctx, d, reg, scopes)
}

// tokenAuth returns how reg authenticates at the token endpoint of d: the
// oauth2 style, the secret to send, and the parameters to add.
func (t *Transport) tokenAuth(d *discovery, reg *Registration) (oauth2.AuthStyle, string, url.Values, error) {
	switch m := authMethod(reg, d.as); m {
	case AuthClientSecretBasic:
		return oauth2.AuthStyleInHeader, reg.ClientSecret, nil, nil
	case AuthClientSecretPost:
		return oauth2.AuthStyleInParams, reg.ClientSecret, nil, nil
	case AuthNone:
		return oauth2.AuthStyleInParams, "", nil, nil
	case AuthPrivateKeyJWT:
		a, err := clientAssertion(reg, d.issuer, t.now())
		if err != nil {
			return 0, "", nil, err
		}
		return oauth2.AuthStyleInParams, "", url.Values{
			"client_assertion_type": {clientAssertionType},
			"client_assertion":      {a},
		}, nil
	default:
		return 0, "", nil, fmt.Errorf("oauth: unknown token endpoint authentication method %q", m)
	}
}

// authorizationCode runs the authorization code grant with PKCE (S256),
// state, the resource indicator, and the RFC 9207 issuer check.
func (t *Transport) authorizationCode(ctx context.Context, d *discovery, reg *Registration, scopes []string) (*Token, error) {
	if t.cfg.Authorize == nil || t.cfg.RedirectURL == "" {
		return nil, ErrNoAuthorizer
	}
	if !d.legacy && !slices.Contains(d.as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w (%s lists %q)", ErrPKCEUnsupported, d.issuer, d.as.CodeChallengeMethodsSupported)
	}
	style, secret, params, err := t.tokenAuth(d, reg)
	if err != nil {
		return nil, err
	}
	conf := &oauth2.Config{
		ClientID:     reg.ClientID,
		ClientSecret: secret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   d.as.AuthorizationEndpoint,
			TokenURL:  d.as.TokenEndpoint,
			AuthStyle: style,
		},
		RedirectURL: t.cfg.RedirectURL,
		Scopes:      scopes,
	}
	state := rand.Text()
	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	t.log.Info("oauth: authorizing", "issuer", d.issuer, "client_id", reg.ClientID, "scopes", scopes)
	callback, err := t.cfg.Authorize(ctx, authURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization: %w", err)
	}
	code, err := t.checkResponse(callback, state, d)
	if err != nil {
		return nil, err
	}
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource)}
	for k, v := range params {
		opts = append(opts, oauth2.SetAuthURLParam(k, v[0]))
	}
	tok, err := conf.Exchange(ctx, code, opts...)
	if err != nil {
		return nil, fmt.Errorf("oauth: token request: %w", err)
	}
	return t.token(tok, d, scopes), nil
}

// checkResponse validates the authorization response that came back to
// the redirect URL and returns its code. The issuer is checked first, as
// RFC 9207 asks: an error response from the wrong server is not acted on.
func (t *Transport) checkResponse(callback, state string, d *discovery) (string, error) {
	u, err := url.Parse(callback)
	if err != nil {
		return "", fmt.Errorf("oauth: the authorization response URL: %w", err)
	}
	if r, err := url.Parse(t.cfg.RedirectURL); err == nil &&
		(u.Scheme != r.Scheme || !strings.EqualFold(u.Host, r.Host) || u.Path != r.Path) {
		return "", fmt.Errorf("oauth: the authorization response came to %s://%s%s, not to the redirect URL", u.Scheme, u.Host, u.Path)
	}
	q := u.Query()
	if iss, ok := q["iss"]; ok {
		if len(iss) != 1 || iss[0] != d.issuer {
			return "", fmt.Errorf("%w: iss %q, expected %q", ErrIssuerMismatch, q.Get("iss"), d.issuer)
		}
	} else if d.as.AuthorizationResponseIssParameterSupported {
		return "", fmt.Errorf("%w: %s promises iss in its responses and sent none", ErrIssuerMismatch, d.issuer)
	}
	if q.Get("state") != state {
		return "", ErrStateMismatch
	}
	if e := q.Get("error"); e != "" {
		return "", &AuthorizationError{Code: e, Description: q.Get("error_description")}
	}
	code := q.Get("code")
	if code == "" {
		return "", errors.New("oauth: the authorization response has no code")
	}
	return code, nil
}

// clientCredentials runs the client credentials grant, for a client
// acting on its own behalf.
func (t *Transport) clientCredentials(ctx context.Context, d *discovery, reg *Registration, scopes []string) (*Token, error) {
	style, secret, params, err := t.tokenAuth(d, reg)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = url.Values{}
	}
	params.Set("resource", d.resource)
	conf := &clientcredentials.Config{
		ClientID:       reg.ClientID,
		ClientSecret:   secret,
		TokenURL:       d.as.TokenEndpoint,
		Scopes:         scopes,
		EndpointParams: params,
		AuthStyle:      style,
	}
	t.log.Info("oauth: client credentials", "issuer", d.issuer, "client_id", reg.ClientID, "scopes", scopes)
	tok, err := conf.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: token request: %w", err)
	}
	return t.token(tok, d, scopes), nil
}

// token turns an oauth2 token into a Token bound to the issuer of d.
func (t *Transport) token(tok *oauth2.Token, d *discovery, scopes []string) *Token {
	return &Token{
		AccessToken:  tok.AccessToken,
		TokenType:    tokenType(tok.TokenType),
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
		Scopes:       slices.Clone(scopes),
		Issuer:       d.issuer,
		Resource:     d.resource,
	}
}

// refresh renews tok with its refresh token at the authorization server of
// d, sending the resource indicator as every token request does; the
// golang.org/x/oauth2 refresher cannot add it, so the request is made
// here. A response without a refresh token keeps the old one (RFC 6749,
// section 6).
func (t *Transport) refresh(ctx context.Context, d *discovery, reg *Registration, tok *Token) (*Token, error) {
	r, err := t.tokenRequest(ctx, d, reg, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "resource": {tok.Resource}})
	if err != nil {
		return nil, fmt.Errorf("oauth: refresh: %w", err)
	}
	next := *tok
	next.AccessToken, next.TokenType, next.Expiry = r.AccessToken, tokenType(r.TokenType), time.Time{}
	if r.RefreshToken != "" {
		next.RefreshToken = r.RefreshToken
	}
	if r.ExpiresIn > 0 {
		next.Expiry = t.now().Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	t.log.Debug("oauth: refreshed", "token", next)
	return &next, nil
}

// jwtBearer runs the JWT bearer grant (RFC 7523, section 2.1) with the
// assertion Config.Assertion gives.
func (t *Transport) jwtBearer(ctx context.Context, d *discovery, reg *Registration, scopes []string) (*Token, error) {
	if t.cfg.Assertion == nil {
		return nil, errors.New("oauth: the JWT bearer grant needs Config.Assertion")
	}
	a, err := t.cfg.Assertion(ctx, AssertionRequest{Issuer: d.issuer, Resource: d.resource, Scopes: slices.Clone(scopes), HTTPClient: t.hc})
	if err != nil {
		return nil, fmt.Errorf("oauth: the assertion: %w", err)
	}
	form := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {a}, "resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	t.log.Info("oauth: JWT bearer grant", "issuer", d.issuer, "client_id", reg.ClientID, "scopes", scopes)
	r, err := t.tokenRequest(ctx, d, reg, form)
	if err != nil {
		return nil, fmt.Errorf("oauth: token request: %w", err)
	}
	tok := &Token{AccessToken: r.AccessToken, TokenType: tokenType(r.TokenType), RefreshToken: r.RefreshToken,
		Scopes: slices.Clone(scopes), Issuer: d.issuer, Resource: d.resource}
	if r.ExpiresIn > 0 {
		tok.Expiry = t.now().Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// tokenResponse is a token endpoint's successful response (RFC 6749,
// section 5.1; RFC 8693, section 2.2.1).
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	RefreshToken    string `json:"refresh_token"`
	ExpiresIn       int64  `json:"expires_in"`
	IssuedTokenType string `json:"issued_token_type"`
}

// tokenRequest POSTs form to the token endpoint of d, authenticated as reg
// is, for the grants golang.org/x/oauth2 does not make.
func (t *Transport) tokenRequest(ctx context.Context, d *discovery, reg *Registration, form url.Values) (*tokenResponse, error) {
	style, secret, params, err := t.tokenAuth(d, reg)
	if err != nil {
		return nil, err
	}
	for k, v := range params {
		form[k] = v
	}
	user, pass := "", ""
	if style == oauth2.AuthStyleInParams {
		form.Set("client_id", reg.ClientID)
		if secret != "" {
			form.Set("client_secret", secret)
		}
	} else {
		user, pass = reg.ClientID, secret
	}
	hc, err := t.tokenClient(d)
	if err != nil {
		return nil, err
	}
	return postToken(ctx, hc, d.as.TokenEndpoint, form, user, pass)
}

// postToken POSTs form to a token endpoint, with HTTP Basic client
// authentication when user is not empty (its parts form-encoded first, as
// RFC 6749 section 2.3.1 says), and reads the response.
func postToken(ctx context.Context, hc *http.Client, endpoint string, form url.Values, user, pass string) (*tokenResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s refused: %s", endpoint, oauthError(resp.Status, body))
	}
	var r tokenResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the token response: %w", err)
	}
	if r.AccessToken == "" {
		return nil, errors.New("the token response has no access_token")
	}
	return &r, nil
}

// tokenType is the token type to send a token with: Bearer unless the
// server says otherwise.
func tokenType(t string) string {
	if t == "" || strings.EqualFold(t, "bearer") {
		return "Bearer"
	}
	return t
}
