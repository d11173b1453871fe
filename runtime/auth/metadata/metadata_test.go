package metadata

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestProtectedResourceURL(t *testing.T) {
	cases := []struct {
		name, resource, want string
	}{
		{"path", "https://mcp.example/public/mcp", "https://mcp.example/.well-known/oauth-protected-resource/public/mcp"},
		{"trailing slash", "https://mcp.example/mcp/", "https://mcp.example/.well-known/oauth-protected-resource/mcp"},
		{"root", "https://mcp.example", "https://mcp.example/.well-known/oauth-protected-resource"},
		{"port and query", "http://127.0.0.1:8080/mcp?x=1#f", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ProtectedResourceURL(c.resource)
			if err != nil || got != c.want {
				t.Fatalf("ProtectedResourceURL(%q) = %q, %v; want %q", c.resource, got, err, c.want)
			}
		})
	}
	root, err := ProtectedResourceRootURL("https://mcp.example/public/mcp")
	if err != nil || root != "https://mcp.example/.well-known/oauth-protected-resource" {
		t.Fatalf("ProtectedResourceRootURL = %q, %v", root, err)
	}
	for _, bad := range []string{"mcp.example/mcp", "ftp://mcp.example/", "https://", "://x"} {
		if _, err := ProtectedResourceURL(bad); err == nil {
			t.Errorf("ProtectedResourceURL(%q): no error", bad)
		}
	}
}

func TestAuthorizationServerURLs(t *testing.T) {
	cases := []struct {
		name, issuer string
		want         []string
	}{
		{"root", "https://auth.example", []string{
			"https://auth.example/.well-known/oauth-authorization-server",
			"https://auth.example/.well-known/openid-configuration",
		}},
		{"root slash", "https://auth.example/", []string{
			"https://auth.example/.well-known/oauth-authorization-server",
			"https://auth.example/.well-known/openid-configuration",
		}},
		{"path", "https://auth.example/tenant1", []string{
			"https://auth.example/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example/.well-known/openid-configuration/tenant1",
			"https://auth.example/tenant1/.well-known/openid-configuration",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AuthorizationServerURLs(c.issuer)
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("AuthorizationServerURLs(%q) = %q, %v; want %q", c.issuer, got, err, c.want)
			}
		})
	}
}

func TestExtraRoundTrip(t *testing.T) {
	in := `{"resource":"https://mcp.example/mcp","authorization_servers":["https://auth.example"],"bearer_methods_supported":[],"x_custom":{"a":1},"a_first":true}`
	var m ProtectedResource
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Resource != "https://mcp.example/mcp" || len(m.AuthorizationServers) != 1 {
		t.Fatalf("named members: %+v", m)
	}
	if len(m.Extra) != 2 || string(m.Extra["x_custom"]) != `{"a":1}` {
		t.Fatalf("Extra = %v; want x_custom and a_first only (bearer_methods_supported is named)", m.Extra)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resource":"https://mcp.example/mcp","authorization_servers":["https://auth.example"],"a_first":true,"x_custom":{"a":1}}`
	if string(out) != want {
		t.Fatalf("encoded\n %s\nwant\n %s", out, want)
	}
	var empty AuthorizationServer
	out, err = json.Marshal(AuthorizationServer{Extra: map[string]json.RawMessage{"k": []byte(`1`)}})
	if err != nil || string(out) != `{"issuer":"","k":1}` {
		t.Fatalf("encoded %s, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"issuer":1}`), &empty); err == nil {
		t.Fatal("a number as issuer decoded")
	}
}

func TestCheckIssuer(t *testing.T) {
	m := AuthorizationServer{Issuer: "https://auth.example"}
	if err := m.CheckIssuer("https://auth.example"); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckIssuer("https://auth.example/"); !errors.Is(err, ErrIssuerMismatch) {
		t.Fatalf("CheckIssuer with a trailing slash: %v; want ErrIssuerMismatch", err)
	}
}
