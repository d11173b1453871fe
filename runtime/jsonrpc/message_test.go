package jsonrpc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		in   string
		kind MessageKind
		want Message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, MessageRequest,
			Message{ID: IntID(1), Method: "tools/call", Params: []byte(`{"name":"x"}`)}},
		{` { "method" : "m" , "id" : "abc" , "jsonrpc" : "2.0" , "params" : [ 1 ] } `, MessageRequest,
			Message{ID: StringID("abc"), Method: "m", Params: []byte(`[ 1 ]`)}},
		{`{"jsonrpc":"2.0","id":"","method":"m"}`, MessageRequest, Message{ID: StringID(""), Method: "m"}},
		{`{"jsonrpc":"2.0","id":0,"method":"m"}`, MessageRequest, Message{ID: IntID(0), Method: "m"}},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}`, MessageRequest,
			Message{ID: ID{str: "123456789012345678901234567890", kind: idBig}, Method: "m"}},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, MessageNotification,
			Message{Method: "notifications/initialized"}},
		{`{"jsonrpc":"2.0","method":"n","params":{},"x-extra":{"deep":[1,2]}}`, MessageNotification,
			Message{Method: "n", Params: []byte(`{}`)}},
		{`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`, MessageResponse,
			Message{ID: IntID(7), Result: []byte(`{"ok":true}`)}},
		{`{"jsonrpc":"2.0","id":7,"result":null}`, MessageResponse, Message{ID: IntID(7), Result: []byte(`null`)}},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no such method","data":{"m":"x"}}}`, MessageResponse,
			Message{ID: StringID("a"), Error: &Error{Code: -32601, Message: "no such method", Data: []byte(`{"m":"x"}`)}}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","extra":1}}`, MessageResponse,
			Message{Error: &Error{Code: -32700, Message: "parse error"}}},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.0,"message":"\u00e9"}}`, MessageResponse,
			Message{ID: IntID(1), Error: &Error{Code: 1, Message: "é"}}},
	}
	for _, tt := range tests {
		m, err := DecodeMessage([]byte(tt.in))
		if err != nil {
			t.Errorf("DecodeMessage(%s): %v", tt.in, err)
			continue
		}
		if m.Kind() != tt.kind {
			t.Errorf("DecodeMessage(%s).Kind() = %v, want %v", tt.in, m.Kind(), tt.kind)
		}
		if got, want := fmt.Sprintf("%+v", show(m)), fmt.Sprintf("%+v", show(tt.want)); got != want {
			t.Errorf("DecodeMessage(%s) =\n%s, want\n%s", tt.in, got, want)
		}
	}
}

// show makes a Message printable for comparison.
func show(m Message) string {
	s := fmt.Sprintf("id=%s method=%q params=%q result=%q", m.ID, m.Method, m.Params, m.Result)
	if m.Error != nil {
		s += fmt.Sprintf(" error=%d/%q/%q", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	return s
}

func TestDecodeMessageInvalid(t *testing.T) {
	const parse, invalid = CodeParseError, CodeInvalidRequest
	tests := []struct {
		in     string
		code   int64
		id     ID     // the id the answer should carry
		reason string // a piece of the message
	}{
		{``, parse, ID{}, "end of input"},
		{`{`, parse, ID{}, "end of input"},
		{`{"jsonrpc":"2.0","method":"m"} x`, parse, ID{}, "after top-level value"},
		{`{"jsonrpc":"2.0","method":"m"}{}`, parse, ID{}, "after top-level value"},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":}}`, parse, ID{}, "invalid character"},
		{`{"jsonrpc":"2.0","id":true,"method":"m","params":{"a":]}}`, parse, ID{}, "invalid character"},
		{`{"jsonrpc":2.0,"id":1,"method":"m",}`, parse, ID{}, "trailing comma"},
		{`{"jsonrpc":"2.0","id":-,"method":"m"}`, parse, ID{}, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"m"`, parse, ID{}, "end of input"},
		{`5`, invalid, ID{}, "must be an object, not number"},
		{`"x"`, invalid, ID{}, "not string"},
		{`null`, invalid, ID{}, "not null"},
		{`[{"jsonrpc":"2.0","method":"m"}]`, invalid, ID{}, "batch"},
		{`{"id":1,"method":"m"}`, invalid, IntID(1), `"jsonrpc" is missing`},
		{`{"jsonrpc":"1.0","id":7,"method":"m"}`, invalid, IntID(7), `must be "2.0"`},
		{`{"jsonrpc":2.0,"id":"s","method":"m"}`, invalid, StringID("s"), `must be "2.0"`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"m"}`, invalid, ID{}, "1.5 is not an integer"},
		{`{"jsonrpc":"2.0","id":1.0,"method":"m"}`, invalid, ID{}, "not an integer"},
		{`{"jsonrpc":"2.0","id":1e3,"method":"m"}`, invalid, ID{}, "not an integer"},
		{`{"jsonrpc":"2.0","id":true,"method":"m"}`, invalid, ID{}, "string or an integer"},
		{`{"jsonrpc":"2.0","id":{},"method":"m"}`, invalid, ID{}, "string or an integer"},
		{`{"jsonrpc":"2.0","id":[1],"method":"m"}`, invalid, ID{}, "string or an integer"},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, invalid, ID{}, "must not be null"},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, invalid, IntID(1), `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, invalid, IntID(1), "must not be empty"},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, invalid, IntID(1), "not string"},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":5}`, invalid, IntID(1), "not number"},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, invalid, IntID(1), "not null"},
		{`{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, invalid, IntID(1), "must not have a result"},
		{`{"jsonrpc":"2.0","method":"m","error":{"code":1,"message":"x"}}`, invalid, ID{}, "must not have a result or an error"},
		{`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}`, invalid, IntID(1), "both"},
		{`{"jsonrpc":"2.0","id":1}`, invalid, IntID(1), `needs a "method"`},
		{`{"jsonrpc":"2.0"}`, invalid, ID{}, `needs a "method"`},
		{`{}`, invalid, ID{}, `"jsonrpc" is missing`},
		{`{"jsonrpc":"2.0","result":1}`, invalid, ID{}, `needs an "id"`},
		{`{"jsonrpc":"2.0","id":null,"result":1}`, invalid, ID{}, "result's id must not be null"},
		{`{"jsonrpc":"2.0","id":1,"result":1,"params":{}}`, invalid, IntID(1), `must not have "params"`},
		{`{"jsonrpc":"2.0","id":1,"error":"bad"}`, invalid, IntID(1), `"error" must be an object`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, invalid, IntID(1), `"error.code" must be an integer`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, invalid, IntID(1), `"error.code" must be an integer`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1e30,"message":"m"}}`, invalid, IntID(1), `"error.code" must be an integer`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, invalid, IntID(1), `"error.message" must be a string`},
		{`{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, invalid, IntID(1), `"error.code" is missing`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, invalid, IntID(1), `"error.message" is missing`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`, invalid, IntID(1), `"error.code" appears twice`},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, invalid, IntID(2), `"id" appears twice`},
		{`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`, invalid, IntID(1), `"method" appears twice`},
	}
	for _, tt := range tests {
		m, err := DecodeMessage([]byte(tt.in))
		e, ok := errors.AsType[*Error](err)
		if !ok {
			t.Errorf("DecodeMessage(%s) = %v, %v; want a *Error", tt.in, show(m), err)
			continue
		}
		if e.Code != tt.code || !strings.Contains(e.Message, tt.reason) {
			t.Errorf("DecodeMessage(%s) error = %d %q, want %d containing %q", tt.in, e.Code, e.Message, tt.code, tt.reason)
		}
		if m.ID != tt.id {
			t.Errorf("DecodeMessage(%s) id = %v, want %v", tt.in, m.ID, tt.id)
		}
	}
}

