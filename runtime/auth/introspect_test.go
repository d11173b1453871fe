package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answer sets what the introspection endpoint says of token.
func (as *testAS) answer(token, body string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.opaque[token] = json.RawMessage(body)
}

func (as *testAS) introspector(t *testing.T, clock *fakeClock, opts IntrospectionOptions) *IntrospectionVerifier {
	t.Helper()
	opts.Issuer = as.issuer()
	opts.Resource = resource
	if opts.ClientID == "" {
		opts.ClientID, opts.ClientSecret = clientID, clientSecret
	}
	if clock != nil {
		opts.Now = clock.Now
	}
	v, err := NewIntrospectionVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestIntrospection(t *testing.T) {
	as := newAS(t)
	exp := time.Now().Add(time.Hour).Unix()
	active := func(extra string) string {
		return fmt.Sprintf(`{"active":true,"sub":"alice","aud":%q,"scope":"files:read","client_id":"c1","exp":%d%s}`, resource, exp, extra)
	}
	as.answer("good", active(`,"iss":"`+as.issuer()+`"`))
	as.answer("no-iss", active(""))
	as.answer("inactive", `{"active":false,"sub":"alice"}`)
	as.answer("wrong-iss", active(`,"iss":"https://evil.example"`))
	as.answer("wrong-aud", `{"active":true,"sub":"alice","aud":"https://other.example/mcp"}`)
	as.answer("no-aud", `{"active":true,"sub":"alice"}`)
	as.answer("expired", fmt.Sprintf(`{"active":true,"sub":"alice","aud":%q,"exp":%d}`, resource, time.Now().Add(-time.Hour).Unix()))
	as.answer("no-sub", fmt.Sprintf(`{"active":true,"aud":[%q]}`, resource))
	as.answer("active-string", fmt.Sprintf(`{"active":"true","sub":"alice","aud":%q}`, resource))
	v := as.introspector(t, nil, IntrospectionOptions{})
	ctx := context.Background()
	for _, tok := range []string{"good", "no-iss"} {
		info, err := v.Verify(ctx, tok)
		if err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
		if info.Subject != "alice" || info.Issuer != as.issuer() || info.ClientID != "c1" || !info.HasScope("files:read") || info.Expiry.Unix() != exp {
			t.Fatalf("%s: info %+v", tok, info)
		}
	}
	for tok, want := range map[string]string{
		"inactive": "not active", "unknown": "not active", "wrong-iss": "issued by", "wrong-aud": "aud",
		"no-aud": "aud", "expired": "expired", "no-sub": "no sub", "active-string": "not active",
	} {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an invalid token error saying %q", tok, err, want)
		}
	}

	t.Run("bad client credentials", func(t *testing.T) {
		v := as.introspector(t, nil, IntrospectionOptions{ClientID: clientID, ClientSecret: "wrong"})
		if _, err := v.Verify(ctx, "good"); err == nil || errors.Is(err, ErrInvalidToken) {
			t.Fatalf("%v; want an error that is not the token's", err)
		}
	})
	t.Run("discovered endpoint", func(t *testing.T) {
		before := as.metadataHits.Load()
		v := as.introspector(t, nil, IntrospectionOptions{})
		for range 2 {
			if _, err := v.Verify(ctx, "good"); err != nil {
				t.Fatal(err)
			}
		}
		if n := as.metadataHits.Load() - before; n != 1 {
			t.Fatalf("metadata fetched %d times; want 1", n)
		}
	})
}

func TestIntrospectionCache(t *testing.T) {
	as := newAS(t)
	clock := newClock()
	exp := clock.Now().Add(90 * time.Second).Unix()
	for i := range 4 {
		as.answer(fmt.Sprint("t", i), fmt.Sprintf(`{"active":true,"sub":"u%d","aud":%q,"exp":%d}`, i, resource, exp))
	}
	v := as.introspector(t, clock, IntrospectionOptions{CacheSize: 2, CacheTTL: time.Minute, Endpoint: as.issuer() + "/introspect"})
	ctx := context.Background()
	verify := func(tok string) {
		t.Helper()
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
	}
	verify("t0")
	verify("t0")
	if n := as.introspectHits.Load(); n != 1 {
		t.Fatalf("%d introspections; want 1, the second answered from the cache", n)
	}
	// Refused tokens are asked about every time, and not kept.
	for range 3 {
		v.Verify(ctx, "bad")
	}
	if n := as.introspectHits.Load(); n != 4 {
		t.Fatalf("%d introspections; want 4", n)
	}
	// The cache holds at most CacheSize answers.
	verify("t1")
	verify("t2")
	verify("t3")
	v.mu.Lock()
	n := len(v.cache)
	v.mu.Unlock()
	if n > 2 {
		t.Fatalf("the cache holds %d answers; want at most 2", n)
	}
	// An answer is not kept past CacheTTL.
	hits := as.introspectHits.Load()
	clock.Add(time.Minute)
	verify("t3")
	if as.introspectHits.Load() != hits+1 {
		t.Fatal("an answer was used past CacheTTL")
	}
	// Nor past the token's exp, which comes before CacheTTL now: the
	// endpoint is asked again, and the token is good within the leeway
	// and refused after it.
	clock.Add(31 * time.Second)
	if _, err := v.Verify(ctx, "t3"); err != nil {
		t.Fatalf("within the leeway: %v", err)
	}
	clock.Add(time.Minute)
	if _, err := v.Verify(ctx, "t3"); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("an expired token from the cache: %v", err)
	}
}

// TestIntrospectionBehindMiddleware runs opaque tokens through the
// Middleware: an active one reaches the handler, an inactive one is 401.
func TestIntrospectionBehindMiddleware(t *testing.T) {
	as := newAS(t)
	as.answer("opaque-good", fmt.Sprintf(`{"active":true,"sub":"carol","aud":%q,"scope":"mcp"}`, resource))
	as.answer("opaque-revoked", `{"active":false}`)
	m := newMiddleware(t, as.introspector(t, nil, IntrospectionOptions{}), as.issuer())
	var seen *TokenInfo
	h := m.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = TokenInfoFrom(r.Context()) }))
	for _, c := range []struct {
		token  string
		status int
	}{{"opaque-good", 200}, {"opaque-revoked", 401}} {
		seen = nil
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+c.token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Fatalf("%s: status %d; want %d", c.token, w.Code, c.status)
		}
		if c.status == 200 && (seen == nil || seen.Subject != "carol" || !seen.HasScope("mcp")) {
			t.Fatalf("%s: token info %+v", c.token, seen)
		}
		if c.status == 401 && (seen != nil || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="invalid_token", error_description="it is not active"`)) {
			t.Fatalf("%s: challenge %q", c.token, w.Header().Get("WWW-Authenticate"))
		}
	}
}
