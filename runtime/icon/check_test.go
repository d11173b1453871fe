package icon

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

func TestCheck(t *testing.T) {
	server := &Policy{ServerURL: "https://mcp.example.com/mcp"}
	svg := &Policy{ServerURL: "https://mcp.example.com/mcp", AllowSVG: true}
	stdio := &Policy{}
	small := &Policy{MaxBytes: 16}
	png := dataURL("image/png", pngOf(t, 4, 4))
	b64 := base64.StdEncoding.EncodeToString(pngOf(t, 4, 4))

	tests := []struct {
		name   string
		policy *Policy
		icon   mcp.Icon
		want   error // nil: accepted
	}{
		// Origins.
		{"same origin", server, mcp.Icon{Src: "https://mcp.example.com/icons/a.png"}, nil},
		{"default port written out, host case", server, mcp.Icon{Src: "https://MCP.Example.com:443/a.png#frag"}, nil},
		{"other port", server, mcp.Icon{Src: "https://mcp.example.com:8443/a.png"}, ErrOrigin},
		{"other host", server, mcp.Icon{Src: "https://cdn.example.com/a.png"}, ErrOrigin},
		{"subdomain of the server", server, mcp.Icon{Src: "https://evil.mcp.example.com/a.png"}, ErrOrigin},
		{"suffix of the server host", server, mcp.Icon{Src: "https://mcp.example.com.evil.net/a.png"}, ErrOrigin},
		{"user info", server, mcp.Icon{Src: "https://user:secret@mcp.example.com/a.png"}, ErrCredentials},
		{"no origin (stdio), https", stdio, mcp.Icon{Src: "https://mcp.example.com/a.png"}, ErrOrigin},
		{"no origin (stdio), data", stdio, mcp.Icon{Src: png}, nil},
		{"trusted origin", &Policy{TrustedOrigins: []string{"https://cdn.example.com"}}, mcp.Icon{Src: "https://cdn.example.com/a.png"}, nil},
		{"not the trusted origin", &Policy{TrustedOrigins: []string{"https://cdn.example.com"}}, mcp.Icon{Src: "https://cdn.example.org/a.png"}, ErrOrigin},
		{"http server: no https icon shares its origin", &Policy{ServerURL: "http://localhost:8080/mcp"}, mcp.Icon{Src: "https://localhost:8080/a.png"}, ErrOrigin},
		{"ServerURL without scheme", &Policy{ServerURL: "mcp.example.com"}, mcp.Icon{Src: "https://mcp.example.com/a.png"}, ErrPolicy},
		{"TrustedOrigins entry over http", &Policy{TrustedOrigins: []string{"http://cdn.example.com"}}, mcp.Icon{Src: "https://cdn.example.com/a.png"}, ErrPolicy},
		{"TrustedOrigins entry with a path", &Policy{TrustedOrigins: []string{"https://cdn.example.com/icons"}}, mcp.Icon{Src: "https://cdn.example.com/icons/a.png"}, ErrPolicy},
		{"TrustedOrigins entry with a query", &Policy{TrustedOrigins: []string{"https://cdn.example.com?x=1"}}, mcp.Icon{Src: "https://cdn.example.com/a.png"}, ErrPolicy},
		{"TrustedOrigins entry with a slash", &Policy{TrustedOrigins: []string{"https://cdn.example.com/"}}, mcp.Icon{Src: "https://cdn.example.com/a.png"}, nil},

		// Schemes.
		{"http", server, mcp.Icon{Src: "http://mcp.example.com/a.png"}, ErrScheme},
		{"javascript", server, mcp.Icon{Src: "javascript:alert(1)"}, ErrScheme},
		{"javascript upper case", server, mcp.Icon{Src: "JavaScript:alert(1)"}, ErrScheme},
		{"file", server, mcp.Icon{Src: "file:///etc/passwd"}, ErrScheme},
		{"ftp", server, mcp.Icon{Src: "ftp://mcp.example.com/a.png"}, ErrScheme},
		{"ws", server, mcp.Icon{Src: "ws://mcp.example.com/a"}, ErrScheme},
		{"wss", server, mcp.Icon{Src: "wss://mcp.example.com/a"}, ErrScheme},
		{"custom app scheme", server, mcp.Icon{Src: "my-app+x.y://icon"}, ErrScheme},
		{"relative reference", server, mcp.Icon{Src: "/icons/a.png"}, ErrSource},
		{"scheme-relative reference", server, mcp.Icon{Src: "//mcp.example.com/a.png"}, ErrSource},
		{"empty", server, mcp.Icon{}, ErrSource},
		{"tab hiding a scheme", server, mcp.Icon{Src: "java\tscript:alert(1)"}, ErrSource},
		{"newline in URL", server, mcp.Icon{Src: "https://mcp.example.com/a\n.png"}, ErrSource},
		{"https without host", server, mcp.Icon{Src: "https:/a.png"}, ErrSource},

		// Declared types.
		{"mimeType png", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "image/png"}, nil},
		{"mimeType image/jpg alias, any case, parameters", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "Image/JPG; q=1"}, nil},
		{"mimeType gif", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "image/gif"}, ErrType},
		{"mimeType svg, not allowed", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "image/svg+xml"}, ErrType},
		{"mimeType svg, allowed", svg, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "image/svg+xml"}, nil},
		{"mimeType webp, not allowed", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "image/webp"}, ErrType},
		{"mimeType generic", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "application/octet-stream"}, nil},
		{"mimeType text/html", server, mcp.Icon{Src: "https://mcp.example.com/a", MIMEType: "text/html"}, ErrType},

		// data: URIs.
		{"data png", server, mcp.Icon{Src: png}, nil},
		{"data upper case scheme and base64", server, mcp.Icon{Src: "DATA:image/png;BASE64," + b64}, nil},
		{"data unpadded base64", server, mcp.Icon{Src: "data:image/png;base64," + strings.TrimRight(b64, "=")}, nil},
		{"data percent-escaped base64", server, mcp.Icon{Src: "data:image/png;base64," + strings.ReplaceAll(b64, "+", "%2B")}, nil},
		{"data without media type", server, mcp.Icon{Src: "data:;base64," + b64}, nil},
		{"data media type agrees with mimeType", server, mcp.Icon{Src: png, MIMEType: "image/png"}, nil},
		{"data media type with a generic mimeType", server, mcp.Icon{Src: png, MIMEType: "application/octet-stream"}, nil},
		{"data media type disagrees with mimeType", server, mcp.Icon{Src: png, MIMEType: "image/jpeg"}, ErrMismatch},
		{"data gif media type", server, mcp.Icon{Src: "data:image/gif;base64,R0lGODlh"}, ErrType},
		{"data svg, not allowed", server, mcp.Icon{Src: "data:image/svg+xml,%3Csvg%2F%3E"}, ErrType},
		{"data svg percent-encoded, allowed", svg, mcp.Icon{Src: "data:image/svg+xml,%3Csvg%2F%3E"}, nil},
		{"data without comma", server, mcp.Icon{Src: "data:image/png;base64"}, ErrSource},
		{"data invalid base64", server, mcp.Icon{Src: "data:image/png;base64,!!!!"}, ErrSource},
		{"data truncated base64", server, mcp.Icon{Src: "data:image/png;base64,iVBORw0KG=="}, ErrSource},
		{"data bad percent escape", svg, mcp.Icon{Src: "data:image/svg+xml,%zz"}, ErrSource},
		{"data malformed media type", server, mcp.Icon{Src: "data:image/png/x;base64," + b64}, ErrSource},
		{"data raw '#'", svg, mcp.Icon{Src: `data:image/svg+xml,<svg fill="#fff"/>`}, ErrSource},
		{"data empty payload", server, mcp.Icon{Src: "data:image/png;base64,"}, ErrSource},
		{"data over MaxBytes, base64", small, mcp.Icon{Src: png}, ErrTooLarge},
		{"data over MaxBytes, percent-encoded", &Policy{MaxBytes: 4, AllowSVG: true}, mcp.Icon{Src: "data:image/svg+xml,<svg/>"}, ErrTooLarge},
		{"data over MaxBytes, base64 percent-escaped", &Policy{MaxBytes: 3}, mcp.Icon{Src: "data:image/png;base64," + strings.Repeat("%41", 12)}, ErrTooLarge},
		{"data at MaxBytes, base64 percent-escaped", &Policy{MaxBytes: 3}, mcp.Icon{Src: "data:image/png;base64,%41%41%41%41"}, nil},
		{"data at MaxBytes", &Policy{MaxBytes: 6, AllowSVG: true}, mcp.Icon{Src: "data:image/svg+xml,<svg/>"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check(tt.icon)
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("Check(%q) = %v, want nil", tt.icon.Src, err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("Check(%q) = %v, want an error wrapping %v", tt.icon.Src, err, tt.want)
			}
		})
	}
}

// A refused data: URI of a megabyte must not be repeated in the error.
func TestErrorShortensSource(t *testing.T) {
	src := dataURL("image/gif", make([]byte, 1<<20))
	err := (&Policy{MaxBytes: 2 << 20}).Check(mcp.Icon{Src: src})
	if !errors.Is(err, ErrType) {
		t.Fatalf("Check = %v, want ErrType", err)
	}
	if n := len(err.Error()); n > 200 {
		t.Fatalf("error message is %d bytes long: %.120s", n, err)
	}
}
