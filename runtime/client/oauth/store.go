package oauth

import (
	"context"
	"crypto"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Token is an access token the client holds for an MCP server, with what
// it needs to use and renew it. Its String, GoString and LogValue leave
// the tokens out, so that logging a Token never leaks one.
type Token struct {
	AccessToken  string
	TokenType    string // "Bearer"
	RefreshToken string // empty when the authorization server gave none
	// Expiry is when the access token expires; zero when the server did
	// not say.
	Expiry time.Time
	// Scopes are the scopes the client asked for, which a step-up adds to.
	Scopes []string
	// Issuer is the issuer identifier of the authorization server that
	// issued the token: a token is never sent once the server names
	// another authorization server, and is refreshed only at its own.
	Issuer string
	// Resource is the resource indicator (RFC 8707) the token was asked
	// for.
	Resource string
}

// expired reports whether the access token has expired at now, or will
// within leeway.
func (t *Token) expired(now time.Time, leeway time.Duration) bool {
	return !t.Expiry.IsZero() && !now.Add(leeway).Before(t.Expiry)
}

// String describes the token without its secrets.
func (t Token) String() string {
	return fmt.Sprintf("oauth.Token{issuer=%q scopes=%q expiry=%s refreshable=%t access_token=REDACTED}",
		t.Issuer, t.Scopes, t.Expiry.Format(time.RFC3339), t.RefreshToken != "")
}

// GoString is String, for %#v.
func (t Token) GoString() string { return t.String() }

// LogValue describes the token without its secrets.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(slog.String("issuer", t.Issuer), slog.Any("scopes", t.Scopes),
		slog.Time("expiry", t.Expiry), slog.Bool("refreshable", t.RefreshToken != ""))
}

// The token endpoint authentication methods (RFC 7591, section 2; RFC
// 7523) a Registration may use.
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
)

// Registration is a client's registration with one authorization server:
// pre-registered (Config.Clients), obtained by dynamic client
// registration, or a Client ID Metadata Document URL. Its String, GoString
// and LogValue leave the secret and the key out.
type Registration struct {
	// Issuer is the issuer identifier of the authorization server the
	// client is registered with. Credentials are bound to it: they are
	// never sent to another server. An empty Issuer in Config.Clients
	// binds the registration to the first authorization server it is used
	// with.
	Issuer       string
	ClientID     string
	ClientSecret string
	// AuthMethod is the token endpoint authentication method: AuthNone,
	// AuthClientSecretBasic, AuthClientSecretPost or AuthPrivateKeyJWT.
	// Empty means: AuthPrivateKeyJWT with a PrivateKey, else the one the
	// authorization server lists first among those the registration can
	// use (client_secret_basic, client_secret_post) with a secret, else
	// AuthNone.
	AuthMethod string
	// PrivateKey signs the client assertions of AuthPrivateKeyJWT (RFC
	// 7523): an *ecdsa.PrivateKey, *rsa.PrivateKey or ed25519.PrivateKey.
	PrivateKey crypto.Signer
	// KeyID is the kid of the assertions' header, if the server needs one.
	KeyID string
	// SigningAlgorithm is the JWS algorithm of the assertions ("ES256",
	// "RS256", "EdDSA", ...); empty means the usual one for the key.
	SigningAlgorithm string
	// SecretExpiresAt is when the client secret expires; zero means never.
	SecretExpiresAt time.Time
}

// String describes the registration without its secret.
func (r Registration) String() string {
	return fmt.Sprintf("oauth.Registration{issuer=%q client_id=%q auth=%q}", r.Issuer, r.ClientID, r.AuthMethod)
}

// GoString is String, for %#v.
func (r Registration) GoString() string { return r.String() }

// LogValue describes the registration without its secret.
func (r Registration) LogValue() slog.Value {
	return slog.GroupValue(slog.String("issuer", r.Issuer), slog.String("client_id", r.ClientID), slog.String("auth", r.AuthMethod))
}

// TokenStore keeps the tokens a Transport obtains, by MCP server, and the
// client registrations, by authorization server. Implementations must be
// safe for concurrent use; a persistent one should keep refresh tokens and
// client secrets encrypted at rest. The methods return a nil value and a
// nil error when they hold nothing.
type TokenStore interface {
	// Token returns the token for the MCP server at serverURL.
	Token(ctx context.Context, serverURL string) (*Token, error)
	// SetToken stores the token for serverURL; nil deletes it.
	SetToken(ctx context.Context, serverURL string, t *Token) error
	// Registration returns the client's registration with the
	// authorization server whose issuer identifier is issuer.
	Registration(ctx context.Context, issuer string) (*Registration, error)
	// SetRegistration stores the registration with issuer; nil deletes it.
	SetRegistration(ctx context.Context, issuer string, r *Registration) error
}

// MemoryStore is a TokenStore in memory, the default: what it holds ends
// with the process. The zero MemoryStore is ready to use.
type MemoryStore struct {
	mu            sync.Mutex
	tokens        map[string]Token
	registrations map[string]Registration
}

// Token returns a copy of the token for serverURL.
func (s *MemoryStore) Token(_ context.Context, serverURL string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[serverURL]
	if !ok {
		return nil, nil
	}
	t.Scopes = slices.Clone(t.Scopes)
	return &t, nil
}

// SetToken stores a copy of t for serverURL, or deletes it when t is nil.
func (s *MemoryStore) SetToken(_ context.Context, serverURL string, t *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t == nil {
		delete(s.tokens, serverURL)
		return nil
	}
	if s.tokens == nil {
		s.tokens = map[string]Token{}
	}
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	s.tokens[serverURL] = c
	return nil
}

// Registration returns a copy of the registration with issuer.
func (s *MemoryStore) Registration(_ context.Context, issuer string) (*Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.registrations[issuer]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// SetRegistration stores a copy of r for issuer, or deletes it when r is
// nil.
func (s *MemoryStore) SetRegistration(_ context.Context, issuer string, r *Registration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r == nil {
		delete(s.registrations, issuer)
		return nil
	}
	if s.registrations == nil {
		s.registrations = map[string]Registration{}
	}
	s.registrations[issuer] = *r
	return nil
}
