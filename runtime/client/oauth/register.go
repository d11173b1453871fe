package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// ErrNoRegistration: the client has no registration with the
// authorization server and cannot get one: no pre-registered client for
// it, no Client ID Metadata Document it accepts, no registration endpoint.
var ErrNoRegistration = errors.New("oauth: no way to register with the authorization server")

// registration returns the client's registration with the authorization
// server of d, in the spec's priority order: a pre-registered client, a
// Client ID Metadata Document when the server accepts them, one stored
// from an earlier dynamic registration, a new dynamic registration.
func (t *Transport) registration(ctx context.Context, d *discovery) (*Registration, error) {
	if r := t.preRegistered(d.issuer); r != nil {
		return r, nil
	}
	if t.cfg.ClientIDMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported && t.interactive() {
		return &Registration{Issuer: d.issuer, ClientID: t.cfg.ClientIDMetadataURL, AuthMethod: AuthNone}, nil
	}
	r, err := t.store.Registration(ctx, d.issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the registration: %w", err)
	}
	if r != nil && r.Issuer == d.issuer && (r.SecretExpiresAt.IsZero() || t.now().Before(r.SecretExpiresAt)) {
		return r, nil
	}
	if d.as.RegistrationEndpoint == "" || !t.interactive() {
		return nil, fmt.Errorf("%w %s", ErrNoRegistration, d.issuer)
	}
	r, err = t.register(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := t.store.SetRegistration(ctx, d.issuer, r); err != nil {
		return nil, fmt.Errorf("oauth: storing the registration: %w", err)
	}
	return r, nil
}

// preRegistered returns the pre-registered client for issuer: the one
// bound to it, else one bound to no server, which is bound to issuer from
// now on.
func (t *Transport) preRegistered(issuer string) *Registration {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.cfg.Clients {
		if c.Issuer == issuer {
			return &c
		}
	}
	for i, c := range t.cfg.Clients {
		if c.Issuer == "" && !t.bound[i] {
			t.bound[i] = true
			t.cfg.Clients[i].Issuer = issuer
			c.Issuer = issuer
			t.log.Info("oauth: pre-registered client bound to its first authorization server", "client_id", c.ClientID, "issuer", issuer)
			return &c
		}
	}
	return nil
}

// register runs dynamic client registration (RFC 7591) at the server of d.
func (t *Transport) register(ctx context.Context, d *discovery) (*Registration, error) {
	method := registrationAuthMethod(d.as.TokenEndpointAuthMethodsSupported)
	req := metadata.Client{
		RedirectURIs:            []string{t.cfg.RedirectURL},
		ClientName:              t.cfg.ClientName,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         t.applicationType(),
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: registration request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := t.hc.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("oauth: registration: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return nil, fmt.Errorf("oauth: registration: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("oauth: registration at %s refused: %s", d.as.RegistrationEndpoint, oauthError(resp.Status, data))
	}
	var got metadata.Client
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, fmt.Errorf("oauth: registration response: %w", err)
	}
	if got.ClientID == "" {
		return nil, errors.New("oauth: the registration response has no client_id")
	}
	r := &Registration{Issuer: d.issuer, ClientID: got.ClientID, ClientSecret: got.ClientSecret, AuthMethod: got.TokenEndpointAuthMethod}
	if r.AuthMethod == "" {
		r.AuthMethod = method
		if r.ClientSecret != "" && method == AuthNone {
			r.AuthMethod = AuthClientSecretBasic // RFC 7591's default
		}
	}
	if got.ClientSecretExpiresAt > 0 {
		r.SecretExpiresAt = time.Unix(got.ClientSecretExpiresAt, 0)
	}
	t.log.Info("oauth: registered", "registration", r)
	return r, nil
}

// registrationAuthMethod is the token endpoint authentication method a
// dynamically registered client asks for: none, as a public client, when
// the server allows it, else the first secret-based method it lists.
func registrationAuthMethod(supported []string) string {
	if len(supported) == 0 || slices.Contains(supported, AuthNone) {
		return AuthNone
	}
	for _, m := range []string{AuthClientSecretBasic, AuthClientSecretPost} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return AuthNone
}

// applicationType is Config.ApplicationType, or "native" for a client
// whose redirect URL is on the loopback interface or of a private scheme,
// "web" otherwise.
func (t *Transport) applicationType() string {
	if t.cfg.ApplicationType != "" {
		return t.cfg.ApplicationType
	}
	u, err := url.Parse(t.cfg.RedirectURL)
	if err != nil {
		return "native"
	}
	switch h := u.Hostname(); {
	case u.Scheme != "http" && u.Scheme != "https":
		return "native"
	case h == "localhost" || h == "127.0.0.1" || h == "::1":
		return "native"
	}
	return "web"
}

// authMethod is the token endpoint authentication method r uses with the
// server of as.
func authMethod(r *Registration, as *metadata.AuthorizationServer) string {
	switch {
	case r.AuthMethod != "":
		return r.AuthMethod
	case r.PrivateKey != nil:
		return AuthPrivateKeyJWT
	case r.ClientSecret == "":
		return AuthNone
	}
	for _, m := range as.TokenEndpointAuthMethodsSupported {
		if m == AuthClientSecretBasic || m == AuthClientSecretPost {
			return m
		}
	}
	return AuthClientSecretBasic
}

// oauthError renders an OAuth error response body (RFC 6749, section
// 5.2) for an error message, or the status when the body is not one.
func oauthError(status string, body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return status
	}
	if e.Description != "" {
		return fmt.Sprintf("%s: %s: %s", status, e.Error, e.Description)
	}
	return status + ": " + e.Error
}
