package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// AuthConfig is what callers must present to reach the gateway: an API
// key of Keys, or an OAuth access token OAuth accepts. With both, a
// bearer value that is no API key is taken for an access token. The
// section applies to every MCP and REST endpoint; without it anyone gets
// in, as the anonymous principal.
type AuthConfig struct {
	// Keys are static API keys, for simple setups.
	Keys []*APIKeyConfig `yaml:"keys"`
	// OAuth makes the gateway an OAuth 2.1 resource server.
	OAuth *OAuthConfig `yaml:"oauth"`
	// MaxSessionsPerPrincipal caps the MCP sessions one principal holds
	// at once, per virtual server and transport (an API key shared by
	// many agents may need more); zero means
	// streamable.DefaultMaxSessionsPerIdentity, a negative value no cap.
	MaxSessionsPerPrincipal int `yaml:"maxSessionsPerPrincipal"`
}

// APIKeyConfig is one static API key, presented as
// "Authorization: Bearer KEY" or "X-API-Key: KEY".
type APIKeyConfig struct {
	// Key is where the key's value comes from: an environment variable
	// or a file, never the configuration itself. It must be at least
	// MinAPIKeyLength bytes long.
	Key SecretConfig `yaml:"key"`
	// Subject is the principal the key authenticates, as authorization
	// rules and audit lines see it (principal.sub); its issuer is
	// APIKeyIssuer. Subjects are unique.
	Subject string `yaml:"subject"`
	// Scopes are the scopes the key grants (principal.scopes).
	Scopes []string `yaml:"scopes"`
	// Claims are what rules see as principal.claims.
	Claims map[string]any `yaml:"claims"`
}

// OAuthConfig is the OAuth resource server in front of the gateway. An
// access token must be issued by Issuer for Audience; JWTs are checked
// with the issuer's keys, and opaque tokens, with Introspection, by
// asking the issuer.
type OAuthConfig struct {
	// Issuer is the authorization server's issuer identifier; tokens'
	// iss must equal it.
	Issuer string `yaml:"issuer"`
	// Audience is the gateway's resource URI, e.g.
	// https://gw.example/mcp: tokens' aud must name it, and its
	// Protected Resource Metadata is served at the well-known path
	// derived from it. Every endpoint of the gateway shares it.
	Audience string `yaml:"audience"`
	// JWKSURI is where the issuer publishes its signing keys; empty
	// means the jwks_uri of its authorization server metadata.
	JWKSURI string `yaml:"jwksUri"`
	// Introspection, when set, verifies tokens by introspection (RFC
	// 7662) instead of as JWTs.
	Introspection *IntrospectionConfig `yaml:"introspection"`
	// Scopes are the scopes a client must ask for to use the gateway,
	// named in the 401 challenge.
	Scopes []string `yaml:"scopes"`
}

// IntrospectionConfig is the introspection endpoint and the gateway's
// credentials there.
type IntrospectionConfig struct {
	// Endpoint is the introspection endpoint; empty means the one of
	// the issuer's metadata.
	Endpoint string `yaml:"endpoint"`
	// ClientID and ClientSecret authenticate the gateway there.
	ClientID     string       `yaml:"clientId"`
	ClientSecret SecretConfig `yaml:"clientSecret"`
}

// APIKeyIssuer is the issuer of the principals of API keys
// (principal.iss in authorization rules).
const APIKeyIssuer = "mcpgen-gateway:api-key"

// MinAPIKeyLength is the shortest API key the gateway accepts, in bytes.
const MinAPIKeyLength = 16

// APIKeyHeader is the header an API key may come in besides
// Authorization.
const APIKeyHeader = "X-API-Key"

func (a *AuthConfig) validate(bad badFunc) error {
	if len(a.Keys) == 0 && a.OAuth == nil {
		return bad(0, "auth: give keys, oauth or both (leave auth out to let anyone in)")
	}
	subjects := map[string]int{}
	for i, k := range a.Keys {
		where := fmt.Sprintf("auth.keys[%d]", i)
		if k == nil {
			return bad(0, "%s: empty", where)
		}
		if (k.Key.Env == "") == (k.Key.File == "") {
			return bad(0, "%s: key: give exactly one of env and file", where)
		}
		if k.Subject == "" {
			return bad(0, "%s: subject: missing (who the key authenticates)", where)
		}
		if j, ok := subjects[k.Subject]; ok {
			return bad(0, "%s: subject %q is also auth.keys[%d]", where, k.Subject, j)
		}
		subjects[k.Subject] = i
		for _, s := range k.Scopes {
			if s == "" || strings.ContainsAny(s, " \t\"\\") {
				return bad(0, "%s: scope %q: a scope is one word without quotes", where, s)
			}
		}
		if _, err := normalClaims(k.Claims); err != nil {
			return bad(0, "%s: claims: %v", where, err)
		}
	}
	if o := a.OAuth; o != nil {
		if o.Issuer == "" {
			return bad(0, "auth.oauth.issuer: missing")
		}
		if o.Audience == "" {
			return bad(0, "auth.oauth.audience: missing (the gateway's resource URI, e.g. https://gw.example/mcp)")
		}
		if in := o.Introspection; in != nil {
			if o.JWKSURI != "" {
				return bad(0, "auth.oauth: give jwksUri or introspection, not both")
			}
			if in.ClientID == "" {
				return bad(0, "auth.oauth.introspection.clientId: missing")
			}
			if (in.ClientSecret.Env == "") == (in.ClientSecret.File == "") {
				return bad(0, "auth.oauth.introspection.clientSecret: give exactly one of env and file")
			}
		}
	}
	return nil
}

