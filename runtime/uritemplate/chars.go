package uritemplate

import "strings"

// Character classes from RFC 3986 and RFC 6570, one bit each.
const (
	classUnreserved = 1 << iota // ALPHA / DIGIT / "-" / "." / "_" / "~"
	classReserved               // gen-delims / sub-delims
	classLiteral                // ASCII allowed as is in a template literal
	classVarchar                // ALPHA / DIGIT / "_", the rest of varchar being pct-encoded
)

var classes = func() (t [256]uint8) {
	for c := range 128 {
		b := byte(c)
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
			t[c] |= classUnreserved | classVarchar
		case b == '_':
			t[c] |= classUnreserved | classVarchar
		case b == '-' || b == '.' || b == '~':
			t[c] |= classUnreserved
		case strings.IndexByte(":/?#[]@!$&'()*+,;=", b) >= 0:
			t[c] |= classReserved
		}
		// RFC 6570 section 2.1: any character but CTL, SP, DQUOTE, "'",
		// "%" (which must start a pct-encoded triplet), "<", ">", "\",
		// "^", "`", "{", "|" and "}".
		if b > ' ' && b < 0x7f && strings.IndexByte("\"'%<>\\^`{|}", b) < 0 {
			t[c] |= classLiteral
		}
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// isTriplet reports whether s holds a pct-encoded triplet at i.
func isTriplet(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2])
}

const upperHex = "0123456789ABCDEF"

// escape writes s to b, percent-encoding every byte outside the unreserved
// set, or, when reserved is set, outside the unreserved and reserved sets
// and not already part of a pct-encoded triplet.
func escape(b *strings.Builder, s string, reserved bool) {
	allowed := uint8(classUnreserved)
	if reserved {
		allowed |= classReserved
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case classes[c]&allowed != 0:
			b.WriteByte(c)
		case reserved && isTriplet(s, i):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
}

// unescape decodes the pct-encoded triplets in s. A '%' that does not start
// a triplet is kept as it is: URIs seen in the wild are not always well
// formed, and dropping or rejecting the byte would help nobody.
func unescape(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if isTriplet(s, i) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// decodedLen counts the characters of s once its triplets are decoded,
// counting every byte that does not continue a UTF-8 sequence.
func decodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isTriplet(s, i) {
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
