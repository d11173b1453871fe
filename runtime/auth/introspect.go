package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// IntrospectionOptions configure an IntrospectionVerifier.
type IntrospectionOptions struct {
	// Endpoint is the authorization server's token introspection
	// endpoint (RFC 7662). Empty means the introspection_endpoint of the
	// Issuer's authorization server metadata, found when first needed.
	Endpoint string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// (HTTP Basic, client_secret_basic).
	ClientID     string
	ClientSecret string
	// Issuer is the authorization server's issuer identifier. An active
	// response that names an iss must name this one; one that names none
	// is taken to be this issuer's. Required.
	Issuer string
	// Resource is this MCP server's canonical resource URI; an active
	// response's aud must name it. Required: a response without aud is
	// refused, as the MCP authorization spec requires audience checks.
	Resource string
	// CacheSize bounds the active tokens whose answers are kept, for
	// CacheTTL (zero: one minute) and never past their exp; zero means
	// DefaultIntrospectionCache, a negative value no cache. Refused
	// tokens are not kept: a flood of bad tokens cannot push good ones
	// out.
	CacheSize int
	CacheTTL  time.Duration
	// Leeway is how far exp, nbf and iat may be off; zero means
	// DefaultLeeway, a negative value none.
	Leeway time.Duration
	// HTTPClient, HTTPTimeout and MaxDocumentBytes are as in JWTOptions.
	HTTPClient       *http.Client
	HTTPTimeout      time.Duration
	MaxDocumentBytes int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultIntrospectionCache is the number of active tokens an
// IntrospectionVerifier remembers unless told otherwise.
const DefaultIntrospectionCache = 1024

// IntrospectionVerifier verifies opaque access tokens by asking the
// authorization server (RFC 7662).
type IntrospectionVerifier struct {
	opts IntrospectionOptions
	http httpClient
	now  func() time.Time

	mu       sync.Mutex
	endpoint string
	cache    map[[32]byte]cached
}

type cached struct {
	info  *TokenInfo
	until time.Time
}

// NewIntrospectionVerifier returns an IntrospectionVerifier.
func NewIntrospectionVerifier(opts IntrospectionOptions) (*IntrospectionVerifier, error) {
	if opts.Issuer == "" || opts.Resource == "" {
		return nil, errors.New("auth: an introspection verifier needs an issuer and a resource")
	}
	if _, err := metadata.ProtectedResourceURL(opts.Resource); err != nil {
		return nil, err
	}
	if opts.Leeway == 0 {
		opts.Leeway = DefaultLeeway
	} else if opts.Leeway < 0 {
		opts.Leeway = 0
	}
	if opts.CacheSize == 0 {
		opts.CacheSize = DefaultIntrospectionCache
	}
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = time.Minute
	}
	v := &IntrospectionVerifier{opts: opts, endpoint: opts.Endpoint, now: opts.Now,
		http: newHTTPClient(opts.HTTPClient, opts.MaxDocumentBytes, opts.HTTPTimeout)}
	if v.now == nil {
		v.now = time.Now
	}
	if opts.CacheSize > 0 {
		v.cache = make(map[[32]byte]cached)
	}
	return v, nil
}

// Verify asks the introspection endpoint about token, unless an answer
// for it is cached, and checks the answer: active, of the issuer, for the
// resource, not expired, with a sub.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	if len(token) > MaxTokenBytes {
		return nil, invalid("it is longer than %d bytes", MaxTokenBytes)
	}
	key := sha256.Sum256([]byte(token))
	now := v.now()
	if info, ok := v.lookup(key, now); ok {
		return info, nil
	}
	endpoint, err := v.introspectionEndpoint(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if v.opts.ClientID != "" {
		// RFC 6749 section 2.3.1: both are form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	}
	var raw json.RawMessage
	if err := v.http.do(req, &raw); err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	claims, err := decodeClaims(raw)
	if err != nil {
		return nil, errors.New("auth: introspection: the answer is not a JSON object")
	}
	info, err := v.check(claims, now)
	if err != nil {
		return nil, err
	}
	v.store(key, info, now)
	return info, nil
}

// check holds an introspection answer to the options.
func (v *IntrospectionVerifier) check(claims map[string]any, now time.Time) (*TokenInfo, error) {
	if active, _ := claims["active"].(bool); !active {
		return nil, invalid("it is not active")
	}
	if _, ok := claims["iss"].(string); !ok {
		// An answer may leave iss out: the endpoint speaks for its issuer.
		claims["iss"] = v.opts.Issuer
	}
	return checkClaims(claims, v.opts.Issuer, v.opts.Resource, now, v.opts.Leeway, false)
}

// introspectionEndpoint returns the endpoint, discovering it once.
func (v *IntrospectionVerifier) introspectionEndpoint(ctx context.Context) (string, error) {
	v.mu.Lock()
	e := v.endpoint
	v.mu.Unlock()
	if e != "" {
		return e, nil
	}
	m, err := v.http.discover(ctx, v.opts.Issuer)
	if err != nil {
		return "", err
	}
	if m.IntrospectionEndpoint == "" {
		return "", errors.New("auth: the metadata of the issuer " + v.opts.Issuer + " names no introspection_endpoint")
	}
	v.mu.Lock()
	v.endpoint = m.IntrospectionEndpoint
	v.mu.Unlock()
	return m.IntrospectionEndpoint, nil
}

func (v *IntrospectionVerifier) lookup(key [32]byte, now time.Time) (*TokenInfo, bool) {
	if v.cache == nil {
		return nil, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.cache[key]
	if !ok {
		return nil, false
	}
	if !now.Before(c.until) {
		delete(v.cache, key)
		return nil, false
	}
	return c.info, true
}

// store keeps an active token's answer until the earlier of CacheTTL and
// its exp. A full cache drops its expired entries, and then, if none
// were, an arbitrary one.
func (v *IntrospectionVerifier) store(key [32]byte, info *TokenInfo, now time.Time) {
	if v.cache == nil {
		return
	}
	until := now.Add(v.opts.CacheTTL)
	if !info.Expiry.IsZero() && info.Expiry.Before(until) {
		until = info.Expiry
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.cache) >= v.opts.CacheSize {
		for k, c := range v.cache {
			if !now.Before(c.until) {
				delete(v.cache, k)
			}
		}
		for k := range v.cache {
			if len(v.cache) < v.opts.CacheSize {
				break
			}
			delete(v.cache, k)
		}
	}
	v.cache[key] = cached{info: info, until: until}
}

var _ TokenVerifier = (*IntrospectionVerifier)(nil)
