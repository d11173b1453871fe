package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestJWTVerify(t *testing.T) {
	as := newAS(t)
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsKey := signingKey{kid: "rs", alg: jose.RS256, key: rsaKey()}
	psKey := signingKey{kid: "ps", alg: jose.PS256, key: rsaKey()}
	edKey := signingKey{kid: "ed", alg: jose.EdDSA, key: edPriv}
	stranger := ecKey(t, "k1") // the AS's kid, another key
	as.extra = []jose.JSONWebKey{rsKey.public(), psKey.public(), edKey.public()}
	v := as.jwtVerifier(t, nil, JWTOptions{})
	now := time.Now()
	good := func(edit func(map[string]any)) map[string]any {
		c := as.claims(now, "alice", "files:read files:write")
		if edit != nil {
			edit(c)
		}
		return c
	}
	cases := []struct {
		name  string
		token string
		want  string // "" for valid, else a piece of the error
	}{
		{"ES256", mint(t, as.key(), good(nil)), ""},
		{"RS256", mint(t, rsKey, good(nil)), ""},
		{"PS256", mint(t, psKey, good(nil)), ""},
		{"EdDSA", mint(t, edKey, good(nil)), ""},
		{"no kid, one key fits", mint(t, signingKey{alg: jose.EdDSA, key: edPriv}, good(nil)), ""},
		{"audience among several", mint(t, as.key(), good(func(c map[string]any) { c["aud"] = []string{"https://other.example", resource} })), ""},
		{"audience with a trailing slash", mint(t, as.key(), good(func(c map[string]any) { c["aud"] = resource + "/" })), ""},
		{"expired within the leeway", mint(t, as.key(), good(func(c map[string]any) { c["exp"] = now.Add(-10 * time.Second).Unix() })), ""},
		{"scp array", mint(t, as.key(), good(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"a", "b"} })), ""},

		{"bad signature", mint(t, stranger, good(nil)), "signature does not verify"},
		{"wrong issuer", mint(t, as.key(), good(func(c map[string]any) { c["iss"] = as.issuer() + "/" })), "issued by"},
		{"wrong audience", mint(t, as.key(), good(func(c map[string]any) { c["aud"] = "https://mcp.example/other" })), "aud"},
		{"no audience", mint(t, as.key(), good(func(c map[string]any) { delete(c, "aud") })), "aud"},
		{"expired", mint(t, as.key(), good(func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() })), "expired"},
		{"no exp", mint(t, as.key(), good(func(c map[string]any) { delete(c, "exp") })), "no exp"},
		{"exp not a number", mint(t, as.key(), good(func(c map[string]any) { c["exp"] = "tomorrow" })), "not a number"},
		{"not yet valid", mint(t, as.key(), good(func(c map[string]any) { c["nbf"] = now.Add(time.Minute).Unix() })), "nbf"},
		{"issued in the future", mint(t, as.key(), good(func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() })), "iat"},
		{"no subject", mint(t, as.key(), good(func(c map[string]any) { delete(c, "sub") })), "no sub"},
		{"unknown kid", mint(t, ecKey(t, "nobody"), good(nil)), "kid"},
		{"malformed", "not.a.jwt", "not a JWT"},
		{"garbage", "abc", "not a JWT"},
		{"alg none", unsigned(good(nil)), "not a JWT"},
		{"HS256", hmacSigned(t, good(nil)), "not a JWT"},
		{"too long", strings.Repeat("a", MaxTokenBytes+1), "longer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := v.Verify(context.Background(), c.token)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if info.Subject != "alice" || info.Issuer != as.issuer() || !audienceHas(info.Audience, resource) || info.ClientID != "the-client" {
					t.Fatalf("info %+v", info)
				}
				if len(info.Scopes) != 2 || info.Expiry.IsZero() || info.Claims["jti"] == nil {
					t.Fatalf("scopes %q, expiry %v, claims %v", info.Scopes, info.Expiry, info.Claims)
				}
				return
			}
			if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want an invalid token error saying %q", err, c.want)
			}
		})
	}
}

