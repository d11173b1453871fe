package support

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// formatCheck pairs one of our checkers with the format name the validator
// knows it by.
type formatCheck struct {
	format string
	check  func(string) bool
}

var formatChecks = []formatCheck{
	{"uri", isURI},
	{"uri-template", isURITemplate},
	{"date-time", isDateTime},
	{"byte", isByte},
}

// oracle compiles {"format": F} for each format with format assertion on.
// "byte" is not a format the validator knows; the project registers it as
// "base64.StdEncoding.DecodeString succeeds", and so does this test.
var oracle = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		_, err := base64.StdEncoding.DecodeString(s)
		return err
	}})
	out := make(map[string]*jsonschema.Schema)
	for _, fc := range formatChecks {
		loc := "mem://" + fc.format + ".json"
		if err := c.AddResource(loc, map[string]any{"format": fc.format}); err != nil {
			return nil, err
		}
		sch, err := c.Compile(loc)
		if err != nil {
			return nil, err
		}
		out[fc.format] = sch
	}
	return out, nil
})

func oracleAccepts(t testing.TB, format, s string) bool {
	t.Helper()
	schemas, err := oracle()
	if err != nil {
		t.Fatal(err)
	}
	return schemas[format].Validate(s) == nil
}

// compareFormats fails the test for each checker that disagrees with the
// validator on s.
func compareFormats(t testing.TB, s string) {
	t.Helper()
	for _, fc := range formatChecks {
		want := oracleAccepts(t, fc.format, s)
		if got := fc.check(s); got != want {
			t.Errorf("%s(%q) = %v, validator says %v", fc.format, s, got, want)
		}
	}
}

