package icon

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The image types the package can identify by their bytes, as they appear
// in Image.MIMEType.
const (
	MIMEPNG  = "image/png"
	MIMEJPEG = "image/jpeg"
	MIMEWebP = "image/webp"
	MIMESVG  = "image/svg+xml"
)

// mimeGIF is recognized only to be refused by name: GIF is animated by
// design and the specification does not ask clients to support it.
const mimeGIF = "image/gif"

// Defaults for the zero fields of a Policy.
const (
	// DefaultMaxBytes is 1 MiB: generous for an icon, small enough that a
	// host can hold every icon of a large tool list in memory.
	DefaultMaxBytes = 1 << 20
	// DefaultMaxWidth and DefaultMaxHeight bound a decoded RGBA bitmap to
	// 4 MiB, which keeps decoding an accepted icon cheap.
	DefaultMaxWidth  = 1024
	DefaultMaxHeight = 1024
	// DefaultTimeout bounds one Fetch, redirects and body included.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxRedirects is the number of same-origin redirects followed.
	DefaultMaxRedirects = 3
)

// Policy is what a host accepts from one server's icons. The zero Policy
// accepts only PNG and JPEG data: icons within the default limits; set
// ServerURL to accept HTTPS icons from the server's origin too.
//
// A Policy is configuration only: it holds no connections or caches, may
// be copied freely, and its methods are safe for concurrent use as long as
// nobody modifies it meanwhile.
type Policy struct {
	// ServerURL is the URL the host uses to reach the server, such as its
	// streamable HTTP endpoint. Its scheme, host and port are the origin an
	// HTTPS icon must share; the path is ignored. An http: ServerURL gives
	// an origin no HTTPS icon can share, so only data: icons pass.
	//
	// Empty means the server has no origin, as with a stdio server: then
	// only data: icons and icons from TrustedOrigins pass. The package does
	// not guess an origin for a local process, because any guess would let
	// the server make the host contact a third party.
	ServerURL string

	// TrustedOrigins are further HTTPS origins ("https://host[:port]") the
	// host vouches for, such as a CDN the host operator knows the server
	// uses. The schema's Icon documentation allows "a trusted domain";
	// leave this empty to keep to the stricter same-origin rule.
	TrustedOrigins []string

	// MaxBytes bounds an icon's decoded bytes. Zero or less means
	// DefaultMaxBytes.
	MaxBytes int64

	// MaxWidth and MaxHeight bound a raster icon's pixel dimensions, read
	// from its header. Zero or less means the default. SVG has no intrinsic
	// pixel size and is bounded by MaxBytes alone.
	MaxWidth, MaxHeight int

	// AllowSVG accepts image/svg+xml, which is off by default because SVG
	// is a document format that can carry script. Even when on, an SVG
	// with script, foreign content, event handlers or external references
	// is refused; see the package documentation for what remains the
	// host's job.
	AllowSVG bool

	// AllowWebP accepts still image/webp. Animated WebP is always refused.
	AllowWebP bool

	// Timeout bounds one Fetch of an HTTPS icon, connection, redirects and
	// body included, on top of the ctx passed to Fetch. Zero means
	// DefaultTimeout; a negative value leaves only the ctx.
	Timeout time.Duration

	// MaxRedirects is how many same-origin redirects Fetch follows. Zero
	// means DefaultMaxRedirects; a negative value follows none.
	MaxRedirects int

	// HTTPClient supplies the Transport used for HTTPS icons; nil means
	// http.DefaultTransport. Nothing else of the client is used: not its
	// Jar, so no cookie is sent or stored; not its CheckRedirect, which
	// the policy replaces with its own; not its Timeout, which Timeout
	// replaces. See Fetch for how client certificates are kept off.
	HTTPClient *http.Client
}

func (p *Policy) maxBytes() int64 {
	if p.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return p.MaxBytes
}

func (p *Policy) maxWidth() int {
	if p.MaxWidth <= 0 {
		return DefaultMaxWidth
	}
	return p.MaxWidth
}

func (p *Policy) maxHeight() int {
	if p.MaxHeight <= 0 {
		return DefaultMaxHeight
	}
	return p.MaxHeight
}

func (p *Policy) timeout() time.Duration {
	if p.Timeout == 0 {
		return DefaultTimeout
	}
	return p.Timeout
}

func (p *Policy) maxRedirects() int {
	switch {
	case p.MaxRedirects == 0:
		return DefaultMaxRedirects
	case p.MaxRedirects < 0:
		return 0
	}
	return p.MaxRedirects
}

// allows reports whether the policy accepts content of type t, a
// normalized MIME type.
func (p *Policy) allows(t string) bool {
	switch t {
	case MIMEPNG, MIMEJPEG:
		return true
	case MIMESVG:
		return p.AllowSVG
	case MIMEWebP:
		return p.AllowWebP
	}
	return false
}

// accept is the Accept header of an icon request: it names only what the
// policy would keep, so a server that negotiates can send the right thing.
func (p *Policy) accept() string {
	types := []string{MIMEPNG, MIMEJPEG}
	if p.AllowWebP {
		types = append(types, MIMEWebP)
	}
	if p.AllowSVG {
		types = append(types, MIMESVG)
	}
	return strings.Join(types, ", ")
}

// normalizeMIME lowercases a MIME type, drops its parameters and maps the
// alias image/jpg, which the specification names beside image/jpeg. A
// value that does not parse is returned trimmed and lowercased, so that it
// matches nothing.
func normalizeMIME(s string) string {
	t, _, err := mime.ParseMediaType(s)
	if err != nil {
		t = strings.ToLower(strings.TrimSpace(s))
	}
	if t == "image/jpg" {
		return MIMEJPEG
	}
	return t
}

// isGeneric reports whether a declared type says nothing about the image:
// the schema's mimeType exists for exactly the sources whose own type is
// missing or generic, so these are not held against the content.
func isGeneric(t string) bool {
	switch normalizeMIME(t) {
	case "", "application/octet-stream", "binary/octet-stream":
		return true
	}
	return false
}

// origin is a URL's scheme, host and port, compared as the same-origin
// rule of web browsers compares them.
type origin struct {
	scheme, host, port string
}

// originOf returns u's origin, with the default port made explicit so that
// https://h and https://h:443 compare equal. Hosts are compared as
// written, case-insensitively; internationalized names are not converted
// to or from punycode, so a server should advertise icons under the same
// spelling as its URL.
func originOf(u *url.URL) origin {
	o := origin{
		scheme: strings.ToLower(u.Scheme),
		host:   strings.ToLower(u.Hostname()),
		port:   u.Port(),
	}
	if o.port == "" {
		switch o.scheme {
		case "https":
			o.port = "443"
		case "http":
			o.port = "80"
		}
	}
	return o
}

func (o origin) String() string {
	host := o.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return o.scheme + "://" + host + ":" + o.port
}

// origins returns the origins an HTTPS icon may come from: the server's,
// when it has one, and the trusted ones.
func (p *Policy) origins(src string) ([]origin, error) {
	var out []origin
	if p.ServerURL != "" {
		u, err := url.Parse(p.ServerURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, refuse(src, ErrPolicy, "ServerURL %q is not an absolute URL", p.ServerURL)
		}
		out = append(out, originOf(u))
	}
	for _, s := range p.TrustedOrigins {
		u, err := url.Parse(s)
		if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
			return nil, refuse(src, ErrPolicy, "TrustedOrigins entry %q is not an https://host[:port] origin", s)
		}
		out = append(out, originOf(u))
	}
	return out, nil
}