func TestDecodeBatch(t *testing.T) {
	msgs, isBatch, err := DecodeBatch([]byte(`{"jsonrpc":"2.0","method":"m"}`))
	if err != nil || isBatch || len(msgs) != 1 || msgs[0].Method != "m" {
		t.Errorf("DecodeBatch(single) = %v, %v, %v", msgs, isBatch, err)
	}
	if _, isBatch, err := DecodeBatch([]byte(`{"jsonrpc":"2.0"}`)); isBatch || code(err) != CodeInvalidRequest {
		t.Errorf("DecodeBatch(invalid single) = %v, %v", isBatch, err)
	}

	msgs, isBatch, err = DecodeBatch([]byte(` [ {"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"b"},` +
		`{"jsonrpc":"2.0","id":2,"result":[]} ] `))
	if err != nil || !isBatch || len(msgs) != 3 {
		t.Fatalf("DecodeBatch(valid) = %v, %v, %v", msgs, isBatch, err)
	}
	for i, want := range []MessageKind{MessageRequest, MessageNotification, MessageResponse} {
		if msgs[i].Kind() != want {
			t.Errorf("batch[%d].Kind() = %v, want %v", i, msgs[i].Kind(), want)
		}
	}

	tests := []struct {
		in   string
		code int64
	}{
		{`[]`, CodeInvalidRequest},
		{` [ ] `, CodeInvalidRequest},
		{`[`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"},`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method"]`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"}] x`, CodeParseError},
	}
	for _, tt := range tests {
		msgs, isBatch, err := DecodeBatch([]byte(tt.in))
		if msgs != nil || !isBatch || code(err) != tt.code {
			t.Errorf("DecodeBatch(%s) = %v, %v, %v; want code %d", tt.in, msgs, isBatch, err, tt.code)
		}
	}

	msgs, isBatch, err = DecodeBatch([]byte(`[1,{"jsonrpc":"2.0","method":"ok"},{"jsonrpc":"2.0","id":"x","method":""},"s"]`))
	be, ok := errors.AsType[*BatchError](err)
	if !ok || !isBatch || len(msgs) != 1 || msgs[0].Method != "ok" {
		t.Fatalf("DecodeBatch(partly invalid) = %v, %v, %v", msgs, isBatch, err)
	}
	want := []InvalidElement{{Index: 0}, {Index: 2, ID: StringID("x")}, {Index: 3}}
	if len(be.Invalid) != len(want) {
		t.Fatalf("invalid elements = %+v, want %+v", be.Invalid, want)
	}
	for i, w := range want {
		if g := be.Invalid[i]; g.Index != w.Index || g.ID != w.ID || g.Err.Code != CodeInvalidRequest {
			t.Errorf("invalid element %d = %+v, want %+v with code -32600", i, g, w)
		}
	}
	if got := be.Error(); !strings.Contains(got, "batch element 0:") || !strings.Contains(got, "and 2 more") {
		t.Errorf("BatchError.Error() = %q", got)
	}
}

