package jsonrpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The word-at-a-time scans must stop exactly where a byte-at-a-time scan
// stops, whatever byte sits at whatever position, also after another hit.
func TestWordScans(t *testing.T) {
	scans := []struct {
		name string
		fast func([]byte, int) int
		stop func(byte) bool
	}{
		{"plainEnd", plainEnd, func(c byte) bool { return stopInString[c] }},
		{"rawPlainEnd", rawPlainEnd, func(c byte) bool { return c < utf8.RuneSelf && stopInString[c] }},
		{"safeEnd", safeEnd[[]byte], func(c byte) bool { return c >= utf8.RuneSelf || !safeInString[c] }},
		{"safeEnd[string]", func(b []byte, i int) int { return safeEnd(string(b), i) },
			func(c byte) bool { return c >= utf8.RuneSelf || !safeInString[c] }},
	}
	for _, sc := range scans {
		for c := range 256 {
			for pos := range 20 {
				for _, second := range []byte{'a', 0x00, 0x1f, 0x7f, 0x80, 0xff, '"'} {
					b := []byte(strings.Repeat("a", 20))
					b[pos] = byte(c)
					if pos+1 < len(b) {
						b[pos+1] = second // a neighbour that may borrow or carry
					}
					for start := range min(pos+1, 10) {
						want := start
						for want < len(b) && !sc.stop(b[want]) {
							want++
						}
						if got := sc.fast(b, start); got != want {
							t.Fatalf("%s(%q, %d) = %d, want %d", sc.name, b, start, got, want)
						}
					}
				}
			}
		}
	}
}
