package jsonrpc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`"quoted" \back\`, `"\"quoted\" \\back\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f\""},
		{"<a href='x'>&amp;</a>", `"\u003ca href='x'\u003e\u0026amp;\u003c/a\u003e"`},
		{"/", `"/"`},
		{"é中😀", `"é中😀"`},
		{"\u2028 \u2029 \u202a", `"\u2028 \u2029 ` + "\u202a\""},
		{"a\xffb", `"a\ufffdb"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
		{"\xc3", `"\ufffd"`},
		{"\uFFFD", "\"\uFFFD\""},
		{"tail\n", `"tail\n"`},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := string(AppendStringBytes(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendStringBytes(%q) = %s, want %s", tt.in, got, tt.want)
		}
		checkAppendString(t, tt.in)
	}
	// Appending keeps what is already there.
	if got := string(AppendString([]byte("x:"), "y")); got != `x:"y"` {
		t.Errorf("AppendString onto x: = %s", got)
	}
}

func TestAppendStringEveryByte(t *testing.T) {
	for c := range 256 {
		checkAppendString(t, string([]byte{'a', byte(c), 'z'}))
	}
	for r := rune(0); r < 0x3000; r++ {
		checkAppendString(t, string(r))
	}
}

// checkAppendString checks AppendString and AppendStringBytes against
// json.Marshal, and that Scanner.String reads the output back as
// json.Unmarshal does.
func checkAppendString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString(nil, s); string(got) != string(want) {
		t.Fatalf("AppendString(%q) = %s, json.Marshal = %s", s, got, want)
	}
	if got := AppendStringBytes(nil, []byte(s)); string(got) != string(want) {
		t.Fatalf("AppendStringBytes(%q) = %s, json.Marshal = %s", s, got, want)
	}
	var back string
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if got, err := scanner(string(want)).String(); err != nil || got != back {
		t.Fatalf("String(%s) = %q, %v; json.Unmarshal = %q", want, got, err, back)
	}
}

// floats are the tricky values for AppendFloat: the switch to exponent form
// at both ends, the exponent cleanup, and the extremes.
var floats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, -2.25, 100, 1e6, 1e20, 1e21, 1.5e21, -1e21,
	123456789.125, 1e-6, 1e-7, 0.000001, 0.0000012345, 9.999999e-7, 1e-9, 1e-10, 1.25e-100,
	5e-324, math.SmallestNonzeroFloat64, math.MaxFloat64, 1.7976931348623157e308,
	-1.7976931348623157e308, 1 << 53, 1<<53 + 2, 1e15, 123456789012345680000, 0.3,
	2.2250738585072014e-308, 1.0 / 3, float64(float32(0.1)),
}

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{1.5e-9, "1.5e-9"},
		{1e-10, "1e-10"},
		{123456789.125, "123456789.125"},
		{5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.in)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, f := range floats {
		for _, v := range []float64{f, -f} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendFloat(nil, v); string(got) != string(want) {
				t.Errorf("AppendFloat(%v) = %s, json.Marshal = %s", v, got, want)
			}
			back, err := scanner(string(want)).Float64()
			if err != nil || math.Float64bits(back) != math.Float64bits(v) {
				t.Errorf("Float64(%s) = %v, %v; want %v", want, back, err, v)
			}
		}
	}
}

func TestAppendFloatNotFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		dst := []byte("[")
		if got := AppendFloat(dst, v); string(got) != "[" {
			t.Errorf("AppendFloat(%v) = %q, want dst unchanged", v, got)
		}
		got, err := AppendFloatChecked(dst, v)
		if err == nil || string(got) != "[" {
			t.Errorf("AppendFloatChecked(%v) = %q, %v; want dst unchanged and an error", v, got, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "json: unsupported value: ") {
			t.Errorf("AppendFloatChecked(%v) error = %q", v, err)
		}
	}
	got, err := AppendFloatChecked([]byte("["), 2.5)
	if err != nil || string(got) != "[2.5" {
		t.Errorf("AppendFloatChecked(2.5) = %q, %v", got, err)
	}
}

func TestAppendInt(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64} {
		want, _ := json.Marshal(v)
		if got := AppendInt(nil, v); string(got) != string(want) {
			t.Errorf("AppendInt(%d) = %s, json.Marshal = %s", v, got, want)
		}
		back, err := scanner(string(want)).Int64()
		if err != nil || back != v {
			t.Errorf("Int64(%s) = %d, %v", want, back, err)
		}
	}
	for _, v := range []uint64{0, 7, math.MaxUint64} {
		want, _ := json.Marshal(v)
		if got := AppendUint(nil, v); string(got) != string(want) {
			t.Errorf("AppendUint(%d) = %s, json.Marshal = %s", v, got, want)
		}
	}
}

func TestAppendBool(t *testing.T) {
	if got := string(AppendBool(AppendBool([]byte("["), true), false)); got != "[truefalse" {
		t.Errorf("AppendBool = %q", got)
	}
}

func TestAppendAllocs(t *testing.T) {
	buf := make([]byte, 0, 1024)
	strs := []string{
		"plain ASCII text that needs no escaping at all",
		"escapes: \"quote\" \\ \n\t <html> & \x01",
		"non-ASCII: é中😀 \u2028 and invalid \xff UTF-8",
	}
	for _, s := range strs {
		b := []byte(s)
		allocs := testing.AllocsPerRun(100, func() {
			buf = AppendString(buf[:0], s)
			buf = AppendStringBytes(buf, b)
		})
		if allocs != 0 {
			t.Errorf("AppendString(%q) into a buffer with room allocates %v times, want 0", s, allocs)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendFloat(buf[:0], 123456789.125)
		buf = AppendFloat(buf, 1e-7)
		buf = AppendInt(buf, math.MinInt64)
		buf = AppendUint(buf, math.MaxUint64)
		buf = AppendBool(buf, true)
	})
	if allocs != 0 {
		t.Errorf("appending numbers into a buffer with room allocates %v times, want 0", allocs)
	}
}
