package oauth

import (
	"net/http"
	"slices"
	"testing"
)

func TestParseChallenge(t *testing.T) {
	cases := []struct {
		name    string
		headers []string
		want    Challenge
		ok      bool
	}{
		{"quoted params", []string{`Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"`},
			Challenge{Error: "invalid_token", ResourceMetadata: "https://mcp.example/.well-known/oauth-protected-resource/mcp"}, true},
		{"scope list", []string{`Bearer scope="files:read files:write", error="insufficient_scope"`},
			Challenge{Error: "insufficient_scope", Scopes: []string{"files:read", "files:write"}}, true},
		{"token values and case", []string{`bearer Error=invalid_token,SCOPE=a`}, Challenge{Scheme: "bearer", Error: "invalid_token", Scopes: []string{"a"}}, true},
		{"escapes", []string{`Bearer scope="a\"b"`}, Challenge{Scopes: []string{`a"b`}}, true},
		{"Bearer first", []string{`DPoP algs="ES256", Bearer resource_metadata="https://x/prm"`}, Challenge{Scheme: "Bearer", ResourceMetadata: "https://x/prm"}, true},
		{"DPoP alone", []string{`DPoP error="use_dpop_nonce", resource_metadata="https://x/prm"`}, Challenge{Scheme: "DPoP", Error: "use_dpop_nonce", ResourceMetadata: "https://x/prm"}, true},
		{"after a token68", []string{`Basic dXNlcjpwYXNz, Bearer scope="s"`}, Challenge{Scopes: []string{"s"}}, true},
		{"second header", []string{`Basic realm="x"`, `Bearer`}, Challenge{}, true},
		{"first param wins", []string{`Bearer scope="a", scope="b"`}, Challenge{Scopes: []string{"a"}}, true},
		{"none", []string{`Basic realm="x"`}, Challenge{}, false},
		{"garbage", []string{`"unterminated`}, Challenge{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range c.headers {
				h.Add("WWW-Authenticate", v)
			}
			got, ok := ParseChallenge(h)
			if c.ok && c.want.Scheme == "" {
				c.want.Scheme = "Bearer"
			}
			if ok != c.ok || got.Scheme != c.want.Scheme || got.Error != c.want.Error || got.ResourceMetadata != c.want.ResourceMetadata || !slices.Equal(got.Scopes, c.want.Scopes) {
				t.Fatalf("ParseChallenge(%q) = %+v, %t; want %+v, %t", c.headers, got, ok, c.want, c.ok)
			}
		})
	}
}