func code(err error) int64 {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return 0
}

func TestID(t *testing.T) {
	tests := []struct {
		in, out string // JSON read by ParseID, and written back by AppendJSON
		id      ID
	}{
		{`"abc"`, `"abc"`, StringID("abc")},
		{`""`, `""`, StringID("")},
		{`"\u00e9\n<"`, `"é\n\u003c"`, StringID("é\n<")},
		{`0`, `0`, IntID(0)},
		{`-5`, `-5`, IntID(-5)},
		{` 42 `, `42`, IntID(42)},
		{`9223372036854775807`, `9223372036854775807`, IntID(9223372036854775807)},
		{`-9223372036854775808`, `-9223372036854775808`, IntID(-9223372036854775808)},
		{`9223372036854775808`, `9223372036854775808`, ID{str: "9223372036854775808", kind: idBig}},
		{`-123456789012345678901234567890`, `-123456789012345678901234567890`, ID{str: "-123456789012345678901234567890", kind: idBig}},
	}
	for _, tt := range tests {
		id, err := ParseID([]byte(tt.in))
		if err != nil || id != tt.id {
			t.Errorf("ParseID(%s) = %#v, %v; want %#v", tt.in, id, err, tt.id)
			continue
		}
		if got := string(id.AppendJSON([]byte("x"))); got != "x"+tt.out {
			t.Errorf("AppendJSON(%s) = %s, want x%s", tt.in, got, tt.out)
		}
		if got := id.String(); got != tt.out {
			t.Errorf("String(%s) = %s, want %s", tt.in, got, tt.out)
		}
		if id.IsZero() {
			t.Errorf("ParseID(%s).IsZero()", tt.in)
		}
		// Through a whole message and back.
		frame := AppendRequest(nil, id, "m", nil)
		m, err := DecodeMessage(frame)
		if err != nil || m.ID != id {
			t.Errorf("request %s decodes to id %v, %v", frame, m.ID, err)
		}
	}
	for _, in := range []string{`null`, `1.5`, `1.0`, `1e3`, `-0.0`, `true`, `{}`, `[]`, `"x`, ``, `1 2`, `01`} {
		if id, err := ParseID([]byte(in)); err == nil {
			t.Errorf("ParseID(%s) = %v, want an error", in, id)
		}
	}

	var zero ID
	if !zero.IsZero() || zero.String() != "null" || string(zero.AppendJSON(nil)) != "null" {
		t.Errorf("zero ID: IsZero %v, String %q", zero.IsZero(), zero.String())
	}
	if n, ok := IntID(3).Int(); !ok || n != 3 {
		t.Errorf("IntID(3).Int() = %d, %v", n, ok)
	}
	if _, ok := StringID("3").Int(); ok {
		t.Error("StringID(3).Int() reports an integer")
	}
	if s, ok := StringID("3").Str(); !ok || s != "3" {
		t.Errorf("StringID(3).Str() = %q, %v", s, ok)
	}
	if _, ok := IntID(3).Str(); ok {
		t.Error("IntID(3).Str() reports a string")
	}
	// Comparable, and a usable map key that keeps the kinds apart.
	m := map[ID]int{IntID(1): 1, StringID("1"): 2}
	if m[IntID(1)] != 1 || m[StringID("1")] != 2 || len(m) != 2 || IntID(1) == StringID("1") {
		t.Errorf("IDs as map keys: %v", m)
	}
}

