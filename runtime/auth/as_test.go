package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/metadata"
)

// The tests' authorization server: it serves its metadata, its JWKS and
// an introspection endpoint, mints JWT access tokens, and rotates its
// keys. It counts what it is asked.

const (
	resource     = "https://mcp.example/mcp"
	clientID     = "mcp-server"
	clientSecret = "s3cret"
)

// signingKey is a private key with its id and algorithm.
type signingKey struct {
	kid string
	alg jose.SignatureAlgorithm
	key crypto.Signer
}

func (k signingKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.key.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

type testAS struct {
	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	keys   []signingKey
	extra  []jose.JSONWebKey          // served besides the keys, as given
	jwks   []byte                     // when set, served instead
	opaque map[string]json.RawMessage // introspection answers by token

	jwksHits, metadataHits, introspectHits atomic.Int32
}

// rsaKey is made once: generating 2048-bit keys under -race is slow.
var rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func ecKey(t testing.TB, kid string) signingKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid: kid, alg: jose.ES256, key: k}
}

func newAS(t testing.TB) *testAS {
	as := &testAS{t: t, opaque: map[string]json.RawMessage{}}
	as.keys = []signingKey{ecKey(t, "k1")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		as.metadataHits.Add(1)
		m := metadata.AuthorizationServer{
			Issuer:                as.issuer(),
			JWKSURI:               as.issuer() + "/jwks",
			IntrospectionEndpoint: as.issuer() + "/introspect",
			TokenEndpoint:         as.issuer() + "/token",
		}
		b, _ := m.MarshalJSON()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		as.jwksHits.Add(1)
		as.mu.Lock()
		body := as.jwks
		if body == nil {
			var set jose.JSONWebKeySet
			for _, k := range as.keys {
				set.Keys = append(set.Keys, k.public())
			}
			set.Keys = append(set.Keys, as.extra...)
			var err error
			if body, err = json.Marshal(set); err != nil {
				as.t.Error(err)
			}
		}
		as.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		as.introspectHits.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok || id != clientID || secret != clientSecret {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		as.mu.Lock()
		answer, ok := as.opaque[r.PostForm.Get("token")]
		as.mu.Unlock()
		if !ok {
			answer = json.RawMessage(`{"active":false}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) issuer() string { return as.srv.URL }

// rotate replaces the keys with a new one, returning it.
func (as *testAS) rotate(kid string) signingKey {
	k := ecKey(as.t, kid)
	as.mu.Lock()
	as.keys = []signingKey{k}
	as.mu.Unlock()
	return k
}

func (as *testAS) key() signingKey {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.keys[0]
}

// claims are the claims of a good token for subject with scopes, issued
// now and expiring in an hour.
func (as *testAS) claims(now time.Time, subject, scope string) map[string]any {
	return map[string]any{
		"iss":       as.issuer(),
		"sub":       subject,
		"aud":       resource,
		"iat":       now.Unix(),
		"exp":       now.Add(time.Hour).Unix(),
		"scope":     scope,
		"client_id": "the-client",
		"jti":       rand.Text(),
	}
}

// mint signs claims with k.
func mint(t testing.TB, k signingKey, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if k.kid != "" {
		opts = opts.WithHeader("kid", k.kid)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// token mints a good token for subject with scopes, signed with the
// current key.
func (as *testAS) token(subject, scope string) string {
	as.t.Helper()
	return mint(as.t, as.key(), as.claims(time.Now(), subject, scope))
}

// jwtVerifier returns a verifier of the AS's tokens with a clock the test
// moves.
func (as *testAS) jwtVerifier(t testing.TB, clock *fakeClock, opts JWTOptions) *JWTVerifier {
	t.Helper()
	opts.Issuer = as.issuer()
	opts.Resource = resource
	if opts.JWKSURI == "" {
		opts.JWKSURI = as.issuer() + "/jwks"
	}
	if clock != nil {
		opts.Now = clock.Now
	}
	v, err := NewJWTVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
