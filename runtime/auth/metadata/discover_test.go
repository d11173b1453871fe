package metadata

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestDiscoverAuthorizationServer(t *testing.T) {
	const issuer = "https://auth.example/tenant1"
	urls, _ := AuthorizationServerURLs(issuer)
	cases := []struct {
		name    string
		docs    map[string]string // url → issuer the document names; absent: no document
		fail    map[string]bool   // urls whose fetch fails
		want    string            // the URL whose document is returned; "" for an error
		wantErr error
		tried   int
	}{
		{"first", map[string]string{urls[0]: issuer, urls[1]: issuer}, nil, urls[0], nil, 1},
		{"OpenID Connect by path insertion", map[string]string{urls[1]: issuer}, nil, urls[1], nil, 2},
		{"OpenID Connect by path appending", map[string]string{urls[2]: issuer}, nil, urls[2], nil, 3},
		{"a failure moves on", map[string]string{urls[2]: issuer}, map[string]bool{urls[0]: true}, urls[2], nil, 3},
		{"another issuer is refused, not skipped", map[string]string{urls[0]: "https://evil.example", urls[1]: issuer}, nil, "", ErrIssuerMismatch, 1},
		{"none", nil, map[string]bool{urls[1]: true}, "", ErrNoMetadata, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tried []string
			fetch := func(_ context.Context, u string, v any) (bool, error) {
				tried = append(tried, u)
				if c.fail[u] {
					return false, errors.New("connection refused")
				}
				iss, ok := c.docs[u]
				if !ok {
					return false, nil
				}
				v.(*AuthorizationServer).Issuer = iss
				v.(*AuthorizationServer).TokenEndpoint = u + "#token"
				return true, nil
			}
			m, err := DiscoverAuthorizationServer(context.Background(), issuer, fetch)
			if !slices.Equal(tried, urls[:c.tried]) {
				t.Errorf("tried %q; want %q", tried, urls[:c.tried])
			}
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v; want %v", err, c.wantErr)
				}
				return
			}
			if err != nil || m.TokenEndpoint != c.want+"#token" {
				t.Fatalf("got %+v, %v; want the document of %s", m, err, c.want)
			}
		})
	}
}