// normalClaims turns claims decoded from YAML into what a token's claims
// decode to from JSON (float64 numbers, []any, map[string]any), so that
// rules read both alike.
func normalClaims(claims map[string]any) (map[string]any, error) {
	if len(claims) == 0 {
		return map[string]any{}, nil
	}
	data, err := json.Marshal(claims)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// keyPrincipal is the principal of an API key: the identity sessions are
// bound to (one pointer per key, compared with ==) and the caller rules
// see. It says its subject, never its key.
type keyPrincipal struct {
	caller authz.Principal
}

func (p *keyPrincipal) String() string {
	return callerKey(p.caller)
}

// HasScope makes the key's scopes count for tools registered with
// required scopes.
func (p *keyPrincipal) HasScope(scope string) bool {
	for _, s := range p.caller.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

var _ server.ScopeHolder = (*keyPrincipal)(nil)

// keyring holds the API keys, each only as its SHA-256 digest.
type keyring struct {
	digests [][sha256.Size]byte
	owners  []*keyPrincipal
}

// newKeyring reads the values of keys. The principal of a key that prev
// holds with the same value and the same subject, scopes and claims is
// prev's, so that the sessions it opened and the quotas it counts against
// stay its own across a reload.
func newKeyring(keys []*APIKeyConfig, prev *keyring) (*keyring, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	k := &keyring{}
	seen := map[[sha256.Size]byte]string{}
	for i, kc := range keys {
		v, err := kc.Key.value()
		if err != nil {
			return nil, fmt.Errorf("auth.keys[%d] (%s): %w", i, kc.Subject, err)
		}
		v = strings.TrimSpace(v)
		if len(v) < MinAPIKeyLength {
			return nil, fmt.Errorf("auth.keys[%d] (%s): the key is shorter than %d bytes", i, kc.Subject, MinAPIKeyLength)
		}
		d := sha256.Sum256([]byte(v))
		if other, ok := seen[d]; ok {
			return nil, fmt.Errorf("auth.keys[%d] (%s): the key is also the key of %s", i, kc.Subject, other)
		}
		seen[d] = kc.Subject
		claims, err := normalClaims(kc.Claims)
		if err != nil {
			return nil, fmt.Errorf("auth.keys[%d] (%s): claims: %w", i, kc.Subject, err)
		}
		claims["sub"], claims["iss"] = kc.Subject, APIKeyIssuer
		scopes := append([]string{}, kc.Scopes...)
		owner := &keyPrincipal{caller: authz.Principal{Subject: kc.Subject, Issuer: APIKeyIssuer, Claims: claims, Scopes: scopes}}
		if same := prev.owner(d); same != nil && reflect.DeepEqual(same.caller, owner.caller) {
			owner = same
		}
		k.digests = append(k.digests, d)
		k.owners = append(k.owners, owner)
	}
	return k, nil
}

// owner returns the principal of the key whose digest is d, or nil.
func (k *keyring) owner(d [sha256.Size]byte) *keyPrincipal {
	if k == nil {
		return nil
	}
	for i := range k.digests {
		if k.digests[i] == d {
			return k.owners[i]
		}
	}
	return nil
}

// reloadKeys puts the API keys of cfg in force, their values read anew
// from the environment and files, so that a key added, rotated or revoked
// takes effect without a restart: a request with a key no longer listed
// is refused at once. It returns the principals of the keys that are
// gone, whose sessions the caller ends, and changes nothing when the keys
// cannot be read. Whether callers must authenticate at all is fixed at
// start: a reload that adds or removes the auth section leaves the keys
// as they are, and logRestartOnly says so.
func (f *front) reloadKeys(cfg *Config) (revoked map[*keyPrincipal]bool, err error) {
	if !f.guards || cfg.Auth == nil {
		return nil, nil
	}
	keys, err := newKeyring(cfg.Auth.Keys, f.keys.Load())
	if err != nil {
		return nil, err
	}
	if keys == nil && f.mw == nil {
		return nil, errors.New("auth: a reload cannot take away every API key of a gateway without OAuth; remove the auth section and restart to let anyone in")
	}
	old := f.keys.Swap(keys)
	if sameKeys(old, keys) {
		return nil, nil
	}
	f.log.Info("config: API keys reloaded", "keys", len(cfg.Auth.Keys))
	if old != nil {
		revoked = map[*keyPrincipal]bool{}
		for _, p := range old.owners {
			if keys == nil || !slices.Contains(keys.owners, p) {
				revoked[p] = true
			}
		}
	}
	return revoked, nil
}

// endSessionsOf ends the downstream sessions opened with the keys of
// revoked, on every virtual server: a revoked key keeps no stream open.
func (g *Gateway) endSessionsOf(revoked map[*keyPrincipal]bool) {
	if len(revoked) == 0 {
		return
	}
	g.mu.Lock()
	eps := slices.Collect(maps.Values(g.handlers))
	g.mu.Unlock()
	n := 0
	for _, e := range eps {
		n += e.endSessions(func(owner any) bool {
			p, ok := owner.(*keyPrincipal)
			return ok && revoked[p]
		})
	}
	if n > 0 {
		g.log.Info("config: the sessions of revoked API keys ended", "sessions", n)
	}
}

// sameKeys reports whether a and b hold the same keys for the same
// principals.
func sameKeys(a, b *keyring) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.digests, b.digests) && slices.Equal(a.owners, b.owners)
}

