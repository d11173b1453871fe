package mcpheader

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// checkSchema annotates one property of each type, one of them nested.
const checkSchema = `{"type": "object", "properties": {
	"region": {"type": "string", "x-mcp-header": "Region"},
	"count": {"type": "integer", "x-mcp-header": "Count"},
	"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
	"target": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
	"query": {"type": "string"}}}`

func mustParams(t *testing.T, schema string) []Param {
	t.Helper()
	params, err := Params([]byte(schema))
	if err != nil {
		t.Fatalf("Params: %v", err)
	}
	return params
}

func TestCheck(t *testing.T) {
	params := mustParams(t, checkSchema)
	tests := []struct {
		name   string
		args   string
		header http.Header // set as given, so keys need not be canonical
		bad    string      // the header of the expected *MismatchError, or "" for none
		reason string      // a part of its reason
	}{
		{name: "nothing to mirror", args: `{"query": "SELECT 1"}`},
		{name: "no arguments", args: ``},
		{name: "null arguments", args: `null`},
		{
			name:   "all present and equal",
			args:   `{"region": "us-west1", "count": 42, "dry": true, "target": {"zone": "b"}, "query": "q"}`,
			header: http.Header{"Mcp-Param-Region": {"us-west1"}, "Mcp-Param-Count": {"42"}, "Mcp-Param-Dry-Run": {"true"}, "Mcp-Param-Zone": {"b"}},
		},
		{name: "header names ignore case", args: `{"region": "us-west1"}`, header: http.Header{"mcp-param-REGION": {"us-west1"}}},
		{name: "unrelated headers are ignored", args: `{}`, header: http.Header{"Mcp-Param-Other": {"x"}, "Mcp-Name": {"t"}}},
		{name: "surrounding whitespace", args: `{"region": "us-west1"}`, header: http.Header{"Mcp-Param-Region": {" us-west1\t"}}},

		// Strings.
		{name: "string mismatch", args: `{"region": "us-west1"}`, header: http.Header{"Mcp-Param-Region": {"us-east1"}},
			bad: "Mcp-Param-Region", reason: `header "us-east1" does not match arguments.region "us-west1"`},
		{name: "values are case-sensitive", args: `{"region": "us-west1"}`, header: http.Header{"Mcp-Param-Region": {"US-WEST1"}},
			bad: "Mcp-Param-Region", reason: "does not match"},
		{name: "Base64 value", args: `{"region": "Hello, 世界"}`, header: http.Header{"Mcp-Param-Region": {"=?base64?SGVsbG8sIOS4lueVjA==?="}}},
		{name: "Base64 for a plain value", args: `{"region": "us-west1"}`, header: http.Header{"Mcp-Param-Region": {"=?base64?dXMtd2VzdDE=?="}}},
		{name: "undecoded Base64 is literal", args: `{"region": "=?base64?dXMtd2VzdDE="}`, header: http.Header{"Mcp-Param-Region": {"=?base64?dXMtd2VzdDE="}}},
		{name: "escaped body string", args: `{"region": "line1\nline2 \u00e9"}`, header: http.Header{"Mcp-Param-Region": {Encode("line1\nline2 é")}}},
		{name: "empty string", args: `{"region": ""}`, header: http.Header{"Mcp-Param-Region": {""}}},
		{name: "empty string as Base64", args: `{"region": ""}`, header: http.Header{"Mcp-Param-Region": {"=?base64??="}}},
		{name: "invalid characters", args: `{"region": "us\u0001west"}`, header: http.Header{"Mcp-Param-Region": {"us\x01west"}},
			bad: "Mcp-Param-Region", reason: "invalid header value: byte 0x01 at offset 2"},
		{name: "bad Base64", args: `{"region": "Hello"}`, header: http.Header{"Mcp-Param-Region": {"=?base64?SGVsbG8?="}},
			bad: "Mcp-Param-Region", reason: "invalid header value: malformed Base64"},
		{name: "string body for a string header of another type", args: `{"region": 5}`, header: http.Header{"Mcp-Param-Region": {"5"}},
			bad: "Mcp-Param-Region", reason: "arguments.region is a number, but the schema declares string"},

		// Presence.
		{name: "missing header", args: `{"region": "us-west1"}`,
			bad: "Mcp-Param-Region", reason: "the header is missing, but arguments.region is given"},
		{name: "header without value", args: `{"query": "q"}`, header: http.Header{"Mcp-Param-Count": {"1"}},
			bad: "Mcp-Param-Count", reason: "arguments.count is absent or null"},
		{name: "null value, no header", args: `{"region": null, "count": null}`},
		{name: "null value with header", args: `{"region": null}`, header: http.Header{"Mcp-Param-Region": {"null"}},
			bad: "Mcp-Param-Region", reason: "absent or null"},
		{name: "header twice", args: `{"region": "a"}`, header: http.Header{"Mcp-Param-Region": {"a", "a"}},
			bad: "Mcp-Param-Region", reason: "occurs 2 times"},
		{name: "header twice in two cases", args: `{"region": "a"}`, header: http.Header{"Mcp-Param-Region": {"a"}, "mcp-param-region": {"a"}},
			bad: "Mcp-Param-Region", reason: "occurs 2 times"},
		{name: "header without arguments", args: ``, header: http.Header{"Mcp-Param-Region": {"a"}},
			bad: "Mcp-Param-Region", reason: "absent or null"},
		{name: "header with arguments not an object", args: `["us-west1"]`, header: http.Header{"Mcp-Param-Region": {"us-west1"}},
			bad: "Mcp-Param-Region", reason: "absent or null"},

		// Integers.
		{name: "integer", args: `{"count": -7}`, header: http.Header{"Mcp-Param-Count": {"-7"}}},
		{name: "integral body 42.0", args: `{"count": 42.0}`, header: http.Header{"Mcp-Param-Count": {"42"}}},
		{name: "integral body 4.2e1", args: `{"count": 4.2e1}`, header: http.Header{"Mcp-Param-Count": {"42"}}},
		{name: "header 42.0", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"42.0"}}},
		{name: "header 42E0", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"42E0"}}},
		{name: "largest safe integer", args: `{"count": 9007199254740991}`, header: http.Header{"Mcp-Param-Count": {"9007199254740991"}}},
		{name: "smallest safe integer", args: `{"count": -9007199254740991}`, header: http.Header{"Mcp-Param-Count": {"-9007199254740991"}}},
		{name: "integer mismatch", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"43"}},
			bad: "Mcp-Param-Count", reason: `header "43" does not match arguments.count 42`},
		{name: "header with plus sign", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"+42"}},
			bad: "Mcp-Param-Count", reason: `header "+42" is not an integer`},
		{name: "header with leading zero", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"042"}},
			bad: "Mcp-Param-Count", reason: "is not an integer"},
		{name: "header with a fraction", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"42.5"}},
			bad: "Mcp-Param-Count", reason: "is not an integer"},
		{name: "header beyond the safe range", args: `{"count": 9007199254740991}`, header: http.Header{"Mcp-Param-Count": {"9007199254740992"}},
			bad: "Mcp-Param-Count", reason: "is not an integer"},
		{name: "header with inner whitespace in Base64", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {Encode(" 42")}},
			bad: "Mcp-Param-Count", reason: "is not an integer"},
		{name: "hex header", args: `{"count": 42}`, header: http.Header{"Mcp-Param-Count": {"0x2A"}},
			bad: "Mcp-Param-Count", reason: "is not an integer"},
		{name: "body with a fraction", args: `{"count": 1.5}`, header: http.Header{"Mcp-Param-Count": {"1.5"}},
			bad: "Mcp-Param-Count", reason: "arguments.count is 1.5, which is not an integer"},
		{name: "body beyond the safe range", args: `{"count": 9007199254740992}`, header: http.Header{"Mcp-Param-Count": {"9007199254740992"}},
			bad: "Mcp-Param-Count", reason: "outside the range"},
		{name: "body far beyond int64", args: `{"count": 1e400}`, header: http.Header{"Mcp-Param-Count": {"1e400"}},
			bad: "Mcp-Param-Count", reason: "not an integer"},
		{name: "string body for an integer", args: `{"count": "42"}`, header: http.Header{"Mcp-Param-Count": {"42"}},
			bad: "Mcp-Param-Count", reason: "is a string, but the schema declares integer"},

		// Booleans.
		{name: "false", args: `{"dry": false}`, header: http.Header{"Mcp-Param-Dry-Run": {"false"}}},
		{name: "boolean mismatch", args: `{"dry": false}`, header: http.Header{"Mcp-Param-Dry-Run": {"true"}},
			bad: "Mcp-Param-Dry-Run", reason: `header "true" does not match arguments.dry false`},
		{name: "boolean in another case", args: `{"dry": true}`, header: http.Header{"Mcp-Param-Dry-Run": {"True"}},
			bad: "Mcp-Param-Dry-Run", reason: "does not match"},
		{name: "boolean as a number", args: `{"dry": true}`, header: http.Header{"Mcp-Param-Dry-Run": {"1"}},
			bad: "Mcp-Param-Dry-Run", reason: "does not match"},
		{name: "string body for a boolean", args: `{"dry": "true"}`, header: http.Header{"Mcp-Param-Dry-Run": {"true"}},
			bad: "Mcp-Param-Dry-Run", reason: "is a string, but the schema declares boolean"},

		// Nested paths.
		{name: "nested", args: `{"target": {"zone": "b", "other": [1, {"zone": "c"}]}}`, header: http.Header{"Mcp-Param-Zone": {"b"}}},
		{name: "nested mismatch", args: `{"target": {"zone": "b"}}`, header: http.Header{"Mcp-Param-Zone": {"c"}},
			bad: "Mcp-Param-Zone", reason: `does not match arguments.target.zone "b"`},
		{name: "nested missing header", args: `{"target": {"zone": "b"}}`,
			bad: "Mcp-Param-Zone", reason: "arguments.target.zone is given"},
		{name: "nested parent null", args: `{"target": null}`},
		{name: "nested parent not an object", args: `{"target": "zone"}`},
		{name: "nested parent null with header", args: `{"target": null}`, header: http.Header{"Mcp-Param-Zone": {"b"}},
			bad: "Mcp-Param-Zone", reason: "arguments.target.zone is absent"},

		// Arguments whose meaning depends on the decoder.
		{name: "escaped key", args: `{"\u0072egion": "us-west1"}`, header: http.Header{"Mcp-Param-Region": {"us-west1"}}},
		{name: "escaped key, no header", args: `{"\u0072egion": "us-west1"}`,
			bad: "Mcp-Param-Region", reason: "the header is missing"},
		{name: "duplicate key", args: `{"region": "us-west1", "region": "us-east1"}`, header: http.Header{"Mcp-Param-Region": {"us-west1"}},
			bad: "Mcp-Param-Region", reason: `arguments: key "region" occurs more than once`},
		{name: "key in another case", args: `{"Region": "us-east1"}`,
			bad: "Mcp-Param-Region", reason: `key "Region" stands for "region" only if case is ignored`},
		{name: "nested duplicate key", args: `{"target": {"zone": "b", "ZONE": "c"}}`, header: http.Header{"Mcp-Param-Zone": {"b"}},
			bad: "Mcp-Param-Zone", reason: "arguments.target: key \"ZONE\""},
		{name: "malformed arguments", args: `{"region": "us-west1"`, header: http.Header{"Mcp-Param-Region": {"us-west1"}},
			bad: "Mcp-Param-Region", reason: "arguments: json:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(params, []byte(tt.args), tt.header)
			if tt.bad == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			me, ok := errors.AsType[*MismatchError](err)
			if !ok {
				t.Fatalf("Check error %v (%T), want a *MismatchError", err, err)
			}
			if me.Header != tt.bad {
				t.Errorf("Header = %q, want %q (error: %v)", me.Header, tt.bad, err)
			}
			if !strings.Contains(me.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", me.Reason, tt.reason)
			}
		})
	}
}

