package oauth

import "testing"

func TestCheckResource(t *testing.T) {
	cases := []struct {
		resource, server string
		ok               bool
	}{
		{"https://mcp.example/mcp", "https://mcp.example/mcp", true},
		{"https://mcp.example", "https://mcp.example/mcp", true},
		{"https://MCP.example:443/mcp/", "https://mcp.example/mcp", true},
		{"https://mcp.example/mc", "https://mcp.example/mcp", false},
		{"https://mcp.example/mcp/sub", "https://mcp.example/mcp", false},
		{"https://evil.example/mcp", "https://mcp.example/mcp", false},
		{"http://mcp.example/mcp", "https://mcp.example/mcp", false},
		{"https://mcp.example:8443/mcp", "https://mcp.example/mcp", false},
		{"https://mcp.example/mcp#x", "https://mcp.example/mcp", false},
		{"/mcp", "https://mcp.example/mcp", false},
	}
	for _, c := range cases {
		if err := checkResource(c.resource, c.server); (err == nil) != c.ok {
			t.Errorf("checkResource(%q, %q) = %v; want ok=%t", c.resource, c.server, err, c.ok)
		}
	}
}