// trickyStrings are inputs chosen to hit every branch of the checks and the
// corners of net/url, time.Parse, strconv.Atoi and encoding/base64.
var trickyStrings = []string{
	// empty, whitespace, controls
	"", " ", "\t", "\n", "\r\n", "\x00", "\x7f", "a\x7fb", "http://a/\x01", "http://a/#\x01", "http://a/?\x01",
	// relative references
	"a", "/", "//", "///", "////", "/a", "a/b", "./a", "../a", "?", "#", "?#", "#?", "a?b#c",
	"//a", "//a/b", "///a", "//a:80", "//[::1]", "*", "*#x", "**", "/*",
	// schemes
	"a:", "a:b", "A:b", "a1:b", "1a:b", "+a:b", "a+.-:b", ":", ":a", "::", "a b:c", "a_b:c", "é:x",
	"urn:x", "urn:isbn:0451450523", "mailto:", "mailto:a@b.c", "mailto:%zz", "urn:x%zz", "urn:x#%zz",
	"urn:x#%41", "urn:{x", "urn:{x}/{y", "tag:a,b:c", "data:text/plain;base64,SGk=",
	"HTTP://A/", "http:", "http:/", "http:/a", "http://", "http:///", "http:///a", "http:////a",
	// authorities
	"http://a", "http://a/", "http://a:80/", "http://a:/", "http://a:8x/", "http://a:80:90/",
	"foo://a:b:80/", "foo://a:80:90/", "foo://a::80/", "https://a:1:2/", "http://:80/", "http://:/",
	"http://a b/", "http://a%20b/", "http://a%25b/", "http://a%C3%A9/", "http://a%c3%a9/", "http://%41/",
	"http://a%2/", "http://a%/", "http://é/", "http://a\xff/", "http://a<b>/", "http://a\"b/", "http://a'b/",
	"http://a!$&'()*+,;=b/", "http://a]b/", "http://a[b/", "http://a{b/", "http://a|b/", "http://a\\b/",
	"http://a^b/", "http://a`b/", "http://a~b/", "http://a_b/", "http://a-b.c/", "http://a?b/", "http://a#b/",
	// userinfo
	"http://u@a/", "http://u:p@a/", "http://u:p@q@a/", "http://@a/", "http://u@/", "http://u%41@a/",
	"http://u%zz@a/", "http://u%@a/", "http://u%4:1@a/", "http://u p@a/", "http://ü@a/", "http://u/@a/",
	"http://u!$&'()*+,;=-._~:@a/", "http://u<@a/", "http://u[@a/", "http://u@[::1]/", "http://u@a:80:1/",
	// IP literals
	"http://[::1]/", "http://[::1]:80/", "http://[::1]:/", "http://[::1]:x/", "http://[::1]x/", "http://[::1",
	"http://[::1]]/", "http://[[::1]/", "http://a[::1]/", "http://[1.2.3.4]/", "http://[::ffff:1.2.3.4]/",
	"http://[fe80::1%25en0]/", "http://[fe80::1%en0]/", "http://[fe80::1%25]/", "http://[::1%41]/",
	"http://[::1%C3]/", "http://[::g]/", "http://[]/", "http://[:]/", "http://[1::2::3]/",
	"http://[1:2:3:4:5:6:7:8]/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[v1.x]/", "http://[::1]:80:80/",
	"http://::1/", "http://::1:80/", "http://1.2.3.4/", "http://1.2.3.4:80/", "http://256.0.0.1/",
	"foo://[::1]/", "foo://::1/", "//[::1]:80/", "//::1/",
	// paths
	"file:///a b", "file:///a%20b", "file:///a%2", "file:///a%zz", "file:///a%", "file:///%41",
	"http://a/b c", "http://a/ü", "http://a/\xff", "http://a/b\\c", "http://a/%7B", "http://a/%7b",
	"http://a/%7Bx%41", "http://a/%7Bx%7D", "http://a/%7Bx%7D%41", "http://a/%7b%7d", "http://a/[x]",
	"http://a/b?c d", "http://a/b?%zz", "http://a/b#c d", "http://a/b#%zz", "http://a/b#%", "http://a/b?#",
	// URI templates
	"http://a/{x}", "http://a/{x", "http://a/x}", "http://a/{{x}}", "http://a/{x}{y}", "http://a/{x}/{y}",
	"http://a/{x/y}", "http://a/}{", "http://a/{x}?{y", "http://a/{x}#{y", "http://a/{+x}", "http://a/{x,y*}",
	"http://a/{x:3}", "http://a/{#x}", "http://a/{/x}", "http://a/{?x,y}", "http://a/{%7D", "http://a/%7B}",
	"http://a/%7B%7D{x}", "http://a/{x}%41", "{x}", "{x", "x}", "{+x}", "{x,y*}", "{x:3}", "{/x}", "{x}/{y}",
	"/{x}", "/{x", "/x/{y}/z", "/{x}/{", "{", "}", "{}", "/{}/", "a/{b}", "a{b}c/{d}", "//a/{x}", "///{x",
	"file:///{path}", "file:///{path", "resource://{name}", "resource://a/{name}", "test://static/resource/{id}",
	"users/{userId}/profile", "{scheme}://x", "x?{y}", "%7B", "%7B%7D", "%7b", "{x}%zz",
	// date-times
	"2024-01-01T00:00:00Z", "2024-01-01t00:00:00z", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00-00:00",
	"2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.123456789Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00,5Z",
	"2024-01-01T00:00:00", "2024-01-01 00:00:00Z", "2024-01-01T00:00Z", "2024-01-01T24:00:00Z",
	"2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-01-01T23:59:61Z", "2024-01-01T22:59:60Z",
	"2024-01-01T23:59:60+00:00", "2024-01-01T23:59:60-00:00", "2024-01-01T15:59:60-08:00",
	"2024-01-01T00:59:60+01:00", "2024-01-01T12:59:60-11:00", "2024-01-01T23:59:60-00:01",
	"2024-01-01T00:00:60+00:01", "2024-01-01T23:59:60.5Z", "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00+23:60",
	"2024-01-01T00:00:00+0000", "2024-01-01T00:00:00+00", "2024-01-01T00:00:00 00:00", "2024-01-01T00:00:00+00:00Z",
	"2024-01-01T+1:+2:+3Z", "2024-01-01T-0:-0:-0Z", "2024-01-01T-1:00:00Z", "2024-01-01T00:00:00++1:+1",
	"2024-01-01T00:00:00+-0:-0", "2024-01-01T00:00:00+-1:00", "2024-01-01T 1:00:00Z", "2024-01-01T1:00:00Z",
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
	"0000-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-04-31T00:00:00Z",
	"2024-00-01T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-32T00:00:00Z",
	"+024-01-01T00:00:00Z", "20240-01-01T00:00:00Z", "2024-1-01T00:00:00Z", "2024/01/01T00:00:00Z",
	"2024-01-01T00:00:00ZZ", "2024-01-01T00:00:00.Z0", "2024-01-01T00:00:00.0+01:00", "2024-01-01T00:00:00.0.0Z",
	"2024-01-01T00:00:00\x00Z", "2024-01-01T00:00:00Ż", "2024-01-01T00:00:0ÿZ", "2024-01-01Tab:cd:efZ",
	"2024-01-01T00:00:00+01:0a", "2024-01-01T00:00:00+01::0", "2024-01-01T00:0:000Z", "2024-01-01T0::00:00Z",
	"１９９９-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00 ",
	// base64
	"QQ==", "QUI=", "QUJD", "QQ", "QUI", "Q", "QQ=", "QQ===", "Q===", "====", "=", "==", "QUJD====",
	"QR==", "QUJ=", "QUJDRA==", "QUJDRA", "QQ==QQ==", "QUJDQUJD", "QU JD", " QUJD", "QUJD ", "QUJD\n",
	"\nQUJD", "QU\r\nJD", "QQ=\n=", "QQ=\r\n=", "QQ==\n", "QQ==\nQ", "Q\nQ==", "QUI=\n", "\n", "\r\n\r\n",
	"QUJD-_", "QUJD+/==", "QUJD+/8=", "QUJD+/8", "////", "++++", "ABC=", "AB==", "A===", "abcd\x00",
	"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", "QUJD\tRA==", "ÄÖÜ=",
}

func TestFormatsAgreeWithValidator(t *testing.T) {
	for _, s := range trickyStrings {
		compareFormats(t, s)
	}
}

