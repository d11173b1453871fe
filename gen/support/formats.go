package support

import (
	"net/netip"
	"strings"
)

// The format checks below decide exactly what the JSON Schema validator
// github.com/santhosh-tekuri/jsonschema/v6 decides for the same format, so a
// message that passes one passes the other. That validator builds "uri" and
// "uri-template" on net/url.Parse and "date-time" on time.Parse and
// strconv.Atoi, which allocate; these checks reproduce their acceptance sets
// without allocating. Where the results look odd (a space in a path is a
// valid "uri", "+1" is a valid hour), they are odd in the same way on purpose.
// The URI checks follow net/url as of Go 1.26; the differential tests beside
// this file catch any drift in later releases.

// isURI reports whether s is an absolute URI: a URI reference that
// net/url.Parse accepts, that has a scheme, and whose host, if it has one,
// passes the validator's extra check (see validHost).
func isURI(s string) bool {
	scheme, _, ok := parseURIRef(s)
	return ok && scheme
}

// isURITemplate reports whether s is a "uri-template": a URI reference that
// net/url.Parse accepts whose path, when net/url keeps it as RawPath (that
// is, when it is not in net/url's own escaping), has balanced, unnested
// braces within each '/'-separated segment after percent-decoding. Braces in
// the query or fragment, or in an opaque URI such as "urn:{x", are not
// looked at.
func isURITemplate(s string) bool {
	_, path, ok := parseURIRef(s)
	if !ok {
		return false
	}
	if isCanonicalPath(path) {
		return true // net/url leaves RawPath empty: nothing to check
	}
	open := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '%' {
			c = unhex(path[i+1])<<4 | unhex(path[i+2])
			i += 2
		} else if c == '/' {
			if open {
				return false
			}
			continue
		}
		switch c {
		case '{':
			if open {
				return false
			}
			open = true
		case '}':
			if !open {
				return false
			}
			open = false
		}
	}
	return !open
}

// isByte reports whether s is standard base64 with padding, as
// encoding/base64.StdEncoding.DecodeString accepts it: carriage returns and
// line feeds anywhere are ignored, the data comes in groups of four
// characters, and only the last group may end in "=" or "==". Unused bits
// in the last group need not be zero. The empty string is valid.
func isByte(s string) bool {
	n, pad := 0, 0 // data characters and padding characters seen
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			continue
		case pad > 0:
			// Only the second '=' of "xx==" may follow a '='.
			if c != '=' || pad != 1 || n%4 != 2 {
				return false
			}
			pad = 2
		case isBase64Digit(c):
			n++
		case c == '=':
			if r := n % 4; r != 2 && r != 3 {
				return false
			}
			pad = 1
		default:
			return false
		}
	}
	switch pad {
	case 0:
		return n%4 == 0
	case 1:
		return n%4 == 3
	}
	return true // "xx==", checked on the way
}

func isBase64Digit(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// isDateTime reports whether s is an RFC 3339 date-time as the validator
// checks it: "YYYY-MM-DD" naming a real Gregorian date, 'T' or 't',
// "hh:mm:ss" with an optional fraction, then 'Z', 'z' or "+hh:mm"/"-hh:mm".
// A second of 60 is allowed only where the time is 23:59 in UTC. As with
// strconv.Atoi, each two-character hour, minute, second and offset field may
// also be a sign and one digit ("+5", "-0"), as long as it is not negative.
func isDateTime(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' && s[10] != 't' {
		return false
	}
	if !isDate(s[:10]) {
		return false
	}
	t := s[11:]
	if t[2] != ':' || t[5] != ':' {
		return false
	}
	h, okh := timeField(t[0], t[1])
	m, okm := timeField(t[3], t[4])
	sec, oks := timeField(t[6], t[7])
	if !okh || !okm || !oks || h > 23 || m > 59 || sec > 60 {
		return false
	}
	t = t[8:]
	if len(t) > 0 && t[0] == '.' {
		n := 1
		for n < len(t) && isDigit(t[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		t = t[n:]
	}
	if t != "Z" && t != "z" {
		if len(t) != 6 || t[0] != '+' && t[0] != '-' || t[3] != ':' {
			return false
		}
		zh, okzh := timeField(t[1], t[2])
		zm, okzm := timeField(t[4], t[5])
		if !okzh || !okzm || zh > 23 || zm > 59 {
			return false
		}
		// The leap second check below looks at the time in UTC. Like the
		// validator, wrap below midnight but not above it.
		hm := h*60 + m
		if t[0] == '+' {
			hm -= zh*60 + zm
			if hm < 0 {
				hm += 24 * 60
			}
		} else {
			hm += zh*60 + zm
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}

// isDate reports whether s is "YYYY-MM-DD" naming a day that exists in the
// proleptic Gregorian calendar, as time.Parse("2006-01-02", s) accepts it.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigit(s[i]) {
			return false
		}
	}
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := int(s[8]-'0')*10 + int(s[9]-'0')
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// timeField parses a two-character field the way strconv.Atoi does, "05",
// "+5" or "-0", and reports false for anything else or a negative value.
func timeField(a, b byte) (int, bool) {
	switch {
	case !isDigit(b):
		return 0, false
	case isDigit(a):
		return int(a-'0')*10 + int(b-'0'), true
	case a == '+' || a == '-' && b == '0':
		return int(b - '0'), true
	}
	return 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseURIRef checks s the way net/url.Parse does, plus the validator's
// extra rule for hosts. It reports whether s has a scheme and returns the
// escaped path: empty for an opaque URI ("mailto:x"), whose rest net/url
// does not look at.
func parseURIRef(s string) (scheme bool, path string, ok bool) {
	rest, frag := s, ""
	if i := strings.IndexByte(s, '#'); i >= 0 {
		rest, frag = s[:i], s[i+1:]
	}
	if !validEscapes(frag) {
		return false, "", false
	}
	// Control characters are rejected before the fragment only.
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c < ' ' || c == 0x7f {
			return false, "", false
		}
	}
	// A scheme is [A-Za-z][A-Za-z0-9+.-]* followed by ':'. A leading ':'
	// is an error; any other character first means there is no scheme.
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			continue
		}
		if i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			continue
		}
		if c == ':' {
			if i == 0 {
				return false, "", false
			}
			scheme, rest = true, rest[i+1:]
		}
		break
	}
	// The query is not checked at all.
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) == 0 || rest[0] != '/' {
		if scheme {
			return true, "", true // opaque
		}
		// A relative path's first segment cannot hold a colon.
		for i := 0; i < len(rest) && rest[i] != '/'; i++ {
			if rest[i] == ':' {
				return false, "", false
			}
		}
	}
	if len(rest) >= 2 && rest[0] == '/' && rest[1] == '/' && (scheme || len(rest) < 3 || rest[2] != '/') {
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if !validAuthority(authority) {
			return false, "", false
		}
	}
	if !validEscapes(rest) {
		return false, "", false
	}
	return scheme, rest, true
}

