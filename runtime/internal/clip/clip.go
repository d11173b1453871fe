// Package clip quotes values a peer sent for error messages and logs:
// short, on one line, and never a broken UTF-8 sequence.
package clip

import "strconv"

// Quote returns s as a Go-quoted string, so that control characters and
// invalid UTF-8 show as escapes, cut to at most max bytes of s (not inside
// a UTF-8 sequence) with "..." after the closing quote when it was cut.
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(Prefix(s, max)) + "..."
}

// Prefix returns s cut to at most n bytes, backing off to the start of
// the UTF-8 sequence the cut would split.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