// TestURIFormatsCombined builds URI references from every combination of a
// few scheme, authority, path, query and fragment pieces.
func TestURIFormatsCombined(t *testing.T) {
	schemes := []string{"", "http:", "HTTPS:", "urn:", "x+y:", "1x:", "file:"}
	authorities := []string{"", "//", "//a", "//a:8", "//a:b:8", "//u:p@a", "//[::1]:8", "//[::1%25e]", "//%zz", "//a%C3%A9", "//a%41", "//a b", "//ü"}
	paths := []string{"", "/", "/a", "a", "/a b", "/{x}", "/{x", "/%7Bx", "/%7Bx%41", "/%7bx%7d", "/x}", "/a:b", "a:b", "/%zz", "{x}/y", "/{x}/{y}", "/\\"}
	queries := []string{"", "?", "?q", "?{x", "?%zz", "??"}
	fragments := []string{"", "#", "#f", "#{x", "#%zz", "#%41", "#\x01"}
	n := 0
	for _, sc := range schemes {
		for _, au := range authorities {
			for _, p := range paths {
				for _, q := range queries {
					for _, f := range fragments {
						s := sc + au + p + q + f
						for _, fc := range formatChecks[:2] {
							want := oracleAccepts(t, fc.format, s)
							if got := fc.check(s); got != want {
								t.Errorf("%s(%q) = %v, validator says %v", fc.format, s, got, want)
							}
						}
						n++
					}
				}
			}
		}
	}
	t.Logf("%d URI references compared", n)
}

// TestDateTimeEveryDay walks every day of a leap and a common year, and the
// month ends of century years.
func TestDateTimeEveryDay(t *testing.T) {
	for _, y := range []int{1900, 2000, 2023, 2024} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				compareFormats(t, fmt.Sprintf("%04d-%02d-%02dT12:00:00Z", y, m, d))
			}
		}
	}
}

// TestDateTimeLeapSeconds tries a second of 60 at every offset hour, around
// the minute that maps to 23:59 UTC.
func TestDateTimeLeapSeconds(t *testing.T) {
	for zh := 0; zh <= 24; zh++ {
		for _, sign := range "+-" {
			for _, hm := range []string{"23:59", "00:59", "11:59", "12:59", "22:59", "23:58", "00:00"} {
				for _, zm := range []string{"00", "01", "59"} {
					s := fmt.Sprintf("2024-06-30T%s:60%c%02d:%s", hm, sign, zh, zm)
					want := oracleAccepts(t, "date-time", s)
					if got := isDateTime(s); got != want {
						t.Errorf("isDateTime(%q) = %v, validator says %v", s, got, want)
					}
				}
			}
		}
	}
}

// TestFormatBytes tries each byte value in the places where the checks
// look at single bytes.
func TestFormatBytes(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		for _, s := range []string{
			"http://a" + b + "b/", "http://a/" + b, "x:" + b, b + ":x", b, "//u" + b + "@a/", "http://[::1]" + b,
			"QUJ" + b, "QQ" + b + "=", "2024-01-01T00:00:0" + b + "Z", "2024-01-01T0" + b + ":00:00Z",
			"/%7" + b, "/%" + b + "B", "http://a%" + b + "0/", "http://a/" + b + "{x}",
		} {
			compareFormats(t, s)
		}
	}
}

func TestBase64Generated(t *testing.T) {
	var data []byte
	for n := 0; n < 40; n++ {
		enc := base64.StdEncoding.EncodeToString(data)
		for _, s := range []string{enc, strings.TrimRight(enc, "="), enc + "\n", enc[:len(enc)/2] + "\r\n" + enc[len(enc)/2:]} {
			want := oracleAccepts(t, "byte", s)
			if got := isByte(s); got != want {
				t.Errorf("isByte(%q) = %v, validator says %v", s, got, want)
			}
		}
		data = append(data, byte(n*37))
	}
}

func TestFormatsAllocateNothing(t *testing.T) {
	valid := map[string][]string{
		"uri": {"http://a/", "https://u:p@example.com:8443/a%20b/c?q=1#f", "http://[::1]:80/", "http://[::ffff:1.2.3.4]/",
			"urn:isbn:0451450523", "file:///a b", "mailto:a@b.c", "http://a%C3%A9/"},
		"uri-template": {"http://a/{x}", "file:///{path}", "/{x}/%7B%7D", "{x,y*}", "http://a/{x}%41", "http://[::1]/{a}"},
		"date-time":    {"2024-01-01T00:00:00Z", "2024-02-29t23:59:60.123z", "2024-01-01T15:59:60-08:00"},
		"byte":         {"", "QUJD", "QQ==", "QUI=", "QU\r\nJD"},
	}
	for _, fc := range formatChecks {
		for _, s := range valid[fc.format] {
			if !fc.check(s) || !oracleAccepts(t, fc.format, s) {
				t.Errorf("%s(%q): want valid", fc.format, s)
				continue
			}
			if n := testing.AllocsPerRun(100, func() { fc.check(s) }); n != 0 {
				t.Errorf("%s(%q) allocates %v times", fc.format, s, n)
			}
		}
	}
}

func FuzzFormats(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		compareFormats(t, s)
	})
}
