package oauth

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzParseChallenge feeds WWW-Authenticate lines, which come from any
// server the client talks to, to the parser: it must not panic, and what
// it returns must be a challenge of a scheme it asked for, with scopes
// that are single tokens.
func FuzzParseChallenge(f *testing.F) {
	for _, seed := range []string{
		`Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"`,
		`Bearer error="insufficient_scope", scope="a", error_description="needs \"a\""`,
		`Basic realm="x", Bearer realm="y", error=invalid_token`,
		`DPoP algs="ES256", error="use_dpop_nonce"`,
		`Bearer`,
		`Bearer scope="`,
		`Bearer ,,, =, a=, ="b"`,
		`Newauth realm="apps", type=1, title="Login to \"apps\"", Bearer scope=x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h := http.Header{}
		h.Add("WWW-Authenticate", line)
		c, ok := ParseChallenge(h)
		if !ok {
			return
		}
		if !strings.EqualFold(c.Scheme, "Bearer") && !strings.EqualFold(c.Scheme, "DPoP") {
			t.Fatalf("scheme %q from %q", c.Scheme, line)
		}
		for _, s := range c.Scopes {
			if s == "" || strings.ContainsAny(s, " \t") {
				t.Fatalf("scope %q from %q", s, line)
			}
		}
	})
}