func TestCheckMessage(t *testing.T) {
	params := mustParams(t, checkSchema)
	err := Check(params, []byte(`{"region": "us-west1"}`), http.Header{"Mcp-Param-Region": {"us-east1"}})
	const want = `Mcp-Param-Region: header "us-east1" does not match arguments.region "us-west1"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}

	// Long and hostile values are cut short and escaped.
	long := strings.Repeat("a", 5000)
	err = Check(params, []byte(`{"region": "`+long+`\r\n"}`), http.Header{"Mcp-Param-Region": {long}})
	if err == nil {
		t.Fatal("Check succeeded")
	}
	if msg := err.Error(); len(msg) > 200 || strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error %q is too long or has a line break", msg)
	}
}

func TestCheckUnsupportedType(t *testing.T) {
	err := Check([]Param{{Path: []string{"n"}, Name: "N", Type: "number"}}, []byte(`{"n": 1}`), http.Header{"Mcp-Param-N": {"1"}})
	if err == nil {
		t.Fatal("Check succeeded")
	}
	if _, ok := errors.AsType[*MismatchError](err); ok {
		t.Errorf("error %v is a *MismatchError; a bad Param is the caller's fault, not the request's", err)
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		raw  string // "" stands for an absent value
		typ  string
		want string
		ok   bool
	}{
		{`"us-west1"`, "string", "us-west1", true},
		{`"Hello, 世界"`, "string", "=?base64?SGVsbG8sIOS4lueVjA==?=", true},
		{`"line1\nline2"`, "string", "=?base64?bGluZTEKbGluZTI=?=", true},
		{`""`, "string", "", true},
		{` "padded" `, "string", "padded", true},
		{`42`, "integer", "42", true},
		{`42.0`, "integer", "42", true},
		{`-1e2`, "integer", "-100", true},
		{`-0`, "integer", "0", true},
		{`true`, "boolean", "true", true},
		{`false`, "boolean", "false", true},
		{``, "string", "", false},
		{`null`, "string", "", false},
		{` null `, "integer", "", false},
		{`42`, "string", "", false},
		{`"42"`, "integer", "", false},
		{`"true"`, "boolean", "", false},
		{`1.5`, "integer", "", false},
		{`9007199254740992`, "integer", "", false},
		{`{}`, "string", "", false},
		{`1`, "number", "", false},
		{`"a" "b"`, "string", "", false},
		{`"unterminated`, "string", "", false},
	}
	for _, tt := range tests {
		var raw json.RawMessage
		if tt.raw != "" {
			raw = json.RawMessage(tt.raw)
		}
		got, ok := FormatValue(raw, tt.typ)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FormatValue(%s, %s) = %q, %v; want %q, %v", tt.raw, tt.typ, got, ok, tt.want, tt.ok)
		}
	}
}

