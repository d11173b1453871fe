package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// JWTOptions configure a JWTVerifier.
type JWTOptions struct {
	// Issuer is the issuer identifier of the authorization server; a
	// token's iss must equal it exactly. Required.
	Issuer string
	// Resource is this MCP server's canonical resource URI; a token's aud
	// must name it (RFC 8707). Required.
	Resource string
	// JWKSURI is where the issuer publishes its signing keys. Empty means
	// the jwks_uri of the issuer's authorization server metadata, found
	// at the well-known URLs when the keys are first needed.
	JWKSURI string
	// Algorithms are the signature algorithms accepted; nil means RS256,
	// ES256, PS256 and EdDSA. Only asymmetric algorithms are: none and
	// the HMAC ones (HS256, ...) are refused whatever this says, since
	// with them whoever can check a token can make one.
	Algorithms []jose.SignatureAlgorithm
	// Leeway is how far exp, nbf and iat may be off; zero means
	// DefaultLeeway, a negative value none.
	Leeway time.Duration
	// RefreshInterval, MaxAge and MaxKeys bound the key cache; zero
	// means DefaultJWKSRefreshInterval, DefaultJWKSMaxAge and
	// DefaultMaxKeys.
	RefreshInterval time.Duration
	MaxAge          time.Duration
	MaxKeys         int
	// HTTPClient fetches the metadata and the JWKS; nil means
	// http.DefaultClient. Each request is bounded by HTTPTimeout (zero:
	// DefaultHTTPTimeout) and each answer by MaxDocumentBytes (zero:
	// DefaultMaxDocumentBytes).
	HTTPClient       *http.Client
	HTTPTimeout      time.Duration
	MaxDocumentBytes int64
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
	// Logger hears of failed fetches; nil discards. Tokens are never
	// logged.
	Logger *slog.Logger
}

// DefaultAlgorithms are the signature algorithms a JWTVerifier accepts
// unless told otherwise.
var DefaultAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.PS256, jose.EdDSA}

// asymmetric are the algorithms a JWTVerifier may accept at all.
var asymmetric = map[jose.SignatureAlgorithm]bool{
	jose.RS256: true, jose.RS384: true, jose.RS512: true,
	jose.PS256: true, jose.PS384: true, jose.PS512: true,
	jose.ES256: true, jose.ES384: true, jose.ES512: true,
	jose.EdDSA: true,
}

// MaxTokenBytes bounds the access tokens the verifiers look at.
const MaxTokenBytes = 16 << 10

// JWTVerifier verifies access tokens that are JWTs (RFC 9068) signed by
// one authorization server, with the keys of its JWKS.
type JWTVerifier struct {
	issuer   string
	resource string
	algs     []jose.SignatureAlgorithm
	leeway   time.Duration
	now      func() time.Time
	keys     *keySet
}

// NewJWTVerifier returns a JWTVerifier. It fetches nothing until the
// first token arrives.
func NewJWTVerifier(opts JWTOptions) (*JWTVerifier, error) {
	if opts.Issuer == "" || opts.Resource == "" {
		return nil, errors.New("auth: a JWT verifier needs an issuer and a resource")
	}
	if _, err := metadata.ProtectedResourceURL(opts.Resource); err != nil {
		return nil, err
	}
	algs := opts.Algorithms
	if algs == nil {
		algs = DefaultAlgorithms
	}
	for _, a := range algs {
		if !asymmetric[a] {
			return nil, errors.New("auth: the JWT algorithm " + string(a) + " is not an asymmetric signature algorithm")
		}
	}
	v := &JWTVerifier{
		issuer:   opts.Issuer,
		resource: opts.Resource,
		algs:     algs,
		leeway:   opts.Leeway,
		now:      opts.Now,
	}
	if v.leeway == 0 {
		v.leeway = DefaultLeeway
	} else if v.leeway < 0 {
		v.leeway = 0
	}
	if v.now == nil {
		v.now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v.keys = &keySet{
		http:     newHTTPClient(opts.HTTPClient, opts.MaxDocumentBytes, opts.HTTPTimeout),
		issuer:   opts.Issuer,
		uri:      opts.JWKSURI,
		interval: opts.RefreshInterval,
		maxAge:   opts.MaxAge,
		maxKeys:  opts.MaxKeys,
		now:      v.now,
		log:      log,
	}
	if v.keys.interval <= 0 {
		v.keys.interval = DefaultJWKSRefreshInterval
	}
	if v.keys.maxAge <= 0 {
		v.keys.maxAge = DefaultJWKSMaxAge
	}
	if v.keys.maxKeys <= 0 {
		v.keys.maxKeys = DefaultMaxKeys
	}
	return v, nil
}

// Verify checks a JWT access token: one signature, of an accepted
// algorithm, by a key of the issuer's JWKS (fetched again, at most every
// RefreshInterval, when the token names a key id the cache lacks); iss
// equal to the issuer; aud naming the resource; exp present and not
// past, nbf and iat not in the future, within the leeway; a sub.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	if len(token) > MaxTokenBytes {
		return nil, invalid("it is longer than %d bytes", MaxTokenBytes)
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, invalid("not a JWT signed with an accepted algorithm")
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("it has %d signatures; want one", len(tok.Headers))
	}
	h := tok.Headers[0]
	keys, err := v.keys.candidates(ctx, h.KeyID, jose.SignatureAlgorithm(h.Algorithm))
	if errors.Is(err, errUnknownKey) {
		return nil, invalid("no key of the issuer matches its kid %q", h.KeyID)
	}
	if err != nil {
		return nil, err
	}
	var payload []byte
	for _, key := range keys {
		var raw json.RawMessage
		if err := tok.Claims(key.Key, &raw); err == nil {
			payload = raw
			break
		}
	}
	if payload == nil {
		return nil, invalid("the signature does not verify")
	}
	claims, err := decodeClaims(payload)
	if err != nil {
		return nil, err
	}
	return v.check(claims)
}

// check holds verified claims to the issuer, the resource and the clock.
func (v *JWTVerifier) check(claims map[string]any) (*TokenInfo, error) {
	return checkClaims(claims, v.issuer, v.resource, v.now(), v.leeway, true)
}

// checkClaims holds a token's claims, from its JWT or its introspection,
// to what this resource server accepts: issued by issuer, for resource
// (RFC 8707), within its times, and naming a subject to bind it to.
func checkClaims(claims map[string]any, issuer, resource string, now time.Time, leeway time.Duration, needExp bool) (*TokenInfo, error) {
	if iss, _ := claims["iss"].(string); iss != issuer {
		return nil, invalid("it was issued by %q, not %q", iss, issuer)
	}
	if !audienceHas(audienceOf(claims), resource) {
		return nil, invalid("it was not issued for this resource (aud)")
	}
	exp, err := checkTimes(claims, now, leeway, needExp)
	if err != nil {
		return nil, err
	}
	info := infoFrom(claims, exp)
	if info.Subject == "" {
		return nil, invalid("it has no sub")
	}
	return info, nil
}

// decodeClaims decodes a JWT's payload or an introspection answer.
func decodeClaims(payload []byte) (map[string]any, error) {
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil || claims == nil {
		return nil, invalid("its claims are not a JSON object")
	}
	return claims, nil
}

var _ TokenVerifier = (*JWTVerifier)(nil)
