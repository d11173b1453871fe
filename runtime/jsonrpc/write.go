package jsonrpc

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s to dst as a quoted JSON string and returns the
// extended buffer. The output is byte for byte what encoding/json.Marshal
// gives for s: '"', '\\' and control characters are escaped (\n, \r, \t,
// \b and \f by name, the others as \u00XX); so are '<', '>' and '&', as
// \u003c, \u003e and \u0026, and U+2028 and U+2029, which keeps the output
// safe inside HTML and JavaScript; invalid UTF-8 becomes \ufffd.
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, s, utf8.DecodeRuneInString)
}

// AppendStringBytes is AppendString for a byte slice.
func AppendStringBytes(dst []byte, s []byte) []byte {
	return appendString(dst, s, utf8.DecodeRune)
}

// AppendInt appends the decimal form of v to dst.
func AppendInt(dst []byte, v int64) []byte {
	return strconv.AppendInt(dst, v, 10)
}

// AppendUint appends the decimal form of v to dst.
func AppendUint(dst []byte, v uint64) []byte {
	return strconv.AppendUint(dst, v, 10)
}

// AppendBool appends true or false to dst.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendFloat appends v to dst as a JSON number, byte for byte as
// encoding/json.Marshal writes a float64: the shortest decimal that reads
// back as v, in exponent form only below 1e-6 or from 1e21 in magnitude, as
// ECMAScript does. JSON has no NaN or infinity; for those AppendFloat
// returns dst unchanged. Use AppendFloatChecked when v may be one.
func AppendFloat(dst []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dst
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, v, format, -1, 64)
	if format == 'e' {
		// strconv pads the exponent to two digits; ECMAScript does not.
		// Only negative exponents of one digit can occur here (1e-7 to
		// 1e-9), so "e-07" is the one shape to shorten.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// AppendFloatChecked is AppendFloat with an error, and dst unchanged, for
// NaN and the infinities, which JSON cannot represent.
func AppendFloatChecked(dst []byte, v float64) ([]byte, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dst, errors.New("json: unsupported value: " + strconv.FormatFloat(v, 'g', -1, 64))
	}
	return AppendFloat(dst, v), nil
}

// safeInString marks the ASCII bytes that AppendString copies unchanged.
var safeInString = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		switch {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
		default:
			t[c] = true
		}
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString does the work of AppendString and AppendStringBytes. It
// copies runs of bytes that need no escaping in one append each; decode
// reads a multi-byte UTF-8 sequence from the front of its argument.
func appendString[S string | []byte](dst []byte, s S, decode func(S) (rune, int)) []byte {
	dst = append(dst, '"')
	run := 0 // start of the bytes not yet copied
	for i := safeEnd(s, 0); i < len(s); i = safeEnd(s, i) {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[run:i]...)
			dst = appendEscapedByte(dst, c)
			i++
			run = i
			continue
		}
		r, size := decode(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[run:i]...)
			dst = append(dst, `\ufffd`...)
			run = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[run:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[r&0xF])
			run = i + size
		}
		i += size
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"')
}

// safeEnd returns the offset of the first byte at or after i that
// AppendString cannot copy as it is without a closer look, or len(s).
func safeEnd[S string | []byte](s S, i int) int {
	if i < len(s) && (s[i] >= utf8.RuneSelf || !safeInString[s[i]]) {
		return i // escapes often come in clusters
	}
	for ; i+8 <= len(s); i += 8 {
		x := load8(s, i)
		hits := nonASCII(x) | below(x, 0x20) | equal(x, '"') | equal(x, '\\') |
			equal(x, '<') | equal(x, '>') | equal(x, '&')
		if hits != 0 {
			return i + firstHit(hits)
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && safeInString[s[i]] {
		i++
	}
	return i
}

// appendEscapedByte appends the escape for an ASCII byte that cannot appear
// as itself in AppendString's output.
func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
