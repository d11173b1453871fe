package support

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		raw  string
		want jsonrpc.Kind
	}{
		{`{}`, jsonrpc.KindObject},
		{" \n\t\r{\"a\":1}", jsonrpc.KindObject},
		{`[1]`, jsonrpc.KindArray},
		{`"x"`, jsonrpc.KindString},
		{`-1`, jsonrpc.KindNumber},
		{`0.5`, jsonrpc.KindNumber},
		{`true`, jsonrpc.KindBool},
		{`false`, jsonrpc.KindBool},
		{`null`, jsonrpc.KindNull},
		{``, jsonrpc.KindInvalid},
		{`   `, jsonrpc.KindInvalid},
		{`}`, jsonrpc.KindInvalid},
		{`x`, jsonrpc.KindInvalid},
		{`+1`, jsonrpc.KindInvalid},
	}
	for _, tt := range tests {
		if got := kindOf([]byte(tt.raw)); got != tt.want {
			t.Errorf("kindOf(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

func TestObjectKeys(t *testing.T) {
	names := []string{"type", "uri", "text", "blob"}
	tests := []struct {
		raw     string
		want    uint64
		wantErr string // substring of the error; "" for none
	}{
		{`{}`, 0, ""},
		{`{"type":"text","text":"hi"}`, 0b0101, ""},
		{` { "uri" : "x" , "blob" : "QQ==" } `, 0b1010, ""},
		// Keys of nested objects do not count.
		{`{"a":{"type":1,"uri":2},"b":[{"text":3}]}`, 0, ""},
		{`{"a":{"type":1},"blob":{"uri":{"text":{}}}}`, 0b1000, ""},
		// Keys are compared unescaped.
		{`{"ty\u0070e":1,"\u0075ri":2}`, 0b0011, ""},
		{`{"t\"ype":1,"Type":2,"type ":3,"typ":4}`, 0, ""},
		// Duplicates are harmless.
		{`{"uri":1,"uri":2,"uri":3}`, 0b0010, ""},
		// String values that look like keys do not count.
		{`{"x":"type","y":["uri"]}`, 0, ""},
		// Errors.
		{`[]`, 0, "expected object, got array"},
		{`"type"`, 0, "expected object, got string"},
		{``, 0, "unexpected end of input"},
		{`{"type":}`, 0, "json:"},
		{`{"type":1`, 0, "unexpected end of input"},
		{`{"type":1,}`, 0, "trailing comma"},
		{`{"type":1} x`, 0, "unexpected data after top-level value"},
		{`{"type":1}{}`, 0, "unexpected data after top-level value"},
	}
	for _, tt := range tests {
		got, err := objectKeys([]byte(tt.raw), names)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("objectKeys(%q): %v", tt.raw, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("objectKeys(%q) error = %v, want one with %q", tt.raw, err, tt.wantErr)
		case got != tt.want:
			t.Errorf("objectKeys(%q) = %b, want %b", tt.raw, got, tt.want)
		}
	}

	// The scanner's typed errors come through for fielderr.From to explain.
	_, err := objectKeys([]byte(`5`), names)
	var te *jsonrpc.TypeError
	if !errors.As(err, &te) || te.Got != jsonrpc.KindNumber {
		t.Errorf("objectKeys(5) error = %#v, want a *jsonrpc.TypeError", err)
	}
}

func TestObjectKeys64(t *testing.T) {
	names := make([]string, 64)
	var b strings.Builder
	b.WriteString("{")
	for i := range names {
		names[i] = fmt.Sprintf("k%d", i)
		if i%2 == 1 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
	}
	b.WriteString(`"k63":0}`)
	got, err := objectKeys([]byte(b.String()), names)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(0xAAAAAAAAAAAAAAAA); got != want {
		t.Errorf("got %x, want %x", got, want)
	}
}

func TestConstAt(t *testing.T) {
	const doc = `{
		"type": "object",
		"items": {"anyOf": [1, 2], "type": "array"},
		"n": {"m": {"o": "deep"}},
		"esc\u0061ped": "yes",
		"dup": 1, "dup": {"x": 2},
		"arr": [{"a": 1}],
		"s": "str",
		"e": {}
	}`
	tests := []struct {
		path []string
		want string
		ok   bool
	}{
		{nil, strings.TrimSpace(doc), true},
		{[]string{"type"}, `"object"`, true},
		{[]string{"items"}, `{"anyOf": [1, 2], "type": "array"}`, true},
		{[]string{"items", "anyOf"}, `[1, 2]`, true},
		{[]string{"items", "type"}, `"array"`, true},
		{[]string{"n", "m", "o"}, `"deep"`, true},
		{[]string{"escaped"}, `"yes"`, true},
		{[]string{"esc\\u0061ped"}, ``, false},
		// The last of duplicate keys wins.
		{[]string{"dup"}, `{"x": 2}`, true},
		{[]string{"dup", "x"}, `2`, true},
		// Missing steps and steps into non-objects.
		{[]string{"missing"}, ``, false},
		{[]string{"items", "missing"}, ``, false},
		{[]string{"type", "x"}, ``, false},
		{[]string{"arr", "a"}, ``, false},
		{[]string{"s", "x"}, ``, false},
		{[]string{"e", "x"}, ``, false},
		{[]string{"n", "m", "o", "p"}, ``, false},
	}
	for _, tt := range tests {
		got, ok := constAt([]byte(doc), tt.path...)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("constAt(%q) = %q, %v; want %q, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestConstAtBadInput(t *testing.T) {
	for _, raw := range []string{``, ` `, `[]`, `"x"`, `{"a":1`, `{"a":1}}`, `{"a":1} 2`, `{"a":tru}`, `{"a":1,"b":}`, `{"b":[}`} {
		if v, ok := constAt([]byte(raw), "a"); ok {
			t.Errorf("constAt(%q, a) = %q, true; want false", raw, v)
		}
	}
	for _, raw := range []string{``, `{`, `1 2`, `nul`} {
		if v, ok := constAt([]byte(raw)); ok {
			t.Errorf("constAt(%q) = %q, true; want false", raw, v)
		}
	}
	// A malformed value after the member found still makes the whole fail.
	if _, ok := constAt([]byte(`{"a":1,"b":[1,}`), "a"); ok {
		t.Error("constAt ignored a syntax error after the member")
	}
}

func TestStringAt(t *testing.T) {
	tests := []struct {
		raw  string
		path []string
		want string
		ok   bool
	}{
		{`{"type":"text"}`, []string{"type"}, "text", true},
		{`{"type":"te\u0078t"}`, []string{"type"}, "text", true},
		{`{"ty\u0070e":"a\"b\\c\n"}`, []string{"type"}, "a\"b\\c\n", true},
		{`{"type":""}`, []string{"type"}, "", true},
		{`{"type":"x","type":"y"}`, []string{"type"}, "y", true},
		{`{"a":{"type":"inner"},"type":"outer"}`, []string{"type"}, "outer", true},
		{`{"a":{"type":"inner"},"type":"outer"}`, []string{"a", "type"}, "inner", true},
		{`{"type":1}`, []string{"type"}, "", false},
		{`{"type":null}`, []string{"type"}, "", false},
		{`{"type":["text"]}`, []string{"type"}, "", false},
		{`{}`, []string{"type"}, "", false},
		{`"text"`, nil, "text", true},
		{`"text"`, []string{"type"}, "", false},
		{`{"type":"\ud83d\ude00"}`, []string{"type"}, "😀", true},
	}
	for _, tt := range tests {
		got, ok := stringAt([]byte(tt.raw), tt.path...)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("stringAt(%q, %q) = %q, %v; want %q, %v", tt.raw, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPickVariant(t *testing.T) {
	// Variants of a made-up union over the names
	// bit 0 "uri", 1 "text", 2 "blob", 3 "mimeType", 4 "name".
	const (
		uri = 1 << iota
		text
		blob
		mimeType
		name
	)
	textContents := [2]uint64{uri | text, uri | text | mimeType}
	blobContents := [2]uint64{uri | blob, uri | blob | mimeType}
	link := [2]uint64{uri | name, uri | name | mimeType}
	bare := [2]uint64{uri, uri | mimeType}
	variants := func(vs ...[2]uint64) (req, decl []uint64) {
		for _, v := range vs {
			req = append(req, v[0])
			decl = append(decl, v[1])
		}
		return req, decl
	}
	tests := []struct {
		name     string
		present  uint64
		variants [][2]uint64
		best     int
		tie      bool
	}{
		{"none qualifies", mimeType, [][2]uint64{textContents, blobContents}, -1, false},
		{"no variants", uri, nil, -1, false},
		{"one qualifies", uri | text, [][2]uint64{textContents, blobContents}, 0, false},
		{"second qualifies", uri | blob | mimeType, [][2]uint64{textContents, blobContents}, 1, false},
		{"most required wins", uri | text, [][2]uint64{bare, textContents}, 1, false},
		{"most required wins, order reversed", uri | text, [][2]uint64{textContents, bare}, 0, false},
		{"both full, tie", uri | text | blob, [][2]uint64{textContents, blobContents}, 0, true},
		{"tie later broken by more required", uri | text | blob | name, [][2]uint64{textContents, blobContents, {uri | text | name, 0}}, 2, false},
		{"declared breaks the tie", uri | mimeType, [][2]uint64{{uri, uri}, {uri, uri | mimeType}}, 1, false},
		{"declared breaks the tie, order reversed", uri | mimeType, [][2]uint64{{uri, uri | mimeType}, {uri, uri}}, 0, false},
		{"equal declared, tie", uri | mimeType, [][2]uint64{{uri, uri | mimeType}, {uri, uri | mimeType}, {uri, uri}}, 0, true},
		{"tie then better", uri | text, [][2]uint64{{uri, uri}, {uri, uri}, {uri | text, uri | text}}, 2, false},
		{"nothing required qualifies always", 0, [][2]uint64{{0, uri}, {text, text}}, 0, false},
		{"three-way", uri | name | mimeType, [][2]uint64{bare, link, textContents}, 1, false},
		{"bit 63", 1 << 63, [][2]uint64{{1 << 62, 1 << 62}, {1 << 63, 1 << 63}}, 1, false},
	}
	for _, tt := range tests {
		req, decl := variants(tt.variants...)
		best, tie := pickVariant(tt.present, req, decl)
		if best != tt.best || tie != tt.tie {
			t.Errorf("%s: pickVariant = %d, %v; want %d, %v", tt.name, best, tie, tt.best, tt.tie)
		}
	}
}

func TestUnionHelpersAllocateNothing(t *testing.T) {
	raw := []byte(`{"type":"text","text":"hello","annotations":{"audience":["user"],"type":"nested"},"_meta":{}}`)
	names := []string{"type", "text", "uri", "annotations"}
	required := []uint64{0b0011, 0b0101}
	declared := []uint64{0b1011, 0b1101}
	checks := map[string]func(){
		"kindOf": func() { _ = kindOf(raw) },
		"objectKeys": func() {
			if p, err := objectKeys(raw, names); err != nil || p != 0b1011 {
				t.Fatal(p, err)
			}
		},
		"constAt": func() {
			if v, ok := constAt(raw, "annotations", "audience"); !ok || string(v) != `["user"]` {
				t.Fatal(string(v), ok)
			}
		},
		"stringAt": func() {
			if v, ok := stringAt(raw, "type"); !ok || string(v) != "text" {
				t.Fatal(string(v), ok)
			}
		},
		"stringAt nested": func() {
			if v, ok := stringAt(raw, "annotations", "type"); !ok || string(v) != "nested" {
				t.Fatal(string(v), ok)
			}
		},
		"pickVariant": func() {
			if best, tie := pickVariant(0b1011, required, declared); best != 0 || tie {
				t.Fatal(best, tie)
			}
		},
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}

// FuzzUnionHelpers compares objectKeys and constAt with encoding/json on
// objects that both accept: the same top-level keys, and for each key the
// same raw value, the last one when a key repeats.
func FuzzUnionHelpers(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"type":"text","text":"x"}`, `{"a":{"type":1},"type":[2]}`, `{"ty\u0070e":1,"type":2}`,
		`{"a":1,"a":{"b":2}}`, ` { "k" : [ 1 , { "k" : 3 } ] } `, `{"\ud800":1}`, `{"":""}`, `[]`, `1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return
		}
		if _, ok := m["no such key"]; ok {
			return
		}
		names := make([]string, 0, len(m))
		for k := range m {
			if len(names) == 64 {
				break
			}
			names = append(names, k)
		}
		names = append(names[:min(len(names), 63)], "no such key")
		present, err := objectKeys(raw, names)
		if err != nil {
			return // the scanner is stricter; its own tests cover that
		}
		if want := uint64(1)<<(len(names)-1) - 1; present != want {
			t.Errorf("objectKeys(%q, %q) = %b, want %b", raw, names, present, want)
		}
		for _, k := range names[:len(names)-1] {
			v, ok := constAt(raw, k)
			if !ok || !bytes.Equal(v, m[k]) {
				t.Errorf("constAt(%q, %q) = %q, %v; want %q", raw, k, v, ok, m[k])
			}
		}
		if _, ok := constAt(raw, "no such key"); ok && m["no such key"] == nil {
			t.Errorf("constAt(%q) found a missing key", raw)
		}
	})
}
