package support

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestAppendExtra(t *testing.T) {
	tests := []struct {
		name      string
		prefix    string
		m         map[string]json.RawMessage
		first     bool
		want      string
		wantFirst bool
	}{
		{"nil map", "{", nil, true, "{", true},
		{"empty map keeps first false", `{"a":1`, map[string]json.RawMessage{}, false, `{"a":1`, false},
		{"first member", "{", map[string]json.RawMessage{"b": json.RawMessage(`2`)}, true, `{"b":2`, false},
		{"after a member", `{"a":1`, map[string]json.RawMessage{"b": json.RawMessage(`2`)}, false, `{"a":1,"b":2`, false},
		{"sorted", "{", map[string]json.RawMessage{
			"zeta": json.RawMessage(`"z"`), "alpha": json.RawMessage(`[1, 2]`), "Mid": json.RawMessage(`{"x": null}`), "_meta": json.RawMessage(`{}`),
		}, true, `{"Mid":{"x": null},"_meta":{},"alpha":[1, 2],"zeta":"z"`, false},
		{"nil and empty values are null", "{", map[string]json.RawMessage{"a": nil, "b": {}}, true, `{"a":null,"b":null`, false},
		{"keys are escaped", "{", map[string]json.RawMessage{"a\"b": json.RawMessage(`1`), "\n": json.RawMessage(`2`)}, true, `{"\n":2,"a\"b":1`, false},
	}
	for _, tt := range tests {
		got, first := appendExtra([]byte(tt.prefix), tt.m, tt.first)
		if string(got) != tt.want || first != tt.wantFirst {
			t.Errorf("%s: got %s, %v; want %s, %v", tt.name, got, first, tt.want, tt.wantFirst)
		}
	}
}

// TestAppendExtraMatchesEncodingJSON checks that the output, closed with a
// brace, is what encoding/json writes for the map, at sizes on both sides of
// the stack array.
func TestAppendExtraMatchesEncodingJSON(t *testing.T) {
	for _, n := range []int{1, 2, 15, 16, 17, 40} {
		m := make(map[string]json.RawMessage, n)
		for i := range n {
			m[fmt.Sprintf("k%03d<%c>", (i*7919)%1000, 'a'+i%26)] = json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))
		}
		got, _ := appendExtra([]byte("{"), m, true)
		got = append(got, '}')
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// encoding/json escapes <, > and & in keys; jsonrpc.AppendString is
		// meant to write the same bytes.
		if !bytes.Equal(got, want) {
			t.Errorf("n=%d:\ngot  %s\nwant %s", n, got, want)
		}
	}
}

func TestAppendExtraAllocations(t *testing.T) {
	m := make(map[string]json.RawMessage)
	for i := range 16 {
		m[fmt.Sprint("key", i)] = json.RawMessage(`true`)
	}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { appendExtra(buf[:0], m, true) }); n != 0 {
		t.Errorf("appendExtra with 16 members allocates %v times", n)
	}
	m["key16"] = json.RawMessage(`1`)
	if n := testing.AllocsPerRun(100, func() { appendExtra(buf[:0], m, true) }); n > 1 {
		t.Errorf("appendExtra with 17 members allocates %v times, want at most 1", n)
	}
}

func TestAppendRawOrNull(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{{"", "null"}, {"1", "1"}, {` {"a": 1} `, ` {"a": 1} `}} {
		if got := appendRawOrNull([]byte("x"), json.RawMessage(tt.raw)); string(got) != "x"+tt.want {
			t.Errorf("appendRawOrNull(%q) = %q", tt.raw, got)
		}
	}
	if got := appendRawOrNull(nil, nil); string(got) != "null" {
		t.Errorf("appendRawOrNull(nil) = %q", got)
	}
}

func TestDecodeRawCopies(t *testing.T) {
	buf := []byte(`[ {"a": [1, 2]} , "s" ]`)
	var s jsonrpc.Scanner
	s.Reset(buf)
	if err := s.ArrayStart(); err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	for {
		ok, err := s.NextElem()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		raw, err := decodeRaw(&s)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, raw)
	}
	for i := range buf {
		buf[i] = 'X' // the input buffer is reused
	}
	if len(got) != 2 || string(got[0]) != `{"a": [1, 2]}` || string(got[1]) != `"s"` {
		t.Errorf("got %q", got)
	}
}

func TestDecodeRawError(t *testing.T) {
	var s jsonrpc.Scanner
	s.Reset([]byte(`{"a":`))
	if raw, err := decodeRaw(&s); err == nil {
		t.Errorf("decodeRaw of a truncated value = %q, nil", raw)
	}
	s.Reset(nil)
	if raw, err := decodeRaw(&s); err == nil {
		t.Errorf("decodeRaw of nothing = %q, nil", raw)
	}
}

// TestDecodeExtra decodes an object the way a generated decoder does, with
// the members it does not know going to the extra map.
func TestDecodeExtra(t *testing.T) {
	input := []byte(`{"known": 1, "x": {"y": [true]}, "esc\u0061ped\"key": "v", "x": null, "z": 2.5e3}`)
	var s jsonrpc.Scanner
	s.Reset(input)
	if err := s.ObjectStart(); err != nil {
		t.Fatal(err)
	}
	var extra map[string]json.RawMessage
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if string(key) == "known" {
			if _, err := s.Int64(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := decodeExtra(&s, key, &extra); err != nil {
			t.Fatal(err)
		}
	}
	for i := range input {
		input[i] = 0
	}
	want := map[string]string{"x": "null", "escaped\"key": `"v"`, "z": "2.5e3"}
	if len(extra) != len(want) {
		t.Fatalf("got %q", extra)
	}
	for k, v := range want {
		if string(extra[k]) != v {
			t.Errorf("extra[%q] = %q, want %q", k, extra[k], v)
		}
	}
	out, _ := appendExtra([]byte("{"), extra, true)
	if got := string(out) + "}"; got != `{"escaped\"key":"v","x":null,"z":2.5e3}` {
		t.Errorf("re-encoded as %s", got)
	}
}

func TestDecodeExtraError(t *testing.T) {
	var s jsonrpc.Scanner
	s.Reset([]byte(`{"a": tru}`))
	if err := s.ObjectStart(); err != nil {
		t.Fatal(err)
	}
	key, _, err := s.NextKey()
	if err != nil {
		t.Fatal(err)
	}
	var extra map[string]json.RawMessage
	err = decodeExtra(&s, key, &extra)
	if err == nil || !strings.Contains(err.Error(), "json:") {
		t.Errorf("decodeExtra error = %v", err)
	}
	if extra != nil {
		t.Errorf("map made on error: %v", extra)
	}
}

func TestAppendCompact(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"compact already", `{"a":1}`, `{"a":1}`},
		{"indented", "{\n  \"a\": [1, 2]\n}", `{"a":[1,2]}`},
		{"trailing CRLF", "\"x\"\r\n", `"x"`},
		{"not JSON is copied", "{\n", "{\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendCompact(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("appendCompact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if n := testing.AllocsPerRun(100, func() { appendCompact(make([]byte, 0, 64), []byte(`{"a":1}`)) }); n > 1 {
		t.Errorf("compact JSON allocates %v times", n)
	}
}
