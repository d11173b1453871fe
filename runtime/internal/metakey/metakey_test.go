package metakey

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// grammar is the rule of the package documentation as a regular
// expression, the reference the fuzz test holds Check to.
var grammar = regexp.MustCompile(`^(?:` +
	`[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/` +
	`)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

func TestCheckValid(t *testing.T) {
	valid := []string{
		"a",
		"Z",
		"7",
		"progressToken",
		"traceparent",
		"tracestate",
		"baggage",
		"my_key",
		"my-key",
		"my.key",
		"a.b_c-d.9",
		"com.example.mcp", // dots are allowed in a name, so this is a name, not a prefix
		"x/y",
		"com.example/",
		"com.example/key",
		"com.example/my_key.v2",
		"com.example.mcp/tools",
		"io.modelcontextprotocol/",
		"io.modelcontextprotocol/related-task",
		"dev.mcp/x",
		"org.modelcontextprotocol.api/x",
		"com.mcp.tools/x",
		"mcp/x",
		"a-b.c9/d",
		"A1.B-2.c/D",
		"x1/1",
		"com.example/0",
		strings.Repeat("a", 1000),
		strings.Repeat("a.", 100) + "a/" + strings.Repeat("b", 100),
	}
	for _, key := range valid {
		if err := Check(key); err != nil {
			t.Errorf("Check(%q) = %v, want nil", key, err)
		}
		if !grammar.MatchString(key) {
			t.Errorf("reference grammar refuses %q, which the test calls valid", key)
		}
	}
}

func TestCheckInvalid(t *testing.T) {
	tests := []struct {
		key  string
		want string // the whole error text
	}{
		{"", `_meta key "": must not be empty`},
		{"/", `_meta key "/": the prefix before "/" is empty`},
		{"/x", `_meta key "/x": the prefix before "/" is empty`},
		{"a/b/c", `_meta key "a/b/c": has more than one "/"; only the prefix ends with one`},
		{"com.example//x", `_meta key "com.example//x": has more than one "/"; only the prefix ends with one`},
		{"a//", `_meta key "a//": has more than one "/"; only the prefix ends with one`},
		{"1abc/x", `_meta key "1abc/x": label "1abc" must start with a letter`},
		{"com.1abc/x", `_meta key "com.1abc/x": label "1abc" must start with a letter`},
		{"-abc/x", `_meta key "-abc/x": label "-abc" must start with a letter`},
		{"abc-/x", `_meta key "abc-/x": label "abc-" must end with a letter or digit`},
		{"com.ex-/x", `_meta key "com.ex-/x": label "ex-" must end with a letter or digit`},
		{"a_b/x", `_meta key "a_b/x": label "a_b" contains '_'; a label may hold only ASCII letters, digits and hyphens`},
		{"a b/x", `_meta key "a b/x": label "a b" contains ' '; a label may hold only ASCII letters, digits and hyphens`},
		{"a..b/", `_meta key "a..b/": prefix "a..b" has an empty label between two dots`},
		{"a./x", `_meta key "a./x": prefix "a." ends with a dot`},
		{"com.example./x", `_meta key "com.example./x": prefix "com.example." ends with a dot`},
		{".a/x", `_meta key ".a/x": prefix ".a" starts with a dot`},
		{"./x", `_meta key "./x": prefix "." starts with a dot`},
		{"café.com/x", `_meta key "café.com/x": label "café" contains 'é' (U+00E9); a label may hold only ASCII letters, digits and hyphens`},
		{"com.example/.hidden", `_meta key "com.example/.hidden": name ".hidden" must start with a letter or digit`},
		{".hidden", `_meta key ".hidden": name ".hidden" must start with a letter or digit`},
		{"_private", `_meta key "_private": name "_private" must start with a letter or digit`},
		{"-x", `_meta key "-x": name "-x" must start with a letter or digit`},
		{"trailing.", `_meta key "trailing.": name "trailing." must end with a letter or digit`},
		{"com.example/x.", `_meta key "com.example/x.": name "x." must end with a letter or digit`},
		{"x_", `_meta key "x_": name "x_" must end with a letter or digit`},
		{"x-", `_meta key "x-": name "x-" must end with a letter or digit`},
		{".", `_meta key ".": name "." must start with a letter or digit`},
		{"my key", `_meta key "my key": name "my key" contains ' '; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"key:1", `_meta key "key:1": name "key:1" contains ':'; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"naïve", `_meta key "naïve": name "naïve" contains 'ï' (U+00EF); a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"com.example/日本", `_meta key "com.example/日本": name "日本" contains '日' (U+65E5); a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"\u212Aey", "_meta key \"\u212Aey\": name \"\u212Aey\" contains '\u212A' (U+212A); a name may hold only ASCII letters, digits, '-', '_' and '.'"}, // the Kelvin sign
		{"a\x00b", `_meta key "a\x00b": name "a\x00b" contains '\x00'; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"a\nb", `_meta key "a\nb": name "a\nb" contains '\n'; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"a\xffb", `_meta key "a\xffb": name "a\xffb" contains "\xff"; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"x\u200b", `_meta key "x\u200b": name "x\u200b" contains '\u200b' (U+200B); a name may hold only ASCII letters, digits, '-', '_' and '.'`},
	}
	for _, tt := range tests {
		err := Check(tt.key)
		if err == nil {
			t.Errorf("Check(%q) = nil, want %s", tt.key, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Check(%q) =\n\t%s\nwant\n\t%s", tt.key, err, tt.want)
		}
		var e *Error
		if !errors.As(err, &e) || e.Key != tt.key || e.Kind != "_meta key" {
			t.Errorf("Check(%q): errors.As gives %#v, want an *Error for the key", tt.key, e)
		}
		if tt.key != "" && grammar.MatchString(tt.key) {
			t.Errorf("reference grammar accepts %q, which the test calls invalid", tt.key)
		}
	}
}

