package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of the JWKS cache.
const (
	// DefaultJWKSRefreshInterval is the least time between two fetches of
	// a JWKS: a token naming a key the cache does not hold makes the
	// cache fetch the set again, at most this often, so that a flood of
	// tokens with made-up key ids costs the authorization server one
	// request per interval.
	DefaultJWKSRefreshInterval = 30 * time.Second
	// DefaultJWKSMaxAge is how long a fetched JWKS is used before it is
	// fetched again when a token is verified, so that keys the
	// authorization server withdrew stop being trusted.
	DefaultJWKSMaxAge = time.Hour
	// DefaultMaxKeys bounds the keys kept of one JWKS.
	DefaultMaxKeys = 32
	// minRSABits is the smallest RSA key trusted.
	minRSABits = 2048
)

// keySet caches the signing keys of one issuer, fetched from its JWKS.
// One fetch runs at a time; callers that need keys meanwhile wait for it.
type keySet struct {
	http     httpClient
	issuer   string // for discovery when uri is ""
	uri      string // the JWKS URL, found by discovery when not given
	interval time.Duration
	maxAge   time.Duration
	maxKeys  int
	now      func() time.Time
	log      *slog.Logger

	mu       sync.Mutex
	keys     []jose.JSONWebKey
	fetched  time.Time     // when keys were fetched; zero before the first success
	tried    time.Time     // when the last fetch began; zero before the first
	inflight chan struct{} // closed when the fetch in progress ends; nil when none is
	lastErr  error         // of the last fetch, nil after a success
}

// errUnknownKey says that no key of the set verifies a token.
var errUnknownKey = errors.New("no key of the issuer's JWKS matches the token")

// candidates returns the keys that may have signed a token with key id kid
// (any key of the algorithm when kid is ""). It fetches the set when it
// holds none, when it holds no key with that id and the last fetch began
// at least interval ago, or when it is older than maxAge.
func (k *keySet) candidates(ctx context.Context, kid string, alg jose.SignatureAlgorithm) ([]jose.JSONWebKey, error) {
	fetched := false
	for {
		k.mu.Lock()
		found := match(k.keys, kid, alg)
		now := k.now()
		stale := k.fetched.IsZero() || now.Sub(k.fetched) >= k.maxAge
		due := k.tried.IsZero() || now.Sub(k.tried) >= k.interval
		if fetched || (len(found) > 0 && !stale) || (!due && k.inflight == nil) {
			err := k.lastErr
			k.mu.Unlock()
			if len(found) > 0 {
				return found, nil
			}
			if k.fetched.IsZero() && err != nil {
				return nil, fmt.Errorf("auth: the issuer's keys are unavailable: %w", err)
			}
			return nil, errUnknownKey
		}
		if ch := k.inflight; ch != nil {
			k.mu.Unlock()
			select {
			case <-ch:
				fetched = true
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		k.inflight, k.tried = ch, now
		k.mu.Unlock()

		keys, err := k.fetch(context.WithoutCancel(ctx))
		k.mu.Lock()
		if err == nil {
			k.keys, k.fetched = keys, k.now()
		} else {
			k.log.Warn("auth: fetching the JWKS failed", "issuer", k.issuer, "err", err)
		}
		k.lastErr = err
		k.inflight = nil
		close(ch)
		k.mu.Unlock()
		fetched = true
	}
}

// fetch reads the JWKS, finding its URL first when it was not given, and
// keeps the usable keys.
func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	uri := k.uri
	k.mu.Unlock()
	if uri == "" {
		m, err := k.http.discover(ctx, k.issuer)
		if err != nil {
			return nil, err
		}
		if m.JWKSURI == "" {
			return nil, fmt.Errorf("auth: the metadata of the issuer %s names no jwks_uri", k.issuer)
		}
		uri = m.JWKSURI
		k.mu.Lock()
		k.uri = uri
		k.mu.Unlock()
	}
	// Each key is decoded on its own: a set may hold keys of types this
	// package does not know, which must not cost the others.
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := k.http.get(ctx, uri, &set); err != nil {
		return nil, fmt.Errorf("auth: JWKS: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if key.UnmarshalJSON(raw) != nil || !usable(key) {
			continue
		}
		if len(keys) == k.maxKeys {
			k.log.Warn("auth: the JWKS holds more keys than kept", "issuer", k.issuer, "kept", k.maxKeys)
			break
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("auth: the JWKS at %s holds no public signing key", uri)
	}
	return keys, nil
}

// usable reports whether a key of a JWKS may verify tokens: a valid
// public key of an asymmetric algorithm meant for signatures, and an RSA
// key no smaller than 2048 bits.
func usable(key jose.JSONWebKey) bool {
	if !key.Valid() || !key.IsPublic() || (key.Use != "" && key.Use != "sig") {
		return false
	}
	switch pk := key.Key.(type) {
	case *rsa.PublicKey:
		return pk.N.BitLen() >= minRSABits
	case *ecdsa.PublicKey, ed25519.PublicKey:
		return true
	}
	return false
}

// match returns the keys with the id (any id when kid is "") that fit the
// algorithm.
func match(keys []jose.JSONWebKey, kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, key := range keys {
		if (kid == "" || key.KeyID == kid) && fits(key, alg) {
			out = append(out, key)
		}
	}
	return out
}

// fits reports whether key can verify a signature of alg: the key's alg,
// when it names one, is alg, and its type is alg's.
func fits(key jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	if key.Algorithm != "" && key.Algorithm != string(alg) {
		return false
	}
	switch key.Key.(type) {
	case *rsa.PublicKey:
		return alg == jose.RS256 || alg == jose.RS384 || alg == jose.RS512 ||
			alg == jose.PS256 || alg == jose.PS384 || alg == jose.PS512
	case *ecdsa.PublicKey:
		return alg == jose.ES256 || alg == jose.ES384 || alg == jose.ES512
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	}
	return false
}
