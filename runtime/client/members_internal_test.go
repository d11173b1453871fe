package client

import (
	"bytes"
	"fmt"
	"testing"
)

// withMetaByMembers is withMeta as the member helpers spell it, one
// allocation per member: the reference the one-buffer withMeta must match
// byte for byte.
func withMetaByMembers(params []byte, add []member) ([]byte, error) {
	top, err := members(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	var meta []member
	for _, m := range top {
		if m.key == "_meta" {
			if meta, err = members(m.value); err != nil {
				return nil, fmt.Errorf("params._meta: %w", err)
			}
		}
	}
	for _, a := range add {
		if !has(meta, a.key) {
			meta = append(meta, a)
		}
	}
	return object(set(top, "_meta", object(meta))), nil
}

func TestWithMetaMatchesMembers(t *testing.T) {
	add := []member{
		{key: metaProtocolVersion, value: []byte(`"2026-07-28"`)},
		{key: metaClientInfo, value: []byte(`{"name":"c","version":"1"}`)},
		{key: "a<b", value: []byte(`1`)},
	}
	for _, params := range []string{
		``,
		`{}`,
		` { "name" : "echo" , "arguments" : { "x" : [1, 2] } } `,
		`{"name":"echo","_meta":{"progressToken":7}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"mine"},"name":"echo"}`,
		`{"_meta":{},"x":1,"_meta":{"k":true}}`,
		`{"n\u0061me":"\u00e9","_m\u0065ta":{"\u0061<b":2}}`,
		`{"name":"echo","_meta":null}`,
		`{"name":"echo","_meta":[]}`,
		`{"name":`,
		`[]`,
		`{"a":1} trailing`,
	} {
		want, wantErr := withMetaByMembers([]byte(params), add)
		got, err := withMeta([]byte(params), add)
		if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("withMeta(%s) = %s, %v\nwant %s, %v", params, got, err, want, wantErr)
		}
	}
	params := []byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":1}}`)
	if n := testing.AllocsPerRun(100, func() { withMeta(params, add[:2]) }); n > 2 {
		t.Errorf("withMeta allocates %v times, want the two buffers it writes", n)
	}
}

func TestMemberOf(t *testing.T) {
	obj := []byte(`{"resultType":"complete","content":[{"a":"}"}],"k\u0065y":"v","resultType":"second"}`)
	for _, c := range []struct {
		obj, key, want string
	}{
		{string(obj), "resultType", `"complete"`}, // the first of duplicates
		{string(obj), "content", `[{"a":"}"}]`},
		{string(obj), "key", `"v"`},
		{string(obj), "absent", ``},
		{`{"a":1`, "a", ``}, // malformed: nothing
		{`[1]`, "a", ``},
		{``, "a", ``},
	} {
		if got := memberOf([]byte(c.obj), c.key); string(got) != c.want {
			t.Errorf("memberOf(%s, %q) = %s, want %s", c.obj, c.key, got, c.want)
		}
	}
	plain := []byte(`{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`)
	if n := testing.AllocsPerRun(100, func() { memberOf(plain, "content") }); n != 0 {
		t.Errorf("memberOf allocates %v times, want 0", n)
	}
}