// unsigned returns a JWT with alg none.
func unsigned(claims map[string]any) string {
	enc := base64.RawURLEncoding
	payload := fmt.Sprintf(`{"iss":%q,"sub":%q,"aud":%q,"exp":%d}`, claims["iss"], claims["sub"], claims["aud"], claims["exp"])
	return enc.EncodeToString([]byte(`{"alg":"none","kid":"k1"}`)) + "." + enc.EncodeToString([]byte(payload)) + "."
}

// hmacSigned returns a JWT signed with HS256.
func hmacSigned(t *testing.T, _ map[string]any) string {
	return hmacWith(t, make([]byte, 32))
}

func TestJWTOptions(t *testing.T) {
	for _, o := range []JWTOptions{
		{Resource: resource},
		{Issuer: "https://as.example"},
		{Issuer: "https://as.example", Resource: "not a url"},
		{Issuer: "https://as.example", Resource: resource, Algorithms: []jose.SignatureAlgorithm{jose.HS256}},
		{Issuer: "https://as.example", Resource: resource, Algorithms: []jose.SignatureAlgorithm{"none"}},
	} {
		if _, err := NewJWTVerifier(o); err == nil {
			t.Errorf("NewJWTVerifier(%+v): no error", o)
		}
	}
}

func TestJWKSRotation(t *testing.T) {
	as := newAS(t)
	clock := newClock()
	v := as.jwtVerifier(t, clock, JWTOptions{RefreshInterval: time.Minute})
	ctx := context.Background()
	if _, err := v.Verify(ctx, mint(t, as.key(), as.claims(clock.Now(), "alice", ""))); err != nil {
		t.Fatal(err)
	}
	if n := as.jwksHits.Load(); n != 1 {
		t.Fatalf("%d JWKS fetches; want 1", n)
	}
	old := as.key()
	next := as.rotate("k2")
	fresh := mint(t, next, as.claims(clock.Now(), "alice", ""))

	// The key is unknown and the last fetch is recent: no fetch, refused.
	if _, err := v.Verify(ctx, fresh); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a token of an unknown key before the refresh interval: %v", err)
	}
	// A flood of made-up key ids costs nothing either.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			tok := mint(t, ecKey(t, fmt.Sprint("made-up-", i)), as.claims(clock.Now(), "mallory", ""))
			if _, err := v.Verify(ctx, tok); !errors.Is(err, ErrInvalidToken) {
				t.Errorf("made-up kid: %v", err)
			}
		})
	}
	wg.Wait()
	if n := as.jwksHits.Load(); n != 1 {
		t.Fatalf("%d JWKS fetches after unknown kids within the interval; want 1", n)
	}

	clock.Add(time.Minute)
	// Once the interval passed, an unknown kid is fetched for, once,
	// however many ask at the same moment.
	for range 20 {
		wg.Go(func() {
			if _, err := v.Verify(ctx, fresh); err != nil {
				t.Errorf("the rotated key after the interval: %v", err)
			}
		})
	}
	wg.Wait()
	if n := as.jwksHits.Load(); n != 2 {
		t.Fatalf("%d JWKS fetches; want 2", n)
	}
	// The withdrawn key is no longer trusted.
	if _, err := v.Verify(ctx, mint(t, old, as.claims(clock.Now(), "alice", ""))); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a token of the withdrawn key: %v", err)
	}
	// A set older than MaxAge is fetched again on use.
	clock.Add(DefaultJWKSMaxAge)
	if _, err := v.Verify(ctx, mint(t, next, as.claims(clock.Now(), "alice", ""))); err != nil {
		t.Fatal(err)
	}
	if n := as.jwksHits.Load(); n != 3 {
		t.Fatalf("%d JWKS fetches after MaxAge; want 3", n)
	}
}

