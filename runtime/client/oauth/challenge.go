package oauth

import (
	"net/http"
	"strings"
)

// Challenge is a Bearer or DPoP challenge of a WWW-Authenticate header
// (RFC 6750, section 3; RFC 9449, section 7.1; RFC 9728, section 5.1).
type Challenge struct {
	// Scheme is "Bearer" or "DPoP", as the server wrote it.
	Scheme string
	// Error is the error code: "invalid_token", "insufficient_scope",
	// DPoP's "use_dpop_nonce", or empty when the request carried no
	// token.
	Error string
	// Scopes are the scopes the server says the request needs.
	Scopes []string
	// ResourceMetadata is the URL of the server's Protected Resource
	// Metadata, when the server names it.
	ResourceMetadata string
}

// ParseChallenge returns the first Bearer challenge of h's
// WWW-Authenticate headers, else the first DPoP one, and false when there
// is neither.
func ParseChallenge(h http.Header) (Challenge, bool) {
	return parseChallenge(h, "Bearer", "DPoP")
}

// parseChallenge returns the first challenge of the first of schemes that
// h has.
func parseChallenge(h http.Header, schemes ...string) (Challenge, bool) {
	var all []challenge
	for _, line := range h.Values("WWW-Authenticate") {
		all = append(all, parseChallenges(line)...)
	}
	for _, scheme := range schemes {
		for _, c := range all {
			if strings.EqualFold(c.scheme, scheme) {
				return Challenge{
					Scheme:           c.scheme,
					Error:            c.params["error"],
					Scopes:           strings.Fields(c.params["scope"]),
					ResourceMetadata: c.params["resource_metadata"],
				}, true
			}
		}
	}
	return Challenge{}, false
}

// challenge is one challenge of a WWW-Authenticate value: its scheme and
// its auth-params, names lowercased. A token68 is ignored.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads a WWW-Authenticate value (RFC 9110, section
// 11.6.1): challenges separated by commas, each a scheme followed by
// comma-separated name=value pairs whose values are tokens or quoted
// strings. It is lenient: what it cannot read ends the value.
func parseChallenges(s string) []challenge {
	var out []challenge
	p := &lexer{s: s}
	for {
		p.skipSpaceAndCommas()
		scheme := p.token()
		if scheme == "" {
			return out
		}
		c := challenge{scheme: scheme, params: map[string]string{}}
		p.skipSpace()
		if !p.peekParam() && p.peek() != ',' {
			p.token68() // a token68 stands only right after the scheme
		}
		for p.peekParam() {
			name := strings.ToLower(p.token())
			p.skipSpace()
			p.consume('=')
			p.skipSpace()
			var value string
			if p.peek() == '"' {
				value = p.quoted()
			} else {
				value = p.token()
			}
			if _, dup := c.params[name]; !dup {
				c.params[name] = value
			}
			p.skipSpace()
			if !p.consume(',') {
				break
			}
			p.skipSpaceAndCommas()
		}
		out = append(out, c)
		if p.i >= len(p.s) || p.peek() != ',' && !isTokenChar(p.peek()) {
			return out
		}
	}
}

// lexer reads the parts of a header value.
type lexer struct {
	s string
	i int
}

func (p *lexer) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *lexer) consume(b byte) bool {
	if p.peek() == b && p.i < len(p.s) {
		p.i++
		return true
	}
	return false
}

func (p *lexer) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *lexer) skipSpaceAndCommas() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// token reads an RFC 9110 token.
func (p *lexer) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 skips a token68 (RFC 9110, section 11.2) and its padding.
func (p *lexer) token68() {
	for p.i < len(p.s) && (isTokenChar(p.s[p.i]) || p.s[p.i] == '/' || p.s[p.i] == '=') {
		p.i++
	}
}

// peekParam reports whether a name=value pair starts at the position.
func (p *lexer) peekParam() bool {
	save := p.i
	defer func() { p.i = save }()
	if p.token() == "" {
		return false
	}
	p.skipSpace()
	return p.consume('=')
}

// quoted reads a quoted-string, undoing its backslash escapes.
func (p *lexer) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\\':
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
