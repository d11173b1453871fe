package mcpheader

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// specExamples is the encoding table of the Streamable HTTP transport's
// "Value Encoding" section.
var specExamples = []struct{ text, header string }{
	{"us-west1", "us-west1"},
	{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
	{" padded ", "=?base64?IHBhZGRlZCA=?="},
	{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
	{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
}

func TestDecode(t *testing.T) {
	tests := []struct{ value, want string }{
		// Literal values.
		{"SGVsbG8=", "SGVsbG8="},
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8="},
		{"SGVsbG8=?=", "SGVsbG8=?="},
		{"=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?="},
		{"=?base64?=", "=?base64?="},
		{"Seattle, WA", "Seattle, WA"},
		{"a \t b", "a \t b"},
		{"", ""},
		{" \t us-west1 \t", "us-west1"},
		{"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"},
		// Base64 values.
		{"=?base64??=", ""},
		{"=?base64?SGVsbG8=?=", "Hello"},
		{"=?base64?dXMtd2VzdDE=?=", "us-west1"},
		{"  =?base64?SGVsbG8=?=\t", "Hello"},
		{"=?base64?AA==?=", "\x00"},
	}
	for _, ex := range specExamples {
		tests = append(tests, struct{ value, want string }{ex.header, ex.text})
	}
	for _, tt := range tests {
		got, err := Decode(tt.value)
		if err != nil {
			t.Errorf("Decode(%q): %v", tt.value, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Decode(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

func TestDecodeInvalid(t *testing.T) {
	tests := []struct{ value, msg string }{
		{"=?base64?SGVsbG8?=", "bad data or padding"},
		{"=?base64?SGVsbG8==?=", "bad data or padding"},
		{"=?base64?SGVsbG9=?=", "bad data or padding"}, // non-zero padding bits
		{"=?base64?SGVs!!!bG8=?=", "byte 0x21 at offset 4 of the Base64 payload"},
		{"=?base64?SGVs bG8=?=", "byte 0x20 at offset 4"},
		{"=?base64?SGVs\nbG8=?=", "byte 0x0a at offset 4"},
		{"=?base64?SGVs-bG8=?=", "byte 0x2d"}, // URL alphabet
		{"=?base64?SGVsbG8?==?=", "byte 0x3f at offset 7"},
		{"=?base64?/w==?=", "does not decode to UTF-8"},
		{"=?base64?7aCA?=", "does not decode to UTF-8"}, // an encoded surrogate
		{"line1\nline2", "byte 0x0a at offset 5"},
		{"a\rb", "byte 0x0d at offset 1"},
		{"a\x00b", "byte 0x00 at offset 1"},
		{"\x7f", "byte 0x7f at offset 0"},
		{"Hello, 世界", "byte 0xe4 at offset 7"},
	}
	for _, tt := range tests {
		got, err := Decode(tt.value)
		if err == nil {
			t.Errorf("Decode(%q) = %q, want an error", tt.value, got)
			continue
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Decode(%q) error %q, want it to contain %q", tt.value, err, tt.msg)
		}
	}
}

// TestDecodeErrorIsSanitized checks that an error shows only a short,
// escaped prefix of a hostile value.
func TestDecodeErrorIsSanitized(t *testing.T) {
	for _, value := range []string{
		"evil\r\nSet-Cookie: a=b" + strings.Repeat("x", 4000),
		"=?base64?" + strings.Repeat("QUFB", 1000) + "\x1b[2J?=",
		strings.Repeat("é", 2000) + "\n",
	} {
		_, err := Decode(value)
		if err == nil {
			t.Fatalf("Decode(%.20q...) succeeded", value)
		}
		msg := err.Error()
		if len(msg) > 300 {
			t.Errorf("error is %d bytes long: %.80q...", len(msg), msg)
		}
		for i := 0; i < len(msg); i++ {
			if c := msg[i]; c < ' ' || c > '~' {
				t.Errorf("error %q has byte 0x%02x at %d", msg, c, i)
				break
			}
		}
	}
}

func TestEncode(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", ""},
		{"a\tb", "=?base64?YQli?="},
		{"\ta", "=?base64?CWE=?="},
		{"a ", "=?base64?YSA=?="},
		{"=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="},
		{"=?base64?", "=?base64?"},
		{"SGVsbG8=", "SGVsbG8="},
		{"\x7f", "=?base64?fw==?="},
	}
	for _, ex := range specExamples {
		tests = append(tests, struct{ text, want string }{ex.text, ex.header})
	}
	for _, tt := range tests {
		if got := Encode(tt.text); got != tt.want {
			t.Errorf("Encode(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestEncodeRoundTrip checks, for strings made of the pieces that matter
// to the encoding, that Encode gives a value HTTP carries unchanged and
// that Decode gives the string back.
func TestEncodeRoundTrip(t *testing.T) {
	pieces := []string{
		"a", "Z", "0", "-", "=", "?", "+", "/", ",", " ", "\t", "\n", "\r", "\x00", "\x7f",
		"é", "世界", "😀", "\u2028", "=?base64?", "?=", "SGVsbG8=",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		header := Encode(text)
		if header != strings.Trim(header, " \t") {
			t.Fatalf("Encode(%q) = %q, which has whitespace HTTP would strip", text, header)
		}
		for i := 0; i < len(header); i++ {
			if !fieldByte(header[i]) {
				t.Fatalf("Encode(%q) = %q, with byte 0x%02x not allowed in a header", text, header, header[i])
			}
		}
		got, err := Decode(header)
		if err != nil {
			t.Fatalf("Decode(Encode(%q) = %q): %v", text, header, err)
		}
		if got != text {
			t.Fatalf("Decode(Encode(%q) = %q) = %q", text, header, got)
		}
	}
}

func TestPreview(t *testing.T) {
	tests := []struct{ in, want string }{
		{"us-west1", `"us-west1"`},
		{"a\nb", `"a\nb"`},
		{"é", `"\u00e9"`},
		{strings.Repeat("x", 40), `"` + strings.Repeat("x", 32) + `"...`},
		// The cut backs off to the start of the rune that straddles it.
		{strings.Repeat("x", 31) + "世界", `"` + strings.Repeat("x", 31) + `"...`},
	}
	for _, tt := range tests {
		got := preview(tt.in)
		if got != tt.want {
			t.Errorf("preview(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("preview(%q) = %q is not valid UTF-8", tt.in, got)
		}
	}
}