func TestAppendEnvelopes(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{string(AppendRequest(nil, IntID(1), "tools/call", []byte(`{"a":1}`))),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":1}}`},
		{string(AppendRequest(nil, StringID("x"), "ping", nil)), `{"jsonrpc":"2.0","id":"x","method":"ping"}`},
		{string(AppendRequest(nil, ID{}, "n", nil)), `{"jsonrpc":"2.0","method":"n"}`},
		{string(AppendNotification([]byte("> "), "a\"b", []byte(`[]`))), `> {"jsonrpc":"2.0","method":"a\"b","params":[]}`},
		{string(AppendResult(nil, IntID(2), []byte(`{"ok":true}`))), `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`},
		{string(AppendResult(nil, IntID(2), nil)), `{"jsonrpc":"2.0","id":2,"result":null}`},
		{string(AppendError(nil, IntID(3), ErrMethodNotFound("x"))),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: x"}}`},
		{string(AppendError(nil, ID{}, &Error{Code: -32700, Message: "bad", Data: []byte(`{"at":3}`)})),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"at":3}}}`},
		{string(AppendError(nil, IntID(4), nil)), `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"internal error"}}`},
		{string(AppendMessage(nil, &Message{ID: IntID(5), Result: []byte(`1`)})), `{"jsonrpc":"2.0","id":5,"result":1}`},
		{string(AppendMessage(nil, &Message{ID: IntID(5), Error: ErrInvalidParams("p")})),
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"p"}}`},
		{string(AppendMessage(nil, &Message{Method: "n"})), `{"jsonrpc":"2.0","method":"n"}`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got  %s\nwant %s", tt.got, tt.want)
		}
		if !strings.HasPrefix(tt.got, ">") {
			if _, err := DecodeMessage([]byte(tt.got)); err != nil {
				t.Errorf("%s does not decode: %v", tt.got, err)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	e := Errorf(CodeInvalidParams, "bad %s", "x")
	if e.Code != CodeInvalidParams || e.Message != "bad x" || e.Error() != "jsonrpc: bad x (code -32602)" {
		t.Errorf("Errorf = %+v, %q", e, e.Error())
	}
	if e := NewError(-32000, "app"); e.Code != -32000 || e.Message != "app" {
		t.Errorf("NewError = %+v", e)
	}
	if e := ErrInternal("boom"); e.Code != CodeInternalError {
		t.Errorf("ErrInternal = %+v", e)
	}
	wrapped := fmt.Errorf("context: %w", ErrInvalidParams("p"))
	if got := AsError(wrapped); got.Code != CodeInvalidParams || got.Message != "p" {
		t.Errorf("AsError(wrapped *Error) = %+v", got)
	}
	if got := AsError(errors.New("plain")); got.Code != CodeInternalError || got.Message != "plain" {
		t.Errorf("AsError(plain) = %+v", got)
	}
	kinds := []struct {
		k    MessageKind
		want string
	}{
		{MessageInvalid, "invalid"}, {MessageRequest, "request"},
		{MessageNotification, "notification"}, {MessageResponse, "response"},
	}
	for _, tt := range kinds {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.k.String(); got != tt.want {
				t.Errorf("MessageKind(%d).String() = %q, want %q", tt.k, got, tt.want)
			}
		})
	}
	if k := (&Message{}).Kind(); k != MessageInvalid {
		t.Errorf("zero Message kind = %v", k)
	}
}

func TestDecodeAllocs(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	d := decoder{methods: map[string]string{}}
	allocs := testing.AllocsPerRun(100, func() {
		d.s.Reset(frame)
		if _, err := d.message(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("decoding a request with interned methods allocates %v times, want 0", allocs)
	}
}
