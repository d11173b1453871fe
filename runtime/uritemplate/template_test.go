package uritemplate

import (
	"errors"
	"slices"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		template string
		offset   int
		msg      string
	}{
		{"{", 0, "unclosed expression"},
		{"a{b", 1, "unclosed expression"},
		{"a{b,", 1, "unclosed expression"},
		{"a{b:3", 1, "unclosed expression"},
		{"x{+", 1, "unclosed expression"},
		{"x{}", 1, "empty expression"},
		{"{+}", 2, "missing variable name"},
		{"{a,}", 3, "missing variable name"},
		{"{,a}", 1, "reserved operator ','"},
		{"{=a}", 1, "reserved operator '='"},
		{"{!a}", 1, "reserved operator '!'"},
		{"{@a}", 1, "reserved operator '@'"},
		{"{|a}", 1, "reserved operator '|'"},
		{"{a-b}", 2, "invalid character '-' in expression"},
		{"{a b}", 2, "invalid character ' ' in expression"},
		{"{-a}", 1, "invalid character '-' in variable name"},
		{"{é}", 1, "invalid character 'é' in variable name"},
		{"{a\xff}", 2, "invalid character '\uFFFD' in expression"},
		{"{a.}", 2, "'.' not followed by a name character in variable name"},
		{"{a..b}", 2, "'.' not followed by a name character in variable name"},
		{"{..a}", 2, "invalid character '.' in variable name"},
		{"{a%2}", 2, "'%' not followed by two hex digits in variable name"},
		{"{a{b}", 2, "invalid character '{' in expression"},
		{"{a:0}", 3, "prefix length must be 1 to 9999"},
		{"{a:}", 3, "prefix length must be 1 to 9999"},
		{"{a:01}", 3, "prefix length must be 1 to 9999"},
		{"{a:10000}", 3, "prefix length must be 1 to 9999"},
		{"{a:99999999999999999999}", 3, "prefix length must be 1 to 9999"},
		{"{a:3*}", 4, "prefix and explode modifiers both given"},
		{"{a*:3}", 3, "prefix and explode modifiers both given"},
		{"{a**}", 3, "invalid character '*' in expression"},
		{"a}b", 1, "unmatched '}'"},
		{"a b", 1, "character ' ' not allowed in a literal"},
		{"a<b", 1, "character '<' not allowed in a literal"},
		{"a|b", 1, "character '|' not allowed in a literal"},
		{"50%", 2, "'%' not followed by two hex digits"},
		{"50%g0", 2, "'%' not followed by two hex digits"},
		{"a\xffb", 1, "invalid UTF-8"},
		{"a\u0085", 1, "character U+0085 not allowed in a literal"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.template)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tc.template, err)
			continue
		}
		if se.Offset != tc.offset || se.Msg != tc.msg || se.Template != tc.template {
			t.Errorf("Parse(%q) error = {%d %q}, want {%d %q}", tc.template, se.Offset, se.Msg, tc.offset, tc.msg)
		}
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse("x{a")
	want := `uritemplate: unclosed expression at offset 1 in "x{a"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestParseAccepts(t *testing.T) {
	for _, s := range []string{
		"",
		"plain",
		"http://example.com/~user/a;b=c?d=e&f#g",
		"%41{a}",
		"café/{x}",
		"{a.b.c,a_1,%41B,A9}",
		"{x:1}{y:9999}{z*}",
		"{+a}{#b}{.c}{/d}{;e}{?f}{&g}",
	} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse(%q): %v", s, err)
		}
	}
}

func TestStringAndVars(t *testing.T) {
	const s = "users://{user}/posts{?limit,offset}{&user,x:3}{/list*}"
	tmpl := mustParse(t, s)
	if tmpl.String() != s {
		t.Errorf("String() = %q, want %q", tmpl.String(), s)
	}
	want := []string{"user", "limit", "offset", "x", "list"}
	got := tmpl.Vars()
	if !slices.Equal(got, want) {
		t.Errorf("Vars() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if tmpl.Vars()[0] != "user" {
		t.Error("Vars() returned the template's own slice")
	}
	if v := mustParse(t, "no/vars").Vars(); len(v) != 0 {
		t.Errorf("Vars() = %q, want none", v)
	}
}