func TestErrorQuoting(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want string
	}{
		{
			"long key shortened",
			strings.Repeat("a", 100) + " ",
			`_meta key "` + strings.Repeat("a", 64) + `"...: name "` + strings.Repeat("a", 64) + `"... contains ' '; a name may hold only ASCII letters, digits, '-', '_' and '.'`,
		},
		{
			"cut before a multi-byte character",
			strings.Repeat("a", 63) + "é",
			`_meta key "` + strings.Repeat("a", 63) + `"...: name "` + strings.Repeat("a", 63) + `"... contains 'é' (U+00E9); a name may hold only ASCII letters, digits, '-', '_' and '.'`,
		},
		{
			"control characters escaped",
			"\x1b[31mred",
			`_meta key "\x1b[31mred": name "\x1b[31mred" contains '\x1b'; a name may hold only ASCII letters, digits, '-', '_' and '.'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.key)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Check = %v\nwant   %s", err, tt.want)
			}
		})
	}
}

func TestReserved(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"io.modelcontextprotocol/", true},
		{"io.modelcontextprotocol/related-task", true},
		{"dev.mcp/x", true},
		{"org.modelcontextprotocol.api/x", true},
		{"com.mcp.tools/x", true},
		{"io.MCP/x", true},
		{"IO.ModelContextProtocol/x", true},
		{"io.mcp/bad name", true}, // the prefix is reserved whatever follows
		{"com.example.mcp/x", false},
		{"mcp.example/x", false},
		{"mcp/x", false}, // no second label
		{"modelcontextprotocol/x", false},
		{"io.mcpx/x", false},
		{"io.mcp-tools/x", false},
		{"io.modelcontextprotocols/x", false},
		{"io.mcp", false}, // a name, not a prefix
		{"dev.mcp.x", false},
		{"progressToken", false},
		{"traceparent", false},
		{"", false},
		{"/", false},
		{"a..mcp/x", false}, // the second label is empty
	}
	for _, tt := range tests {
		if got := Reserved(tt.key); got != tt.want {
			t.Errorf("Reserved(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestCheckUser(t *testing.T) {
	tests := []struct {
		key  string
		want string // the whole error text, "" for nil
	}{
		{"com.example/key", ""},
		{"com.example.mcp/key", ""},
		{"progressToken", ""},
		{"traceparent", ""},
		{"com.example/", ""},
		{"io.modelcontextprotocol/related-task", `_meta key "io.modelcontextprotocol/related-task": the prefix "io.modelcontextprotocol/" is reserved for the MCP specification; use a reverse-DNS prefix of a domain you control, such as "com.example/"`},
		{"dev.mcp/x", `_meta key "dev.mcp/x": the prefix "dev.mcp/" is reserved for the MCP specification; use a reverse-DNS prefix of a domain you control, such as "com.example/"`},
		{"org.modelcontextprotocol.api/x", `_meta key "org.modelcontextprotocol.api/x": the prefix "org.modelcontextprotocol.api/" is reserved for the MCP specification; use a reverse-DNS prefix of a domain you control, such as "com.example/"`},
		{"com.mcp.tools/", `_meta key "com.mcp.tools/": the prefix "com.mcp.tools/" is reserved for the MCP specification; use a reverse-DNS prefix of a domain you control, such as "com.example/"`},
		// Malformed keys report the grammar first, reserved or not.
		{"io.mcp/bad name", `_meta key "io.mcp/bad name": name "bad name" contains ' '; a name may hold only ASCII letters, digits, '-', '_' and '.'`},
		{"", `_meta key "": must not be empty`},
	}
	for _, tt := range tests {
		err := CheckUser(tt.key)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckUser(%q) = %v, want nil", tt.key, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("CheckUser(%q) =\n\t%v\nwant\n\t%s", tt.key, err, tt.want)
		}
	}
}

func TestCheckExtension(t *testing.T) {
	tests := []struct {
		id   string
		want string // the whole error text, "" for nil
	}{
		{"io.modelcontextprotocol/ui", ""},
		{"io.modelcontextprotocol/oauth-client-credentials", ""},
		{"com.example/my-extension", ""},
		{"com.example.mcp/tools.v2", ""},
		{"ui", `extension identifier "ui": an extension identifier needs a prefix, as in "com.example/ui"`},
		{"com.example", `extension identifier "com.example": an extension identifier needs a prefix, as in "com.example/com.example"`},
		{"com.example/", `extension identifier "com.example/": an extension identifier needs a name after its prefix "com.example/"`},
		{"", `extension identifier "": must not be empty`},
		{"1com/x", `extension identifier "1com/x": label "1com" must start with a letter`},
		{"com.example/a/b", `extension identifier "com.example/a/b": has more than one "/"; only the prefix ends with one`},
	}
	for _, tt := range tests {
		err := CheckExtension(tt.id)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckExtension(%q) = %v, want nil", tt.id, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("CheckExtension(%q) =\n\t%v\nwant\n\t%s", tt.id, err, tt.want)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Kind != "extension identifier" || e.Key != tt.id) {
			t.Errorf("CheckExtension(%q): errors.As gives %#v", tt.id, e)
		}
	}
}

func TestOpenTelemetry(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"traceparent", true},
		{"tracestate", true},
		{"baggage", true},
		{"Traceparent", false},
		{"com.example/traceparent", false},
		{"traceparent2", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := OpenTelemetry(tt.key); got != tt.want {
			t.Errorf("OpenTelemetry(%q) = %v, want %v", tt.key, got, tt.want)
		}
		if tt.want {
			if err := CheckUser(tt.key); err != nil {
				t.Errorf("CheckUser(%q) = %v, want nil", tt.key, err)
			}
		}
	}
}

// TestCheckDoesNotAllocate guards the property that lets the runtime check
// every key of every incoming _meta: a valid key costs no allocation.
func TestCheckDoesNotAllocate(t *testing.T) {
	tests := []struct {
		name  string
		check func(string) error
		key   string
	}{
		{"Check", Check, "progressToken"},
		{"Check", Check, "io.modelcontextprotocol/related-task"},
		{"Check", Check, "com.example/"},
		{"CheckUser", CheckUser, "com.example.mcp/key"},
		{"CheckExtension", CheckExtension, "io.modelcontextprotocol/ui"},
	}
	for _, tt := range tests {
		var err error
		if n := testing.AllocsPerRun(100, func() { err = tt.check(tt.key) }); n != 0 || err != nil {
			t.Errorf("%s(%q) = %v and allocates %v times, want nil and none", tt.name, tt.key, err, n)
		}
	}
}

// FuzzCheck holds Check to the reference grammar and checks that its
// errors stay readable whatever the key: never a panic, valid UTF-8, no raw
// control characters, bounded in length.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"", "/", "a", "a/b", "a/b/c", "com.example/", "io.mcp/x", "a..b/", "a./x", ".x",
		"café.com/x", "x\x00", "\xff", strings.Repeat("a.", 50) + "/x", "traceparent",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := Check(key)
		want := key != "" && grammar.MatchString(key)
		if (err == nil) != want {
			t.Fatalf("Check(%q) = %v; reference grammar says valid = %v", key, err, want)
		}
		userErr, extErr := CheckUser(key), CheckExtension(key)
		if err != nil {
			if userErr == nil || extErr == nil {
				t.Fatalf("Check(%q) fails but CheckUser = %v, CheckExtension = %v", key, userErr, extErr)
			}
			var e *Error
			if !errors.As(err, &e) || e.Key != key {
				t.Fatalf("Check(%q): errors.As gives %#v", key, e)
			}
			msg := err.Error()
			if !utf8.ValidString(msg) {
				t.Fatalf("error for %q is not valid UTF-8: %q", key, msg)
			}
			if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("error for %q has a raw control character: %q", key, msg)
			}
			if len(msg) > 2000 {
				t.Fatalf("error for a %d-byte key is %d bytes", len(key), len(msg))
			}
		} else if (userErr == nil) == Reserved(key) {
			t.Fatalf("CheckUser(%q) = %v with Reserved = %v", key, userErr, Reserved(key))
		}
	})
}
