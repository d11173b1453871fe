package fielderr

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// TestMessages pins every constructor's message: generated code, tests of
// generated packages and users' logs all read them.
func TestMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{New("matches more than one ContentBlock variant equally well"), "matches more than one ContentBlock variant equally well"},
		{New(""), ""},
		{Required(), "required"},
		{Const(`"text"`), `must be "text"`},
		{Const(`2`), `must be 2`},
		{Enum("verbose", `["debug","info"]`), `must be one of ["debug","info"], got "verbose"`},
		{Enum("a\x00\"", `["b"]`), `must be one of ["b"], got "a\x00\""`},
		{Type("string", jsonrpc.KindNumber), "expected string, got number"},
		{Type("integer", jsonrpc.KindBool), "expected integer, got boolean"},
		{Type("object", jsonrpc.KindInvalid), "expected object, got invalid"},
		{Format("uri"), "not a valid uri"},
		{Format("date-time"), "not a valid date-time"},
		{Minimum("0"), "must be >= 0"},
		{Maximum("1"), "must be <= 1"},
		{ExclusiveMinimum("0.5"), "must be > 0.5"},
		{ExclusiveMaximum("100"), "must be < 100"},
		{MultipleOf("3"), "must be a multiple of 3"},
		{MinLength(1), "must be at least 1 character long"},
		{MinLength(3), "must be at least 3 characters long"},
		{MaxLength(0), "must be at most 0 characters long"},
		{MaxLength(1), "must be at most 1 character long"},
		{MaxLength(64), "must be at most 64 characters long"},
		{Pattern(`^[a-z]+$`), `must match the pattern "^[a-z]+$"`},
		{Pattern("a\tb\""), `must match the pattern "a\tb\""`},
		{MinItems(1), "must have at least 1 item"},
		{MinItems(2), "must have at least 2 items"},
		{MaxItems(1), "must have at most 1 item"},
		{MaxItems(10), "must have at most 10 items"},
		{UniqueItems(1, 3), "items [1] and [3] must not be equal"},
		{UniqueItems(0, 0), "items [0] and [0] must not be equal"},
		{MinProperties(1), "must have at least 1 property"},
		{MinProperties(0), "must have at least 0 properties"},
		{MaxProperties(1), "must have at most 1 property"},
		{MaxProperties(2), "must have at most 2 properties"},
		{UnknownProperty(), "unknown property"},
		{UnknownVariant("ContentBlock", "type", []byte("video")), `unknown ContentBlock variant: type "video"`},
		{UnknownVariant("ContentBlock", "type", []byte("a\"b\n")), `unknown ContentBlock variant: type "a\"b\n"`},
		{NoVariant("RequestId", jsonrpc.KindBool), "no RequestId variant matches this boolean"},
		{NoVariant("ContentBlock", jsonrpc.KindObject), "no ContentBlock variant matches this object"},
		{NoVariant("RequestId", jsonrpc.KindInvalid), "no RequestId variant matches this value"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		fe, ok := tt.err.(*FieldError)
		if !ok {
			t.Errorf("%q: %T, want *FieldError", tt.want, tt.err)
			continue
		}
		// A constructor leaves the path to the enclosing decoder.
		if fe.Path != "" || fe.Msg != tt.want {
			t.Errorf("%q: Path %q, Msg %q; want no path and the message", tt.want, fe.Path, fe.Msg)
		}
	}
}

// TestFrom checks that the scanner's errors become messages in words and
// stay reachable, and that a FieldError passes through as itself.
func TestFrom(t *testing.T) {
	wrappedTE := fmt.Errorf("wrapped: %w", &jsonrpc.TypeError{Want: "string", Got: jsonrpc.KindNull})
	tests := []struct {
		err  error
		want string
	}{
		{&jsonrpc.TypeError{Offset: 7, Want: "string", Got: jsonrpc.KindNumber}, "expected string, got number"},
		{&jsonrpc.NumberError{Offset: 3, Number: "1.5", Msg: "is not an integer"}, "number 1.5 is not an integer"},
		{&jsonrpc.SyntaxError{Offset: 42, Msg: "unexpected end of input"}, "invalid JSON: unexpected end of input at offset 42"},
		{io.ErrUnexpectedEOF, "unexpected EOF"},
		// Only the error itself is explained, not what it wraps.
		{wrappedTE, wrappedTE.Error()},
	}
	for _, tt := range tests {
		fe := From(tt.err)
		if fe.Msg != tt.want || fe.Path != "" || fe.Err != tt.err {
			t.Errorf("From(%v) = %+v, want Msg %q wrapping it", tt.err, fe, tt.want)
		}
	}
	fe := &FieldError{Path: "a", Msg: "required"}
	if From(fe) != fe {
		t.Error("From of a *FieldError made a new one")
	}
}