// validAuthority checks "[userinfo@]host[:port]". The userinfo, everything
// up to the last '@', may hold only RFC 3986 userinfo characters, '@' and
// well-formed percent escapes.
func validAuthority(a string) bool {
	at := strings.LastIndexByte(a, '@')
	if !validHost(a[at+1:]) {
		return false
	}
	for i := 0; i < at; i++ {
		if uriChars[a[i]]&uriUserinfo == 0 {
			return false
		}
	}
	return validEscapes(a[:max(at, 0)])
}

// validHost checks "host[:port]" as net/url does, and as the validator
// then does, which together leave these forms:
//
//   - "[" IPv6 "]" with an optional ":digits" port, where the address is one
//     that netip.ParseAddr accepts, is not plain IPv4 and has no zone (the
//     validator rejects zones; any other '%' makes net/url or netip fail);
//   - a registered name of host characters, percent escapes of non-ASCII
//     bytes or "%25", and bytes from 0x80 up, with at most one colon, which
//     must start a port of digits. (net/url allows more colons for schemes
//     other than http and https, but the validator then sees a colon in the
//     host name and rejects it.)
func validHost(h string) bool {
	lb := strings.LastIndexByte(h, '[')
	if lb > 0 {
		return false
	}
	if lb == 0 {
		rb := strings.LastIndexByte(h, ']')
		if rb < 0 || !validOptionalPort(h[rb+1:]) {
			return false
		}
		ip := h[1:rb]
		if strings.IndexByte(ip, '%') >= 0 {
			return false
		}
		addr, err := netip.ParseAddr(ip)
		return err == nil && !addr.Is4()
	}
	// From the first colon on there must be a port: digits, so no second
	// colon.
	if i := strings.IndexByte(h, ':'); i >= 0 && !validOptionalPort(h[i:]) {
		return false
	}
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '%':
			if i+2 >= len(h) || !isHex(h[i+1]) || !isHex(h[i+2]) {
				return false
			}
			// Only non-ASCII bytes, and '%' itself, may be escaped in a host.
			if unhex(h[i+1]) < 8 && h[i+1:i+3] != "25" {
				return false
			}
			i += 2
		case c < 0x80 && uriChars[c]&uriHost == 0:
			return false
		}
	}
	return true
}

// validOptionalPort reports whether p is empty or ':' followed by digits.
func validOptionalPort(p string) bool {
	if p == "" {
		return true
	}
	if p[0] != ':' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if !isDigit(p[i]) {
			return false
		}
	}
	return true
}

// validEscapes reports whether every '%' in s starts "%XX" with two hex
// digits.
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

// isCanonicalPath reports whether the escaped path p is exactly what
// net/url would write for its decoded form: every byte that needs escaping
// in a path is escaped, with upper-case hex, and nothing else is. net/url
// keeps RawPath only when this is false. p's escapes must be well-formed.
func isCanonicalPath(p string) bool {
	const upper = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			if uriChars[c]&uriPath == 0 {
				return false
			}
			continue
		}
		v := unhex(p[i+1])<<4 | unhex(p[i+2])
		if uriChars[v]&uriPath != 0 || p[i+1] != upper[v>>4] || p[i+2] != upper[v&15] {
			return false
		}
		i += 2
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unhex returns the value of the hex digit c.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// Classes of URI characters, as net/url treats them.
const (
	uriPath     = 1 << iota // left unescaped in a path
	uriHost                 // allowed unescaped in a host
	uriUserinfo             // allowed in userinfo
)

// uriChars classifies the ASCII bytes; bytes from 0x80 up are in no class.
var uriChars = func() (t [256]uint8) {
	for c := 0; c < 0x80; c++ {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			t[c] = uriPath | uriHost | uriUserinfo
		}
	}
	for _, c := range "-._~" {
		t[c] = uriPath | uriHost | uriUserinfo
	}
	for _, c := range "$&+,/:;=@" {
		t[c] |= uriPath
	}
	for _, c := range "!$&'()*+,;=:[]<>\"" {
		t[c] |= uriHost
	}
	for _, c := range "!$&'()*+,;=:%@" {
		t[c] |= uriUserinfo
	}
	return t
}()