// TestClientServerAgree builds headers as a client would, with Lookup and
// FormatValue, and checks that Check accepts them.
func TestClientServerAgree(t *testing.T) {
	params := mustParams(t, checkSchema)
	for _, args := range []string{
		`{}`,
		`{"region": "us-west1", "count": 42, "dry": false, "target": {"zone": "b"}}`,
		`{"region": " spaced\tout ", "count": -9007199254740991, "dry": true}`,
		`{"region": "=?base64?x?=", "count": 1e3, "target": {"zone": "日本"}}`,
		`{"region": null, "count": 7.00, "target": {"zone": null}}`,
		`{"region": "\u0000\u001f\ud800", "target": 3}`,
	} {
		h := http.Header{}
		for _, p := range params {
			raw, err := Lookup([]byte(args), p.Path)
			if err != nil {
				t.Fatalf("Lookup(%s, %q): %v", args, p.Path, err)
			}
			if v, ok := FormatValue(raw, p.Type); ok {
				h.Set(p.Header(), v)
			}
		}
		if err := Check(params, []byte(args), h); err != nil {
			t.Errorf("Check(%s, %v): %v", args, h, err)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		args string
		path []string
		want string // "" for absent
		err  string
	}{
		{`{"a": {"b": [1, 2]}}`, []string{"a", "b"}, `[1, 2]`, ""},
		{`{"a": {"b": null}}`, []string{"a", "b"}, `null`, ""},
		{` { "a" : 1 } `, []string{"a"}, `1`, ""},
		{`{"a": 1}`, []string{"b"}, ``, ""},
		{`{"a": 1}`, []string{"a", "b"}, ``, ""},
		{`{"a": [{"b": 1}]}`, []string{"a", "b"}, ``, ""},
		{``, []string{"a"}, ``, ""},
		{`  `, []string{"a"}, ``, ""},
		{`"a"`, []string{"a"}, ``, ""},
		{`{"a/b": 1}`, []string{"a/b"}, `1`, ""},
		{`{"a": 1, "a": 2}`, []string{"a"}, ``, `arguments: key "a" occurs more than once`},
		{`{"A": 1, "a": 2}`, []string{"a"}, ``, `arguments: key "A" stands for "a"`},
		{`{"o": {"ſ": 1}}`, []string{"o", "s"}, ``, `arguments.o: key "\u017f" stands for "s"`},
		{`{"a": {"b": 1,}}`, []string{"a", "b"}, ``, "arguments: json: trailing comma"},
		{`{"a": {"b": 1,}}`, []string{"c"}, ``, "arguments: json: trailing comma"},
		{`x`, []string{"a"}, ``, "arguments is not valid JSON"},
	}
	for _, tt := range tests {
		got, err := Lookup([]byte(tt.args), tt.path)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Lookup(%s, %q) error %v, want one containing %q", tt.args, tt.path, err, tt.err)
			}
		case err != nil:
			t.Errorf("Lookup(%s, %q): %v", tt.args, tt.path, err)
		case string(got) != tt.want || (tt.want == "") != (got == nil):
			t.Errorf("Lookup(%s, %q) = %q, want %q", tt.args, tt.path, got, tt.want)
		}
	}
}
