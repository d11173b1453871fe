package icon

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Check reports whether icon's metadata is acceptable, without any network
// access: its source must be an HTTPS URL on an allowed origin with no
// user information, or a well-formed data: URI within MaxBytes whose
// media type agrees with the icon's mimeType; and a mimeType, when given,
// must name an allowed type. Passing Check is necessary for Fetch, not
// sufficient: the bytes behind an HTTPS URL are unknown until fetched.
//
// Sizes and theme are left alone: they steer Select, and a wrong value
// there costs a badly chosen icon, not safety.
func (p *Policy) Check(icon mcp.Icon) error {
	_, err := p.check(icon)
	return err
}

// source is an icon source that passed Check: exactly one field is set.
type source struct {
	url  *url.URL // an HTTPS source
	data *dataURI // a data: source, already decoded
}

func (p *Policy) check(icon mcp.Icon) (source, error) {
	src := icon.Src
	if !isGeneric(icon.MIMEType) {
		if t := normalizeMIME(icon.MIMEType); !p.allows(t) {
			return source{}, refuse(src, ErrType, "mimeType %q", icon.MIMEType)
		}
	}
	if strings.ContainsFunc(src, isControl) {
		// No URI contains them, and a parser that skips them (as
		// browsers skip tabs and newlines) could see another URL.
		return source{}, refuse(src, ErrSource, "control character in source")
	}
	scheme, ok := schemeOf(src)
	if !ok {
		// Relative references are refused rather than resolved: the
		// schema asks for a URI, and there is no base to resolve against
		// for a stdio server.
		return source{}, refuse(src, ErrSource, "not an absolute URI")
	}
	switch scheme {
	case "data":
		d, err := parseDataURI(src, p.maxBytes())
		if err != nil {
			return source{}, err
		}
		if !isGeneric(d.mediaType) {
			if !p.allows(d.mediaType) {
				return source{}, refuse(src, ErrType, "data: media type %q", d.mediaType)
			}
			if !isGeneric(icon.MIMEType) && normalizeMIME(icon.MIMEType) != d.mediaType {
				return source{}, refuse(src, ErrMismatch, "mimeType %q, data: media type %q", icon.MIMEType, d.mediaType)
			}
		}
		return source{data: &d}, nil
	case "https":
		u, err := url.Parse(src)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return source{}, refuse(src, ErrSource, "not an https://host/path URL")
		}
		if u.User != nil {
			return source{}, refuse(src, ErrCredentials, "")
		}
		allowed, err := p.origins(src)
		if err != nil {
			return source{}, err
		}
		o := originOf(u)
		if len(allowed) == 0 {
			return source{}, refuse(src, ErrOrigin, "the server has no origin (no ServerURL, no TrustedOrigins), so only data: icons are accepted")
		}
		if !slices.Contains(allowed, o) {
			names := make([]string, len(allowed))
			for i, a := range allowed {
				names[i] = a.String()
			}
			return source{}, refuse(src, ErrOrigin, "%s is none of %s", o, strings.Join(names, ", "))
		}
		// The fragment never reaches the server; drop it so that the
		// request and any error name the resource actually fetched.
		u.Fragment, u.RawFragment = "", ""
		return source{url: u}, nil
	}
	return source{}, refuse(src, ErrScheme, "%s: (only https: and data: are allowed)", scheme)
}

// schemeOf returns src's scheme, lowercased, if src begins with one
// (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
func schemeOf(src string) (string, bool) {
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(src[:i]), true
		default:
			return "", false
		}
	}
	return "", false
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f
}
