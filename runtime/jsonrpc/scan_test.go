package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// errText renders err for comparison in tables: "" for nil, otherwise the
// error's type and message, which carries the offset.
func errText(err error) string {
	switch err.(type) {
	case nil:
		return ""
	case *SyntaxError:
		return "syntax: " + err.Error()
	case *TypeError:
		return "type: " + err.Error()
	case *NumberError:
		return "number: " + err.Error()
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func scanner(in string) *Scanner {
	s := new(Scanner)
	s.Reset([]byte(in))
	return s
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{
		KindInvalid: "invalid",
		KindObject:  "object",
		KindArray:   "array",
		KindString:  "string",
		KindNumber:  "number",
		KindBool:    "boolean",
		KindNull:    "null",
		Kind(200):   "invalid",
	}
	for k, w := range want {
		if got := k.String(); got != w {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, w)
		}
	}
}

func TestPeek(t *testing.T) {
	tests := []struct {
		in     string
		want   Kind
		offset int // after Peek
	}{
		{"{}", KindObject, 0},
		{" \t\r\n[", KindArray, 4},
		{`"x"`, KindString, 0},
		{"-1", KindNumber, 0},
		{"7", KindNumber, 0},
		{"true", KindBool, 0},
		{"fals", KindBool, 0}, // only the first byte counts
		{"null", KindNull, 0},
		{"", KindInvalid, 0},
		{"   ", KindInvalid, 3},
		{"}", KindInvalid, 0},
		{"+1", KindInvalid, 0},
		{"\xef\xbb\xbf{}", KindInvalid, 0}, // a byte order mark is not JSON
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		if got := s.Peek(); got != tt.want || s.Offset() != tt.offset {
			t.Errorf("Peek(%q) = %v at offset %d, want %v at %d", tt.in, got, s.Offset(), tt.want, tt.offset)
		}
		if got := s.Peek(); got != tt.want {
			t.Errorf("second Peek(%q) = %v, want %v: Peek consumed the value", tt.in, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: `"abc"`, want: "abc"},
		{in: " \n\"abc\" ", want: "abc"},
		{in: `""`, want: ""},
		{in: `"\"\\\/\b\f\n\r\t"`, want: "\"\\/\b\f\n\r\t"},
		{in: `"\u0041\u00e9\u4E2D\u0000"`, want: "Aé中\x00"},
		{in: `"\ud83d\ude00"`, want: "😀"},
		{in: `"\uD83D\uDE00!"`, want: "😀!"},
		{in: `"é中😀"`, want: "é中😀"},
		{in: "\"\x7f\"", want: "\x7f"},
		// Lone surrogates become U+FFFD without swallowing what follows.
		{in: `"\ud800"`, want: "\uFFFD"},
		{in: `"\ud800x"`, want: "\uFFFDx"},
		{in: `"\ud800\n"`, want: "\uFFFD\n"},
		{in: `"\ud800\u0041"`, want: "\uFFFDA"},
		{in: `"\ud800\ud800\udc00"`, want: "\uFFFD\U00010000"},
		{in: `"\udc00\ud800"`, want: "\uFFFD\uFFFD"},
		{in: `"\udbff\udfff"`, want: "\U0010FFFF"},
		// Invalid UTF-8 becomes U+FFFD, one per bad byte, as in encoding/json.
		{in: "\"a\xffb\"", want: "a\uFFFDb"},
		{in: "\"\xc3\"", want: "\uFFFD"},
		{in: "\"\xed\xa0\x80\"", want: "\uFFFD\uFFFD\uFFFD"}, // an encoded surrogate
		{in: "\"\xc0\xaf\"", want: "\uFFFD\uFFFD"},           // overlong
		{in: "\"\xef\xbf\xbd\"", want: "\uFFFD"},             // a real U+FFFD is kept
		{in: "\"\\n\xff\"", want: "\n\uFFFD"},

		{in: `"abc`, err: "syntax: json: unexpected end of input at offset 4"},
		{in: `"a\`, err: "syntax: json: unexpected end of input at offset 3"},
		{in: `"a\u12`, err: "syntax: json: unexpected end of input at offset 6"},
		{in: `"\x"`, err: `syntax: json: invalid character 'x' in string escape at offset 2`},
		{in: `"\'"`, err: `syntax: json: invalid character '\'' in string escape at offset 2`},
		{in: `"\u12G4"`, err: `syntax: json: invalid character 'G' in string escape at offset 5`},
		{in: `"\ud800\u12G4"`, err: `syntax: json: invalid character 'G' in string escape at offset 11`},
		{in: `"\U0041"`, err: `syntax: json: invalid character 'U' in string escape at offset 2`},
		{in: "\"a\nb\"", err: `syntax: json: invalid control character '\n' in string; it must be escaped at offset 2`},
		{in: "\"\\n\x01\"", err: `syntax: json: invalid control character '\x01' in string; it must be escaped at offset 3`},
		{in: "\"\xff\x1f\"", err: `syntax: json: invalid control character '\x1f' in string; it must be escaped at offset 2`},
		{in: `'a'`, err: `syntax: json: invalid character '\'' looking for beginning of value at offset 0`},
		{in: ``, err: "syntax: json: unexpected end of input at offset 0"},
		{in: `  `, err: "syntax: json: unexpected end of input at offset 2"},
		{in: `12`, err: "type: json: expected string, got number at offset 0"},
		{in: ` {}`, err: "type: json: expected string, got object at offset 1"},
		{in: `null`, err: "type: json: expected string, got null at offset 0"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		got, err := s.String()
		if errText(err) != tt.err {
			t.Errorf("String(%q): error %q, want %q", tt.in, errText(err), tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := s.End(); err != nil {
			t.Errorf("String(%q) left data: %v", tt.in, err)
		}
		// StringBytes reads the same, and encoding/json agrees.
		b, err := scanner(tt.in).StringBytes()
		if err != nil || string(b) != tt.want {
			t.Errorf("StringBytes(%q) = %q, %v; want %q", tt.in, b, err, tt.want)
		}
		var std string
		if err := json.Unmarshal([]byte(tt.in), &std); err != nil || std != tt.want {
			t.Errorf("json.Unmarshal(%q) = %q, %v; the table wants %q", tt.in, std, err, tt.want)
		}
	}
}

// A TypeError leaves the value in place, so the caller can fall back.
func TestTypeErrorConsumesNothing(t *testing.T) {
	s := scanner(` [1, "two"]`)
	_, err := s.String()
	var te *TypeError
	if !errors.As(err, &te) || te.Want != "string" || te.Got != KindArray || te.Offset != 1 {
		t.Fatalf("String() error = %#v, want TypeError{1, string, array}", err)
	}
	raw, err := s.Raw()
	if err != nil || string(raw) != `[1, "two"]` {
		t.Fatalf("Raw() after TypeError = %q, %v", raw, err)
	}
}

func TestStringBytesAliasing(t *testing.T) {
	in := []byte("[\"plain é\", \"esc\\naped\", \"bad \xff\"]")
	var s Scanner
	s.Reset(in)
	within := func(b []byte) bool {
		for i := range in {
			if &in[i] == &b[0] {
				return true
			}
		}
		return false
	}
	want := []struct {
		str     string
		aliases bool
	}{
		{"plain é", true},
		{"esc\naped", false},
		{"bad \uFFFD", false},
	}
	if err := s.ArrayStart(); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if ok, err := s.NextElem(); !ok || err != nil {
			t.Fatalf("NextElem() = %v, %v", ok, err)
		}
		b, err := s.StringBytes()
		if err != nil || string(b) != w.str {
			t.Fatalf("StringBytes() = %q, %v; want %q", b, err, w.str)
		}
		if within(b) != w.aliases {
			t.Errorf("StringBytes() for %q aliases the input: %v, want %v", w.str, within(b), w.aliases)
		}
	}
}

// TestKeySurvivesRaw checks what NextKey promises: an escaped key, held
// in the Scanner's buffer, is intact after Raw and Skip read values full
// of escapes.
func TestKeySurvivesRaw(t *testing.T) {
	var s Scanner
	s.Reset([]byte(`{"k\u0065y":{"a\nb":"c\td"},"s\u006bip":["\u00e9\""]}`))
	if err := s.ObjectStart(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"key", "skip"} {
		k, ok, err := s.NextKey()
		if !ok || err != nil {
			t.Fatalf("NextKey() = %q, %v, %v", k, ok, err)
		}
		if want == "key" {
			_, err = s.Raw()
		} else {
			err = s.Skip()
		}
		if err != nil || string(k) != want {
			t.Errorf("after reading its value, the key is %q (%v), want %q", k, err, want)
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "0", want: "0"},
		{in: "-0", want: "-0"},
		{in: " 12 ", want: "12"},
		{in: "-1.25e+10", want: "-1.25e+10"},
		{in: "1E5", want: "1E5"},
		{in: "0.0e-0", want: "0.0e-0"},
		{in: "123456789012345678901234567890", want: "123456789012345678901234567890"},
		{in: "1,", want: "1"}, // the comma is for the caller
		{in: "1x", want: "1"},

		{in: "01", err: "syntax: json: invalid number: leading zero at offset 0"},
		{in: "-01", err: "syntax: json: invalid number: leading zero at offset 1"},
		{in: "00", err: "syntax: json: invalid number: leading zero at offset 0"},
		{in: "-", err: "syntax: json: unexpected end of input at offset 1"},
		{in: "-a", err: "syntax: json: invalid character 'a' in number; want digit at offset 1"},
		{in: "- 1", err: "syntax: json: invalid character ' ' in number; want digit at offset 1"},
		{in: "1.", err: "syntax: json: unexpected end of input at offset 2"},
		{in: "1.e5", err: "syntax: json: invalid character 'e' in number; want digit after decimal point at offset 2"},
		{in: "1e", err: "syntax: json: unexpected end of input at offset 2"},
		{in: "1e+", err: "syntax: json: unexpected end of input at offset 3"},
		{in: "1e+-1", err: "syntax: json: invalid character '-' in number; want digit in exponent at offset 3"},
		{in: "-Infinity", err: "syntax: json: invalid character 'I' in number; want digit at offset 1"},
		{in: ".5", err: "syntax: json: invalid character '.' looking for beginning of value at offset 0"},
		{in: "+1", err: "syntax: json: invalid character '+' looking for beginning of value at offset 0"},
		{in: "NaN", err: "syntax: json: invalid character 'N' looking for beginning of value at offset 0"},
		{in: `"1"`, err: "type: json: expected number, got string at offset 0"},
		{in: "", err: "syntax: json: unexpected end of input at offset 0"},
	}
	for _, tt := range tests {
		got, err := scanner(tt.in).Number()
		if errText(err) != tt.err || err == nil && string(got) != tt.want {
			t.Errorf("Number(%q) = %q, %q; want %q, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
	}
}

func TestInt64(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{in: "0", want: 0},
		{in: "-0", want: 0},
		{in: "42", want: 42},
		{in: "-42", want: -42},
		{in: "123456789012345678", want: 123456789012345678},
		{in: "1234567890123456789", want: 1234567890123456789},
		{in: "9223372036854775807", want: math.MaxInt64},
		{in: "-9223372036854775808", want: math.MinInt64},
		{in: "0009", err: "syntax: json: invalid number: leading zero at offset 0"},
		// Integral values written as JSON Schema allows.
		{in: "1.0", want: 1},
		{in: "-1.000e0", want: -1},
		{in: "1e3", want: 1000},
		{in: "1E+3", want: 1000},
		{in: "12.5e1", want: 125},
		{in: "100e-2", want: 1},
		{in: "0.05e2", want: 5},
		{in: "0.0", want: 0},
		{in: "0e99999999999999999999999", want: 0},
		{in: "10000000000000000000e-1", want: 1e18},
		{in: "9.223372036854775807e18", want: math.MaxInt64},
		{in: "-92233720368547758080e-1", want: math.MinInt64},
		{in: "92233720368547758070000e-4", want: math.MaxInt64},

		{in: "1.5", err: "number: json: number 1.5 is not an integer at offset 0"},
		{in: " 1e-3", err: "number: json: number 1e-3 is not an integer at offset 1"},
		{in: "0.1", err: "number: json: number 0.1 is not an integer at offset 0"},
		{in: "1.00000000000000000000001", err: "number: json: number 1.00000000000000000000001 is not an integer at offset 0"},
		{in: "1e-99999999999999999999999", err: "number: json: number 1e-99999999999999999999999 is not an integer at offset 0"},
		{in: "9223372036854775808", err: "number: json: number 9223372036854775808 is out of range for int64 at offset 0"},
		{in: "-9223372036854775809", err: "number: json: number -9223372036854775809 is out of range for int64 at offset 0"},
		{in: "18446744073709551616", err: "number: json: number 18446744073709551616 is out of range for int64 at offset 0"},
		{in: "1e19", err: "number: json: number 1e19 is out of range for int64 at offset 0"},
		{in: "9.3e18", err: "number: json: number 9.3e18 is out of range for int64 at offset 0"},
		{in: "1e99999999999999999999999", err: "number: json: number 1e99999999999999999999999 is out of range for int64 at offset 0"},
		{in: "true", err: "type: json: expected integer, got boolean at offset 0"},
		{in: "1.", err: "syntax: json: unexpected end of input at offset 2"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		got, err := s.Int64()
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("Int64(%q) = %d, %q; want %d, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		var ne *NumberError
		if errors.As(err, &ne) && s.End() != nil {
			t.Errorf("Int64(%q): a NumberError must consume the number", tt.in)
		}
	}
}

func TestFloat64(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{in: "0", want: 0},
		{in: "1.5", want: 1.5},
		{in: "-2.5e-3", want: -2.5e-3},
		{in: "1e308", want: 1e308},
		{in: "5e-324", want: 5e-324},
		{in: "1e-400", want: 0}, // underflow rounds to zero, as in encoding/json
		{in: "0.1000000000000000055511151231257827021181583404541015625", want: 0.1},
		{in: "1e400", err: "number: json: number 1e400 is out of range for float64 at offset 0"},
		{in: "-1e400", err: "number: json: number -1e400 is out of range for float64 at offset 0"},
		{in: "[1]", err: "type: json: expected number, got array at offset 0"},
		{in: "01.5", err: "syntax: json: invalid number: leading zero at offset 0"},
	}
	for _, tt := range tests {
		got, err := scanner(tt.in).Float64()
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("Float64(%q) = %v, %q; want %v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
	}
	if got, err := scanner("-0").Float64(); err != nil || !math.Signbit(got) {
		t.Errorf("Float64(-0) = %v, %v; want negative zero", got, err)
	}
}

func TestBool(t *testing.T) {
	tests := []struct {
		in   string
		want bool
		err  string
	}{
		{in: "true", want: true},
		{in: " false ", want: false},
		{in: "tru", err: "syntax: json: unexpected end of input at offset 3"},
		{in: "trUe", err: "syntax: json: invalid character 'U' in literal true at offset 2"},
		{in: "fals", err: "syntax: json: unexpected end of input at offset 4"},
		{in: "f", err: "syntax: json: unexpected end of input at offset 1"},
		{in: `"true"`, err: "type: json: expected boolean, got string at offset 0"},
		{in: "null", err: "type: json: expected boolean, got null at offset 0"},
		{in: "True", err: "syntax: json: invalid character 'T' looking for beginning of value at offset 0"},
	}
	for _, tt := range tests {
		got, err := scanner(tt.in).Bool()
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("Bool(%q) = %v, %q; want %v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
	}
}

func TestNull(t *testing.T) {
	tests := []struct {
		in     string
		want   bool
		offset int // after the call
		err    string
	}{
		{in: "null", want: true, offset: 4},
		{in: " null ", want: true, offset: 5},
		{in: "1", want: false, offset: 0},
		{in: `"null"`, want: false, offset: 0},
		{in: "", want: false, offset: 0},
		{in: "}", want: false, offset: 0},
		{in: "nul", err: "syntax: json: unexpected end of input at offset 3"},
		{in: "nulL", err: "syntax: json: invalid character 'L' in literal null at offset 3"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		got, err := s.Null()
		if errText(err) != tt.err || err == nil && (got != tt.want || s.Offset() != tt.offset) {
			t.Errorf("Null(%q) = %v, %q at offset %d; want %v, %q at %d", tt.in, got, errText(err), s.Offset(), tt.want, tt.err, tt.offset)
		}
	}
	// When the value is not null, it is still there to read.
	s := scanner(" 7")
	if null, err := s.Null(); null || err != nil {
		t.Fatalf("Null() = %v, %v", null, err)
	}
	if v, err := s.Int64(); v != 7 || err != nil {
		t.Errorf("Int64() after Null() = %d, %v; want 7", v, err)
	}
}

// member is one step of walking an object in the tests below.
type member struct {
	key   string
	value string // raw
}

// walkObject reads an object with ObjectStart and NextKey, taking each value
// with Raw.
func walkObject(s *Scanner) ([]member, error) {
	if err := s.ObjectStart(); err != nil {
		return nil, err
	}
	var ms []member
	for {
		key, ok, err := s.NextKey()
		if err != nil || !ok {
			return ms, err
		}
		raw, err := s.Raw()
		if err != nil {
			return ms, err
		}
		ms = append(ms, member{string(key), string(raw)})
	}
}

func TestObject(t *testing.T) {
	tests := []struct {
		in   string
		want []member
		err  string
	}{
		{in: "{}"},
		{in: " { \n } "},
		{in: `{"a":1}`, want: []member{{"a", "1"}}},
		{in: ` { "a" : 1 , "b":[true, null] ,"c" :{"d":"e"}} `, want: []member{{"a", "1"}, {"b", "[true, null]"}, {"c", `{"d":"e"}`}}},
		{in: `{"a\u0062\n":"x","a":"y"}`, want: []member{{"ab\n", `"x"`}, {"a", `"y"`}}},
		{in: `{"":0}`, want: []member{{"", "0"}}},

		{in: `{"a":1,}`, want: []member{{"a", "1"}}, err: "syntax: json: trailing comma before '}' at offset 7"},
		{in: `{"a":1 , }`, want: []member{{"a", "1"}}, err: "syntax: json: trailing comma before '}' at offset 9"},
		{in: `{,}`, err: "syntax: json: invalid character ',' looking for object key at offset 1"},
		{in: `{"a" 1}`, err: "syntax: json: invalid character '1' after object key; want ':' at offset 5"},
		{in: `{"a"`, err: "syntax: json: unexpected end of input at offset 4"},
		{in: `{"a":1 "b":2}`, want: []member{{"a", "1"}}, err: `syntax: json: invalid character '"' after object member; want ',' or '}' at offset 7`},
		{in: `{"a":1]`, want: []member{{"a", "1"}}, err: `syntax: json: invalid character ']' after object member; want ',' or '}' at offset 6`},
		{in: `{1:2}`, err: "syntax: json: invalid character '1' looking for object key at offset 1"},
		{in: `{'a':2}`, err: `syntax: json: invalid character '\'' looking for object key at offset 1`},
		{in: `{"a":1`, want: []member{{"a", "1"}}, err: "syntax: json: unexpected end of input at offset 6"},
		{in: `{"a":1,`, want: []member{{"a", "1"}}, err: "syntax: json: unexpected end of input at offset 7"},
		{in: `{`, err: "syntax: json: unexpected end of input at offset 1"},
		{in: `{"a":}`, err: "syntax: json: invalid character '}' looking for beginning of value at offset 5"},
		{in: `{"a\x":1}`, err: "syntax: json: invalid character 'x' in string escape at offset 4"},
		{in: `[]`, err: "type: json: expected object, got array at offset 0"},
		{in: ``, err: "syntax: json: unexpected end of input at offset 0"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		got, err := walkObject(s)
		if err == nil {
			err = s.End()
		}
		if errText(err) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("walk %q = %v, %q; want %v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
	}
}

func TestArray(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		err  string
	}{
		{in: "[]"},
		{in: " [ ] "},
		{in: "[1]", want: []int64{1}},
		{in: "[1, 2 ,3 ]", want: []int64{1, 2, 3}},

		{in: "[1,]", want: []int64{1}, err: "syntax: json: trailing comma before ']' at offset 3"},
		{in: "[,1]", err: "syntax: json: invalid character ',' looking for beginning of value at offset 1"},
		{in: "[1 2]", want: []int64{1}, err: "syntax: json: invalid character '2' after array element; want ',' or ']' at offset 3"},
		{in: "[1}", want: []int64{1}, err: "syntax: json: invalid character '}' after array element; want ',' or ']' at offset 2"},
		{in: "[1", want: []int64{1}, err: "syntax: json: unexpected end of input at offset 2"},
		{in: "[1,", want: []int64{1}, err: "syntax: json: unexpected end of input at offset 3"},
		{in: "[", err: "syntax: json: unexpected end of input at offset 1"},
		{in: "[1]]", want: []int64{1}, err: "syntax: json: unexpected data after top-level value at offset 3"},
		{in: "{}", err: "type: json: expected array, got object at offset 0"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		var got []int64
		err := s.ArrayStart()
		for err == nil {
			var more bool
			if more, err = s.NextElem(); err != nil || !more {
				break
			}
			var v int64
			if v, err = s.Int64(); err == nil {
				got = append(got, v)
			}
		}
		if err == nil {
			err = s.End()
		}
		if errText(err) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("walk %q = %v, %q; want %v, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
	}
}

func TestNested(t *testing.T) {
	s := scanner(`{"a":[{"b":[]},{}],"c":{"d":[[1]]}}`)
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	key := func(want string) {
		t.Helper()
		k, ok, err := s.NextKey()
		if err != nil || !ok || string(k) != want {
			t.Fatalf("NextKey() = %q, %v, %v; want %q", k, ok, err, want)
		}
	}
	objectEnd := func() {
		t.Helper()
		if _, ok, err := s.NextKey(); ok || err != nil {
			t.Fatalf("NextKey() = %v, %v; want end of object", ok, err)
		}
	}
	elem := func(want bool) {
		t.Helper()
		if ok, err := s.NextElem(); ok != want || err != nil {
			t.Fatalf("NextElem() = %v, %v; want %v", ok, err, want)
		}
	}
	step("ObjectStart", s.ObjectStart())
	key("a")
	step("ArrayStart", s.ArrayStart())
	elem(true)
	step("ObjectStart", s.ObjectStart())
	key("b")
	step("ArrayStart", s.ArrayStart())
	elem(false)
	objectEnd()
	elem(true)
	step("ObjectStart", s.ObjectStart())
	objectEnd()
	elem(false)
	key("c")
	step("ObjectStart", s.ObjectStart())
	key("d")
	step("Skip", s.Skip())
	objectEnd()
	objectEnd()
	step("End", s.End())
	if s.depth != 0 {
		t.Errorf("depth after the walk = %d, want 0", s.depth)
	}
}

func TestRawAndSkip(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: ` {"a": [1, 2.5e3, "x\n", true, false, null, {}, []]} `, want: `{"a": [1, 2.5e3, "x\n", true, false, null, {}, []]}`},
		{in: "\"\xff\"", want: "\"\xff\""}, // invalid UTF-8 is not a syntax error
		{in: `"\ud800"`, want: `"\ud800"`},
		{in: `-0.5E-2`, want: `-0.5E-2`},
		{in: `[[[]]]`, want: `[[[]]]`},
		{in: `{"a":{"b":{}}}`, want: `{"a":{"b":{}}}`},
		{in: `[1,[2,{"a":[3]}],4]`, want: `[1,[2,{"a":[3]}],4]`},

		{in: ``, err: "syntax: json: unexpected end of input at offset 0"},
		{in: `[1,]`, err: "syntax: json: trailing comma before ']' at offset 3"},
		{in: `{"a":1,}`, err: "syntax: json: trailing comma before '}' at offset 7"},
		{in: `[1 2]`, err: "syntax: json: invalid character '2' after array element; want ',' or ']' at offset 3"},
		{in: `{"a":1 "b":2}`, err: `syntax: json: invalid character '"' after object member; want ',' or '}' at offset 7`},
		{in: `{"a" 1}`, err: "syntax: json: invalid character '1' after object key; want ':' at offset 5"},
		{in: `{1:1}`, err: "syntax: json: invalid character '1' looking for object key at offset 1"},
		{in: `[1}`, err: "syntax: json: invalid character '}' after array element; want ',' or ']' at offset 2"},
		{in: `{"a":1]`, err: "syntax: json: invalid character ']' after object member; want ',' or '}' at offset 6"},
		{in: `[{]`, err: "syntax: json: invalid character ']' looking for object key at offset 2"},
		{in: `[`, err: "syntax: json: unexpected end of input at offset 1"},
		{in: `[[1]`, err: "syntax: json: unexpected end of input at offset 4"},
		{in: `{"a":[1,{"b":2}`, err: "syntax: json: unexpected end of input at offset 15"},
		{in: `[01]`, err: "syntax: json: invalid number: leading zero at offset 1"},
		{in: `[nul]`, err: "syntax: json: invalid character ']' in literal null at offset 4"},
		{in: `[True]`, err: "syntax: json: invalid character 'T' looking for beginning of value at offset 1"},
		{in: `"\a"`, err: "syntax: json: invalid character 'a' in string escape at offset 2"},
		{in: `"\u00"`, err: `syntax: json: invalid character '"' in string escape at offset 5`},
		{in: "\"\t\"", err: `syntax: json: invalid control character '\t' in string; it must be escaped at offset 1`},
		{in: `"abc`, err: "syntax: json: unexpected end of input at offset 4"},
		{in: `"abc\`, err: "syntax: json: unexpected end of input at offset 5"},
		{in: `]`, err: "syntax: json: invalid character ']' looking for beginning of value at offset 0"},
		{in: "\x00", err: `syntax: json: invalid character '\x00' looking for beginning of value at offset 0`},
		{in: "\xff", err: "syntax: json: invalid character 0xFF looking for beginning of value at offset 0"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		got, err := s.Raw()
		if errText(err) != tt.err || err == nil && string(got) != tt.want {
			t.Errorf("Raw(%q) = %q, %q; want %q, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		if err == nil {
			if err := s.End(); err != nil {
				t.Errorf("End() after Raw(%q): %v", tt.in, err)
			}
		}
		s.Reset([]byte(tt.in))
		if err := s.Skip(); errText(err) != tt.err {
			t.Errorf("Skip(%q) = %q, want %q", tt.in, errText(err), tt.err)
		}
	}
}

func TestEnd(t *testing.T) {
	tests := []struct{ in, err string }{
		{in: "1"},
		{in: "1 \t\r\n"},
		{in: "1 2", err: "syntax: json: unexpected data after top-level value at offset 2"},
		{in: "1x", err: "syntax: json: unexpected data after top-level value at offset 1"},
		{in: "{} {}", err: "syntax: json: unexpected data after top-level value at offset 3"},
		{in: "1\x00", err: "syntax: json: unexpected data after top-level value at offset 1"},
	}
	for _, tt := range tests {
		s := scanner(tt.in)
		if err := s.Skip(); err != nil {
			t.Fatalf("Skip(%q): %v", tt.in, err)
		}
		if err := s.End(); errText(err) != tt.err {
			t.Errorf("End() after %q = %q, want %q", tt.in, errText(err), tt.err)
		}
	}
}

// nest returns a document nested n levels deep around a 0.
func nest(n int, open, close string) string {
	return strings.Repeat(open, n) + "0" + strings.Repeat(close, n)
}

func TestMaxDepth(t *testing.T) {
	// With MaxDepth 2, two levels pass and a third fails, however it is read.
	s := &Scanner{MaxDepth: 2}
	s.Reset([]byte("[[1]]"))
	for range 2 {
		if err := s.ArrayStart(); err != nil {
			t.Fatalf("ArrayStart: %v", err)
		}
		if ok, err := s.NextElem(); !ok || err != nil {
			t.Fatalf("NextElem() = %v, %v", ok, err)
		}
	}

	const tooDeep = "syntax: json: nesting deeper than 2 at offset 2"
	s.Reset([]byte(`[{"a":[]}]`))
	_ = s.ArrayStart()
	_, _ = s.NextElem()
	_ = s.ObjectStart()
	_, _, _ = s.NextKey()
	if err := s.ArrayStart(); errText(err) != "syntax: json: nesting deeper than 2 at offset 6" {
		t.Errorf("third ArrayStart: %q", errText(err))
	}

	s.Reset([]byte("[[[]]]"))
	if err := s.Skip(); errText(err) != tooDeep {
		t.Errorf("Skip: %q, want %q", errText(err), tooDeep)
	}
	// Levels opened before Skip count too.
	s.Reset([]byte("[[[]]]"))
	_ = s.ArrayStart()
	_, _ = s.NextElem()
	if _, err := s.Raw(); errText(err) != tooDeep {
		t.Errorf("Raw inside an array: %q, want %q", errText(err), tooDeep)
	}
	// Reset keeps MaxDepth and forgets open containers.
	s.Reset([]byte("[[]]"))
	if err := s.Skip(); err != nil {
		t.Errorf("Skip after Reset: %v", err)
	}

	// The default, and larger limits.
	for _, tt := range []struct {
		max, depth int
		ok         bool
	}{
		{0, DefaultMaxDepth, true},
		{0, DefaultMaxDepth + 1, false},
		{-1, DefaultMaxDepth + 1, false},
		{5000, 5000, true},
		{5000, 5001, false},
	} {
		s := &Scanner{MaxDepth: tt.max}
		for _, doc := range []string{nest(tt.depth, "[", "]"), nest(tt.depth, `{"":`, "}")} {
			s.Reset([]byte(doc))
			err := s.Skip()
			if (err == nil) != tt.ok {
				t.Errorf("MaxDepth %d, depth %d %.2q...: Skip() = %v, want ok %v", tt.max, tt.depth, doc, err, tt.ok)
			}
		}
	}
}

// Skip keeps the kind of each open container beyond the first 64 in a
// spilled stack; closing the wrong kind must be caught at every level.
func TestSkipDeepMixed(t *testing.T) {
	const depth = 300
	var open, close strings.Builder
	kinds := make([]bool, depth) // true for an object
	for i := range kinds {
		kinds[i] = i%3 == 0 || i%7 == 0
		if kinds[i] {
			open.WriteString(`{"k":`)
		} else {
			open.WriteString(`[0,`)
		}
	}
	for i := depth - 1; i >= 0; i-- {
		if kinds[i] {
			close.WriteString(`,"z":1}`)
		} else {
			close.WriteString(`]`)
		}
	}
	doc := open.String() + "1" + close.String()
	s := new(Scanner)
	for range 2 { // the second round reuses the spilled stack
		s.Reset([]byte(doc))
		if err := s.Skip(); err != nil {
			t.Fatalf("Skip of a valid deep document: %v", err)
		}
	}
	if !json.Valid([]byte(doc)) {
		t.Fatal("the test document is not valid JSON")
	}
	// Swap the closing bracket at each level in turn.
	for level := range depth {
		closes := []byte(close.String())
		// The closing bracket of level L is the (depth-L)th ']' or '}' in close.
		n := depth - level
		for j, c := range closes {
			if c == ']' || c == '}' {
				n--
				if n == 0 {
					closes[j] = ']' + '}' - c
					break
				}
			}
		}
		bad := open.String() + "1" + string(closes)
		s.Reset([]byte(bad))
		if err := s.Skip(); err == nil {
			t.Fatalf("Skip accepted a document whose level %d closes with the wrong bracket", level)
		}
		if json.Valid([]byte(bad)) {
			t.Fatalf("json.Valid accepted level %d with the wrong bracket", level)
		}
	}
}

func TestReset(t *testing.T) {
	var s Scanner
	s.Reset([]byte(`{"a\n":1}`))
	_ = s.ObjectStart()
	if _, _, err := s.NextKey(); err != nil {
		t.Fatal(err)
	}
	s.Reset([]byte(`"x"`))
	if s.Offset() != 0 || s.depth != 0 {
		t.Errorf("after Reset: offset %d, depth %d", s.Offset(), s.depth)
	}
	if got, err := s.String(); got != "x" || err != nil {
		t.Errorf("String() after Reset = %q, %v", got, err)
	}
	// The zero Scanner is an empty document.
	var z Scanner
	if z.Peek() != KindInvalid || z.End() != nil {
		t.Error("the zero Scanner is not an empty document")
	}
}

// decodeAny reads one value with the structured API, the way generated code
// does, into the Go values encoding/json uses for an interface.
func decodeAny(s *Scanner) (any, error) {
	switch s.Peek() {
	case KindObject:
		if err := s.ObjectStart(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			key, ok, err := s.NextKey()
			if err != nil || !ok {
				return m, err
			}
			k := string(key)
			if m[k], err = decodeAny(s); err != nil {
				return nil, err
			}
		}
	case KindArray:
		if err := s.ArrayStart(); err != nil {
			return nil, err
		}
		a := []any{}
		for {
			ok, err := s.NextElem()
			if err != nil || !ok {
				return a, err
			}
			v, err := decodeAny(s)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case KindString:
		return s.String()
	case KindNumber:
		return s.Float64()
	case KindBool:
		return s.Bool()
	case KindNull:
		_, err := s.Null()
		return nil, err
	}
	return nil, s.Skip() // for the error
}

// corpus holds documents for the differential tests: valid ones, and invalid
// ones near the edges of the grammar.
var corpus = []string{
	// Valid.
	`null`, `true`, `false`, `0`, `-0`, `1`, `-1`, `0.5`, `-0.5e-10`, `1E400`, `1e-400`,
	`123456789012345678901234567890`, `""`, `"a"`, `"\u0000"`, `"\ud800"`, `"\udc00\ud800"`,
	`"\ud83d\ude00"`, `"\/"`, "\"\x7f\"", "\"\xff\xfe\"", "\"\xed\xa0\x80\"", `"<&>"`,
	"\"\u2028\"", `[]`, `{}`, `[[]]`, `[{}]`, `{"a":{}}`, ` [ 1 , 2 ] `, "\t{\"a\"\n:\r1}\n",
	`{"a":1,"a":2}`, `{"":""}`, `[1,"2",[3],{"4":5},true,false,null]`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":[1.5,-2e3]}}}`,
	// Invalid.
	``, ` `, `nul`, `nulll`, `True`, `tru`, `01`, `-01`, `00`, `-`, `+1`, `.5`, `1.`, `1.e1`, `1e`,
	`1e+`, `0x1`, `NaN`, `Infinity`, `-Infinity`, `1 2`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1,}`,
	`{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:1}`, `{'a':1}`, `{"a":1]`, `[1}`, `[`, `]`, `{`,
	`}`, `"`, `"\`, `"\u12"`, `"\u12g4"`, `"\x"`, "\"\x00\"", "\"\n\"", "\"\x1f\"", "\xef\xbb\xbf1",
	"1\x00", `[1]]`, `{}}`, `[]{}`, `"a"b`, `/* */1`, `1//`,
}

func TestDifferentialValid(t *testing.T) {
	for _, doc := range corpus {
		checkAgainstStdlib(t, []byte(doc))
	}
}

func TestDifferentialString(t *testing.T) {
	for _, doc := range corpus {
		checkStringAgainstStdlib(t, []byte(doc))
	}
}

// The nesting limit of encoding/json is 10000; with that MaxDepth the two
// agree at the boundary.
func TestDifferentialDepth(t *testing.T) {
	for _, n := range []int{10000, 10001} {
		for _, doc := range []string{nest(n, "[", "]"), nest(n, `{"":`, "}")} {
			checkAgainstStdlib(t, []byte(doc))
		}
	}
}

// checkAgainstStdlib checks that Raw, Skip and a structured walk accept
// exactly what json.Valid accepts, and that the walk decodes what
// json.Unmarshal decodes.
func checkAgainstStdlib(t *testing.T, data []byte) {
	t.Helper()
	valid := json.Valid(data)
	s := &Scanner{MaxDepth: 10000} // encoding/json's limit
	s.Reset(data)
	raw, err := s.Raw()
	if err == nil {
		err = s.End()
	}
	if (err == nil) != valid {
		t.Fatalf("Raw(%q) + End: %v; json.Valid = %v", data, err, valid)
	}
	if valid && !bytes.Equal(raw, bytes.Trim(data, " \t\r\n")) {
		t.Fatalf("Raw(%q) = %q, want the document without surrounding whitespace", data, raw)
	}
	var syn *SyntaxError
	if err != nil && !errors.As(err, &syn) {
		t.Fatalf("Raw(%q): error %T, want *SyntaxError", data, err)
	}

	s.Reset(data)
	err = s.Skip()
	if err == nil {
		err = s.End()
	}
	if (err == nil) != valid {
		t.Fatalf("Skip(%q) + End: %v; json.Valid = %v", data, err, valid)
	}

	s.Reset(data)
	got, err := decodeAny(s)
	if err == nil {
		err = s.End()
	}
	var want any
	stdErr := json.Unmarshal(data, &want)
	if (err == nil) != (stdErr == nil) {
		t.Fatalf("walking %q: %v; json.Unmarshal: %v", data, err, stdErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("walking %q = %#v; json.Unmarshal = %#v", data, got, want)
	}
	if err != nil && valid {
		// Only a number too large for float64 fails on valid JSON.
		var ne *NumberError
		if !errors.As(err, &ne) {
			t.Fatalf("walking valid %q: %v", data, err)
		}
	}
}

// checkStringAgainstStdlib checks that String reads what json.Unmarshal
// reads into a string.
func checkStringAgainstStdlib(t *testing.T, data []byte) {
	t.Helper()
	var want string
	stdErr := json.Unmarshal(data, &want)
	if stdErr == nil && string(bytes.Trim(data, " \t\r\n")) == "null" {
		return // encoding/json leaves the string alone; String wants a string
	}
	s := scanner(string(data))
	got, err := s.String()
	if err == nil {
		err = s.End()
	}
	if (err == nil) != (stdErr == nil) || err == nil && got != want {
		t.Fatalf("String(%q) = %q, %v; json.Unmarshal = %q, %v", data, got, err, want, stdErr)
	}
}

// walkMessage reads the fields of a typical MCP request the way generated
// code does, keeping only bytes and numbers.
func walkMessage(s *Scanner) (n int, err error) {
	if err := s.ObjectStart(); err != nil {
		return 0, err
	}
	for {
		key, ok, err := s.NextKey()
		if err != nil || !ok {
			return n, err
		}
		switch string(key) {
		case "jsonrpc", "method":
			v, err := s.StringBytes()
			if err != nil {
				return 0, err
			}
			n += len(v)
		case "id":
			v, err := s.Int64()
			if err != nil {
				return 0, err
			}
			n += int(v)
		case "params":
			if err := s.ObjectStart(); err != nil {
				return 0, err
			}
			for {
				key, ok, err := s.NextKey()
				if err != nil {
					return 0, err
				}
				if !ok {
					break
				}
				switch string(key) {
				case "name":
					v, err := s.StringBytes()
					if err != nil {
						return 0, err
					}
					n += len(v)
				case "scores":
					if err := s.ArrayStart(); err != nil {
						return 0, err
					}
					for {
						more, err := s.NextElem()
						if err != nil {
							return 0, err
						}
						if !more {
							break
						}
						f, err := s.Float64()
						if err != nil {
							return 0, err
						}
						n += int(f)
					}
				default:
					if err := s.Skip(); err != nil {
						return 0, err
					}
				}
			}
		default:
			if err := s.Skip(); err != nil {
				return 0, err
			}
		}
	}
}

var message = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` +
	`"name":"search \"docs\"\n","scores":[1.5,-2e3,0.25,7],` +
	`"arguments":{"query":"jsonrpc scanner","limit":10,"filters":[{"kind":"file","exclude":["*.md","*_test.go"]}],"deep":true,"since":null},` +
	`"_meta":{"progressToken":"abc-123"}}}`)

// sink keeps results alive so that the compiler cannot put them on the stack.
var sink string

func TestScanAllocs(t *testing.T) {
	var s Scanner
	s.Reset(message)
	if _, err := walkMessage(&s); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset(message)
		if _, err := walkMessage(&s); err != nil {
			t.Fatal(err)
		}
		if err := s.End(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("walking a message allocates %v times, want 0", allocs)
	}

	deep := []byte(nest(500, `{"a":[`, "]}"))
	allocs = testing.AllocsPerRun(20, func() {
		s.Reset(deep)
		if _, err := s.Raw(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Raw of a deep document allocates %v times on a reused Scanner, want 0", allocs)
	}

	in := []byte(`"a string with an escape\t, and long enough not to fit a stack buffer"`)
	allocs = testing.AllocsPerRun(100, func() {
		s.Reset(in)
		var err error
		if sink, err = s.String(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Errorf("String allocates %v times, want 1 (the result)", allocs)
	}
}
