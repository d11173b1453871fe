package streamable

import (
	"net"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/clip"
)

// checkHost reports why a request's Host or Origin is refused, or "" when
// both are allowed. Refusing hosts other than the loopback names defeats
// DNS rebinding, where a web page makes a browser send requests to a
// local server under the attacker's host name.
func (h *Handler) checkHost(host, origin string) string {
	if !h.hostAllowed(host) {
		return "Host " + quote(host) + " is not allowed; to serve it, add it to streamable.HandlerOptions.AllowedHosts"
	}
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return "Origin " + quote(origin) + " is not allowed"
	}
	if strings.EqualFold(u.Host, host) || h.hostAllowed(u.Host) {
		return ""
	}
	return "Origin " + quote(origin) + " is not allowed; to serve it, add its host to streamable.HandlerOptions.AllowedHosts"
}

// hostAllowed reports whether host, with or without a port, is a loopback
// name or matches AllowedHosts: an entry with a port matches that port
// only, one without matches any; "*" matches every host.
func (h *Handler) hostAllowed(host string) bool {
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	switch strings.ToLower(name) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if a == "*" || strings.EqualFold(a, host) || strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"), name) {
			return true
		}
	}
	return false
}

func quote(s string) string { return clip.Quote(s, 100) }
