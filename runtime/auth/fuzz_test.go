package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// FuzzJWTVerify feeds the verifier bearer tokens as clients send them:
// it must not panic, and must refuse with ErrInvalidToken every token
// other than the one its issuer signed (another spelling of that one,
// such as base64 whose unused bits differ, may pass: it says the same).
func FuzzJWTVerify(f *testing.F) {
	as := newAS(f)
	good := as.token("ada", "mcp")
	for _, seed := range []string{
		good,
		good[:len(good)-2],
		strings.Replace(good, ".", "..", 1),
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.",
		"eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.e30.c2ln",
		"not a token",
		"",
	} {
		f.Add(seed)
	}
	v := as.jwtVerifier(f, nil, JWTOptions{})
	f.Fuzz(func(t *testing.T, token string) {
		info, err := v.Verify(context.Background(), token)
		if token == good {
			if err != nil {
				t.Fatalf("the issuer's own token: %v", err)
			}
			return
		}
		if err == nil {
			if info.Subject != "ada" || !info.HasScope("mcp") {
				t.Fatalf("a token the issuer did not sign was accepted: %q → %+v", token, info)
			}
			return
		}
		if !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("refused without ErrInvalidToken: %v", err)
		}
	})
}
