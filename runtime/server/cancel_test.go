package server

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestCancelledRequestID(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   jsonrpc.ID
		ok     bool
	}{
		{`{"requestId":5}`, jsonrpc.IntID(5), true},
		{`{"requestId":"a","reason":"bored"}`, jsonrpc.StringID("a"), true},
		// Keys are matched exactly, as the generated decoder does: a key
		// spelled in another case is an unknown field.
		{`{"requestId":5,"requestid":7}`, jsonrpc.IntID(5), true},
		{`{"requestid":7}`, jsonrpc.ID{}, false},
		{`{}`, jsonrpc.ID{}, false},
		{`{"requestId":null}`, jsonrpc.ID{}, false},
		{`[5]`, jsonrpc.ID{}, false},
		{`{"requestId":5`, jsonrpc.ID{}, false},
	} {
		id, err := CancelledRequestID([]byte(tc.params))
		if (err == nil) != tc.ok || id != tc.want {
			t.Errorf("CancelledRequestID(%s) = %v, %v; want %v, ok %t", tc.params, id, err, tc.want, tc.ok)
		}
	}
}
