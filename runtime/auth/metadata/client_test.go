package metadata

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestProtectedResourceURLs(t *testing.T) {
	got, err := ProtectedResourceURLs("https://mcp.example/public/mcp")
	want := []string{"https://mcp.example/.well-known/oauth-protected-resource/public/mcp", "https://mcp.example/.well-known/oauth-protected-resource"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ProtectedResourceURLs = %q, %v; want %q", got, err, want)
	}
	got, err = ProtectedResourceURLs("https://mcp.example/")
	if err != nil || !slices.Equal(got, want[1:]) {
		t.Fatalf("for a root resource = %q, %v; want %q once", got, err, want[1:])
	}
	if _, err := ProtectedResourceURLs("mcp.example"); err == nil {
		t.Fatal("a relative URL gave no error")
	}
}

func TestClientRoundTrip(t *testing.T) {
	in := `{"client_id":"c1","client_secret":"s","redirect_uris":["http://127.0.0.1:3000/cb"],"token_endpoint_auth_method":"client_secret_basic","grant_types":["authorization_code","refresh_token"],"application_type":"native","client_secret_expires_at":0,"x_vendor":[1]}`
	var c Client
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.ClientID != "c1" || c.ApplicationType != "native" || len(c.GrantTypes) != 2 || string(c.Extra["x_vendor"]) != "[1]" || len(c.Extra) != 1 {
		t.Fatalf("decoded %+v, Extra %v", c, c.Extra)
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"client_id":"c1","client_secret":"s","redirect_uris":["http://127.0.0.1:3000/cb"],"token_endpoint_auth_method":"client_secret_basic","grant_types":["authorization_code","refresh_token"],"application_type":"native","x_vendor":[1]}`
	if string(out) != want {
		t.Fatalf("encoded\n %s\nwant\n %s", out, want)
	}
	if s := c.String(); strings.Contains(s, `"s"`) || !strings.Contains(s, "REDACTED") || !strings.Contains(s, "c1") {
		t.Fatalf("String() = %s", s)
	}
}

func TestCheckClientIDURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://client.example/meta.json":   true,
		"https://client.example:8443/a/b":    true,
		"http://client.example/meta.json":    false,
		"https://client.example":             false,
		"https://client.example/":            false,
		"https://client.example/a#f":         false,
		"https://u:p@client.example/meta":    false,
		"https://client.example/a/../meta":   false,
		"https://client.example/./meta.json": false,
		"client.example/meta.json":           false,
	} {
		if err := CheckClientIDURL(raw); (err == nil) != ok {
			t.Errorf("CheckClientIDURL(%q) = %v; want ok=%t", raw, err, ok)
		}
	}
}