func TestJWKSDiscovery(t *testing.T) {
	as := newAS(t)
	v, err := NewJWTVerifier(JWTOptions{Issuer: as.issuer(), Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := v.Verify(context.Background(), as.token("alice", "")); err != nil {
			t.Fatal(err)
		}
	}
	if as.metadataHits.Load() != 1 || as.jwksHits.Load() != 1 {
		t.Fatalf("metadata fetched %d times, JWKS %d; want once each", as.metadataHits.Load(), as.jwksHits.Load())
	}
}

func TestJWKSBounds(t *testing.T) {
	t.Run("too large", func(t *testing.T) {
		as := newAS(t)
		as.jwks = []byte(`{"keys":[],"pad":"` + strings.Repeat("x", 2048) + `"}`)
		v := as.jwtVerifier(t, nil, JWTOptions{MaxDocumentBytes: 1024})
		_, err := v.Verify(context.Background(), as.token("alice", ""))
		if err == nil || errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("a JWKS over the bound: %v; want an error that is not the token's", err)
		}
	})
	t.Run("too many keys", func(t *testing.T) {
		as := newAS(t)
		for i := range 5 {
			as.extra = append(as.extra, ecKey(t, fmt.Sprint("x", i)).public())
		}
		as.keys = append(as.keys, ecKey(t, "last"))
		v := as.jwtVerifier(t, nil, JWTOptions{MaxKeys: 3})
		if _, err := v.Verify(context.Background(), as.token("alice", "")); err != nil {
			t.Fatalf("a key within the bound: %v", err)
		}
		v.keys.mu.Lock()
		n := len(v.keys.keys)
		v.keys.mu.Unlock()
		if n != 3 {
			t.Fatalf("%d keys kept; want 3", n)
		}
	})
	t.Run("symmetric and private keys ignored", func(t *testing.T) {
		as := newAS(t)
		secret := make([]byte, 32)
		as.keys = nil
		as.extra = []jose.JSONWebKey{{Key: secret, KeyID: "k1", Algorithm: "HS256"}}
		v := as.jwtVerifier(t, nil, JWTOptions{})
		_, err := v.Verify(context.Background(), hmacWith(t, secret))
		if !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("an HS256 token with the JWKS's oct key: %v", err)
		}
		if got := usable(jose.JSONWebKey{Key: rsaKey(), KeyID: "p"}); got {
			t.Fatal("a private key is usable")
		}
		if got := usable(jose.JSONWebKey{Key: rsaKey().Public(), Use: "enc"}); got {
			t.Fatal("an encryption key is usable")
		}
	})
	t.Run("unknown key types skipped", func(t *testing.T) {
		as := newAS(t)
		pub, err := json.Marshal(as.key().public())
		if err != nil {
			t.Fatal(err)
		}
		as.jwks = []byte(`{"keys":[{"kty":"XYZ","kid":"odd"},{"kty":"EC","crv":"P-256","kid":"bad"},` + string(pub) + `]}`)
		v := as.jwtVerifier(t, nil, JWTOptions{})
		if _, err := v.Verify(context.Background(), as.token("alice", "")); err != nil {
			t.Fatalf("a good key beside keys that do not decode: %v", err)
		}
	})
	t.Run("issuer unreachable", func(t *testing.T) {
		v, err := NewJWTVerifier(JWTOptions{Issuer: "http://127.0.0.1:1", Resource: resource, JWKSURI: "http://127.0.0.1:1/jwks"})
		if err != nil {
			t.Fatal(err)
		}
		as := newAS(t)
		_, err = v.Verify(context.Background(), as.token("alice", ""))
		if err == nil || errors.Is(err, ErrInvalidToken) {
			t.Fatalf("an unreachable JWKS: %v; want an error that is not the token's", err)
		}
	})
}

// hmacWith returns a token signed with HS256 and secret, which a verifier
// must refuse whatever its keys.
func hmacWith(t *testing.T, secret []byte) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := sig.Sign([]byte(`{"iss":"x","sub":"alice","aud":"` + resource + `","exp":9999999999}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScopesOf(t *testing.T) {
	cases := []struct {
		claims map[string]any
		want   []string
	}{
		{map[string]any{"scope": "a  b"}, []string{"a", "b"}},
		{map[string]any{"scp": []any{"a", 1, "b"}}, []string{"a", "b"}},
		{map[string]any{"scp": "a b"}, []string{"a", "b"}},
		{map[string]any{"scope": "x", "scp": []any{"y"}}, []string{"x"}},
		{map[string]any{}, nil},
	}
	for _, c := range cases {
		if got := scopesOf(c.claims); !slices.Equal(got, c.want) {
			t.Errorf("scopesOf(%v) = %q; want %q", c.claims, got, c.want)
		}
	}
}