// TestPaths checks how segments render: identifiers after a dot, anything
// else quoted in brackets, indexes in brackets, keys as names are.
func TestPaths(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{AtField(Required(), "mimeType"), "mimeType: required"},
		{AtField(AtIndex(AtField(Required(), "mimeType"), 2), "content"), "content[2].mimeType: required"},
		{AtIndex(AtIndex(Required(), 1), 0), "[0][1]: required"},
		{AtIndex(Required(), 0), "[0]: required"},
		{AtIndex(Required(), 1234567), "[1234567]: required"},
		{AtField(AtField(Required(), "b"), "a"), "a.b: required"},
		{AtField(AtKey(Required(), "github_login"), "inputRequests"), "inputRequests.github_login: required"},
		{AtField(AtKey(Required(), "a b"), "inputRequests"), `inputRequests["a b"]: required`},
		{AtField(AtKey(Required(), "io.modelcontextprotocol/related-task"), "_meta"), `_meta["io.modelcontextprotocol/related-task"]: required`},
		{AtKey(AtField(Required(), "x"), "1abc"), `["1abc"].x: required`},
		{AtKey(Required(), "_"), "_: required"},
		{AtKey(Required(), "_9"), "_9: required"},
		{AtKey(Required(), "A9"), "A9: required"},
		{AtKey(Required(), "9"), `["9"]: required`},
		{AtKey(Required(), ""), `[""]: required`},
		{AtKey(Required(), "ü"), `["ü"]: required`},
		{AtKey(Required(), "a\"\n"), `["a\"\n"]: required`},
		{AtField(Required(), "$schema"), `["$schema"]: required`},
		{AtField(Required(), ""), `[""]: required`},
		{AtField(Required(), "a-b"), `["a-b"]: required`},
		{AtField(Required(), "a@b"), `["a@b"]: required`},
		{AtField(Required(), "a`b"), "[\"a`b\"]: required"},
		{AtField(Required(), "a[b"), `["a[b"]: required`},
		{AtField(Required(), "a{b"), `["a{b"]: required`},
		{AtKey(AtIndex(Required(), 3), "k"), "k[3]: required"},
		{AtIndex(AtKey(Required(), "k"), 3), "[3].k: required"},
		{AtIndex(AtKey(Required(), "a-b"), 3), `[3]["a-b"]: required`},
		{AtField(AtKey(AtIndex(AtField(Required(), "uri"), 12), "x y"), "params"), `params["x y"][12].uri: required`},
		// Scanner errors take a path like any other.
		{AtField(&jsonrpc.TypeError{Offset: 7, Want: "string", Got: jsonrpc.KindNumber}, "name"), "name: expected string, got number"},
		{AtIndex(&jsonrpc.SyntaxError{Offset: 42, Msg: "unexpected end of input"}, 0), "[0]: invalid JSON: unexpected end of input at offset 42"},
		{AtKey(io.ErrUnexpectedEOF, "x"), "x: unexpected EOF"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	// The path and message stay apart.
	var fe *FieldError
	if !errors.As(AtField(AtIndex(Format("uri"), 1), "icons"), &fe) || fe.Path != "icons[1]" || fe.Msg != "not a valid uri" {
		t.Errorf("got %+v", fe)
	}
}

// TestAtInPlace checks that the helpers extend the FieldError they are
// given rather than wrap it: a deep error costs one allocation, not one
// per level.
func TestAtInPlace(t *testing.T) {
	inner := Required()
	for _, err := range []error{AtField(inner, "a"), AtKey(inner, "b"), AtIndex(inner, 1)} {
		if err != inner {
			t.Errorf("got a new error %p, want the one given %p", err, inner)
		}
	}
	if got := inner.Error(); got != "[1].b.a: required" {
		t.Errorf("got %q", got)
	}
}

// TestAtNil checks that a nil error stays nil through every helper, so
// that generated code need not guard the calls, and that passing it costs
// nothing.
func TestAtNil(t *testing.T) {
	helpers := map[string]func() error{
		"AtField": func() error { return AtField(nil, "a") },
		"AtKey":   func() error { return AtKey(nil, "a b") },
		"AtIndex": func() error { return AtIndex(nil, 1) },
	}
	for name, f := range helpers {
		if err := f(); err != nil {
			t.Errorf("%s(nil) = %v", name, err)
		}
		if n := testing.AllocsPerRun(100, func() { _ = f() }); n != 0 {
			t.Errorf("%s(nil) allocates %v times", name, n)
		}
	}
}

// TestErrorsAs checks that callers reach every error a FieldError holds
// through any number of path segments and of others' wraps.
func TestErrorsAs(t *testing.T) {
	uv := AtField(AtIndex(UnknownVariant("ContentBlock", "type", []byte("video")), 2), "content")
	var u *UnknownVariantError
	if !errors.As(uv, &u) || u.Union != "ContentBlock" || u.Key != "type" || u.Value != "video" {
		t.Errorf("errors.As(%v) = %+v", uv, u)
	}
	if want := `content[2]: unknown ContentBlock variant: type "video"`; uv.Error() != want {
		t.Errorf("got %q, want %q", uv.Error(), want)
	}
	// Through a wrap by someone else, too.
	if !errors.As(fmt.Errorf("call: %w", uv), &u) {
		t.Error("errors.As UnknownVariantError through fmt.Errorf")
	}

	nv := AtField(NoVariant("RequestId", jsonrpc.KindBool), "id")
	var n *NoVariantError
	if !errors.As(nv, &n) || n.Union != "RequestId" || n.Kind != jsonrpc.KindBool {
		t.Errorf("errors.As(%v) = %+v", nv, n)
	}
	if errors.As(nv, &u) {
		t.Error("NoVariantError matched UnknownVariantError")
	}

	// Variant errors made by someone else still become FieldErrors that
	// unwrap to them.
	other := AtField(&NoVariantError{Union: "X", Kind: jsonrpc.KindString}, "f")
	if !errors.As(other, &n) || other.Error() != "f: no X variant matches this string" {
		t.Errorf("got %v", other)
	}

	// Scanner errors stay reachable.
	te := &jsonrpc.TypeError{Offset: 9, Want: "string", Got: jsonrpc.KindArray}
	wrapped := AtField(AtIndex(te, 4), "items")
	var gotTE *jsonrpc.TypeError
	if !errors.As(wrapped, &gotTE) || gotTE != te {
		t.Errorf("errors.As TypeError through %v", wrapped)
	}
	if !errors.Is(AtField(io.ErrUnexpectedEOF, "a"), io.ErrUnexpectedEOF) {
		t.Error("errors.Is through FieldError")
	}
	if !errors.Is(fmt.Errorf("ctx: %w", AtKey(io.ErrUnexpectedEOF, "k")), io.ErrUnexpectedEOF) {
		t.Error("errors.Is through a wrapped FieldError")
	}

	// A FieldError wrapped by someone else keeps its own path in the message,
	// and the outer one is found first.
	outer := AtField(fmt.Errorf("context: %w", AtField(Required(), "b")), "a")
	if outer.Error() != "a: context: b: required" {
		t.Errorf("got %q", outer.Error())
	}
	var fe *FieldError
	if !errors.As(outer, &fe) || fe.Path != "a" {
		t.Errorf("outer FieldError = %+v", fe)
	}
	var innerFE *FieldError
	if !errors.As(fe.Err, &innerFE) || innerFE.Path != "b" || innerFE.Msg != "required" {
		t.Errorf("inner FieldError = %+v", innerFE)
	}
}

func TestFieldErrorUnwrapNil(t *testing.T) {
	fe := &FieldError{Msg: "required"}
	if fe.Unwrap() != nil {
		t.Error("Unwrap of a plain FieldError is not nil")
	}
	if fe.Error() != "required" {
		t.Errorf("got %q", fe.Error())
	}
	fe.Path = "x"
	if fe.Error() != "x: required" {
		t.Errorf("got %q", fe.Error())
	}
}

func TestUnknownVariantErrorDirect(t *testing.T) {
	e := &UnknownVariantError{Union: "PrimitiveSchemaDefinition", Key: "type", Value: ""}
	if got, want := e.Error(), `unknown PrimitiveSchemaDefinition variant: type ""`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkAtNil measures the success path every generated decoder and
// validator takes once per value: passing a nil error through.
func BenchmarkAtNil(b *testing.B) {
	b.ReportAllocs()
	var err error
	for b.Loop() {
		err = AtField(AtIndex(AtKey(nil, "k"), 2), "content")
	}
	if err != nil {
		b.Fatal(err)
	}
}
