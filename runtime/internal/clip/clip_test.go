package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 10, `"abc"`},
		{"a\nb\x00", 10, `"a\nb\x00"`},
		{"abcdef", 3, `"abc"...`},
		{"ab\u00e9", 3, `"ab"...`}, // é is two bytes: not split
		{"\xff", 3, `"\xff"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in, tt.max); got != tt.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	s := strings.Repeat("\u00e9\u20ac", 20)
	for n := range len(s) + 2 {
		p := Prefix(s, n)
		if len(p) > n || !utf8.ValidString(p) || !strings.HasPrefix(s, p) || len(p) < n-3 {
			t.Errorf("Prefix(s, %d) = %q", n, p)
		}
	}
}