// lookup returns the principal of key, or nil. It compares digests in
// constant time and looks at every key, so that its time says nothing of
// which key, or how much of one, matched.
func (k *keyring) lookup(key string) *keyPrincipal {
	d := sha256.Sum256([]byte(key))
	var found *keyPrincipal
	for i := range k.digests {
		if subtle.ConstantTimeCompare(d[:], k.digests[i][:]) == 1 {
			found = k.owners[i]
		}
	}
	return found
}

func newOAuth(o *OAuthConfig, log *slog.Logger) (*auth.Middleware, error) {
	var v auth.TokenVerifier
	if in := o.Introspection; in != nil {
		secret, err := in.ClientSecret.value()
		if err != nil {
			return nil, fmt.Errorf("auth.oauth.introspection.clientSecret: %w", err)
		}
		if v, err = auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
			Endpoint: in.Endpoint, ClientID: in.ClientID, ClientSecret: secret,
			Issuer: o.Issuer, Resource: o.Audience,
		}); err != nil {
			return nil, fmt.Errorf("auth.oauth: %w", err)
		}
	} else {
		jv, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: o.Issuer, Resource: o.Audience, JWKSURI: o.JWKSURI, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("auth.oauth: %w", err)
		}
		v = jv
	}
	m, err := auth.New(auth.Options{
		Verifier:             v,
		Resource:             o.Audience,
		AuthorizationServers: []string{o.Issuer},
		Scopes:               o.Scopes,
		ResourceName:         "mcpgen-gateway",
		Logger:               log,
	})
	if err != nil {
		return nil, fmt.Errorf("auth.oauth: %w", err)
	}
	return m, nil
}

// guard puts authentication in front of next: a request with an API key
// of the keyring reaches it as the key's principal, one with a bearer
// token the OAuth middleware accepts as the token's, and any other is
// refused with 401 and a challenge. Neither keys nor tokens are logged or
// echoed.
func (f *front) guard(next http.Handler) http.Handler {
	if !f.guarded() {
		return next
	}
	var oauth http.Handler
	if f.mw != nil {
		oauth = f.mw.Wrap(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, fromHeader := presentedKey(r)
		if keys := f.keys.Load(); keys != nil && key != "" {
			if p := keys.lookup(key); p != nil {
				next.ServeHTTP(w, r.WithContext(server.WithPrincipal(r.Context(), p)))
				return
			}
			if fromHeader || oauth == nil {
				f.refuse(w, "invalid_token", "the API key is not valid")
				return
			}
		}
		if oauth != nil {
			oauth.ServeHTTP(w, r)
			return
		}
		f.refuse(w, "", "this gateway needs an API key, as \"Authorization: Bearer KEY\" or \""+APIKeyHeader+": KEY\"")
	})
}

// presentedKey returns the credential of the request that may be an API
// key: the X-API-Key header (fromHeader), else a bearer token.
func presentedKey(r *http.Request) (key string, fromHeader bool) {
	if v := strings.TrimSpace(r.Header.Get(APIKeyHeader)); v != "" {
		return v, true
	}
	scheme, rest, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(rest), false
	}
	return "", false
}

// refuse answers 401 for the API keys alone: errCode is "" when no
// credential came, "invalid_token" for a wrong one. The body is the
// JSON-RPC error without an id that the OAuth middleware and the MCP
// transports answer with, so that a client reads one shape whichever
// credential failed; the REST facade rewrites it to its own (restErrors).
func (f *front) refuse(w http.ResponseWriter, errCode, msg string) {
	c := `Bearer realm="mcpgen-gateway"`
	if errCode != "" {
		c += `, error="` + errCode + `"`
	}
	w.Header().Set("WWW-Authenticate", c)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "unauthorized: "+msg)))
}

// writeJSONError answers with status and {"error": msg}.
func writeJSONError(w http.ResponseWriter, status int, msg string) {
	data, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
