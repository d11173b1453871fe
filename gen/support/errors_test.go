package support

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{errRequired(), "required"},
		{errConst(`"text"`), `must be "text"`},
		{errConst(`2`), `must be 2`},
		{errEnum("verbose", `["debug","info"]`), `must be one of ["debug","info"], got "verbose"`},
		{errEnum("a\x00\"", `["b"]`), `must be one of ["b"], got "a\x00\""`},
		{errType("string", jsonrpc.KindNumber), "expected string, got number"},
		{errType("integer", jsonrpc.KindBool), "expected integer, got boolean"},
		{errType("object", jsonrpc.KindInvalid), "expected object, got invalid"},
		{errFormat("uri"), "not a valid uri"},
		{errFormat("date-time"), "not a valid date-time"},
		{errMinimum("0"), "must be >= 0"},
		{errMaximum("1"), "must be <= 1"},
		{errExclusiveMinimum("0.5"), "must be > 0.5"},
		{errExclusiveMaximum("100"), "must be < 100"},
		{errMultipleOf("3"), "must be a multiple of 3"},
		{errMinLength(1), "must be at least 1 character long"},
		{errMinLength(3), "must be at least 3 characters long"},
		{errMaxLength(0), "must be at most 0 characters long"},
		{errMaxLength(64), "must be at most 64 characters long"},
		{errPattern(`^[a-z]+$`), `must match the pattern "^[a-z]+$"`},
		{errMinItems(1), "must have at least 1 item"},
		{errMinItems(2), "must have at least 2 items"},
		{errMaxItems(10), "must have at most 10 items"},
		{errUniqueItems(1, 3), "items [1] and [3] must not be equal"},
		{errMinProperties(1), "must have at least 1 property"},
		{errMaxProperties(2), "must have at most 2 properties"},
		{errUnknownProperty(), "unknown property"},
		{errUnknownVariant("ContentBlock", "type", []byte("video")), `unknown ContentBlock variant: type "video"`},
		{errUnknownVariant("ContentBlock", "type", []byte("a\"b\n")), `unknown ContentBlock variant: type "a\"b\n"`},
		{errNoVariant("RequestId", jsonrpc.KindBool), "no RequestId variant matches this boolean"},
		{errNoVariant("ContentBlock", jsonrpc.KindObject), "no ContentBlock variant matches this object"},
		{errNoVariant("RequestId", jsonrpc.KindInvalid), "no RequestId variant matches this value"},
		// Scanner errors become clean messages.
		{atField(&jsonrpc.TypeError{Offset: 7, Want: "string", Got: jsonrpc.KindNumber}, "name"), "name: expected string, got number"},
		{atField(&jsonrpc.NumberError{Offset: 3, Number: "1.5", Msg: "is not an integer"}, "total"), "total: number 1.5 is not an integer"},
		{atIndex(&jsonrpc.SyntaxError{Offset: 42, Msg: "unexpected end of input"}, 0), "[0]: invalid JSON: unexpected end of input at offset 42"},
		{atField(io.ErrUnexpectedEOF, "x"), "x: unexpected EOF"},
		{atField(fmt.Errorf("wrapped: %w", &jsonrpc.TypeError{Want: "string", Got: jsonrpc.KindNull}), "x"), "x: wrapped: json: expected string, got null at offset 0"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if _, ok := tt.err.(*FieldError); !ok {
			t.Errorf("%q: %T, want *FieldError", tt.want, tt.err)
		}
	}
}

func TestErrorPaths(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{atField(errRequired(), "mimeType"), "mimeType: required"},
		{atField(atIndex(atField(errRequired(), "mimeType"), 2), "content"), "content[2].mimeType: required"},
		{atIndex(atIndex(errRequired(), 1), 0), "[0][1]: required"},
		{atField(atField(errRequired(), "b"), "a"), "a.b: required"},
		{atField(atKey(errRequired(), "github_login"), "inputRequests"), "inputRequests.github_login: required"},
		{atField(atKey(errRequired(), "a b"), "inputRequests"), `inputRequests["a b"]: required`},
		{atField(atKey(errRequired(), "io.modelcontextprotocol/related-task"), "_meta"), `_meta["io.modelcontextprotocol/related-task"]: required`},
		{atKey(atField(errRequired(), "x"), "1abc"), `["1abc"].x: required`},
		{atKey(errRequired(), "_"), "_: required"},
		{atKey(errRequired(), "A9"), "A9: required"},
		{atKey(errRequired(), ""), `[""]: required`},
		{atKey(errRequired(), "ü"), `["ü"]: required`},
		{atKey(errRequired(), "a\"\n"), `["a\"\n"]: required`},
		{atField(errRequired(), "$schema"), `["$schema"]: required`},
		{atKey(atIndex(errRequired(), 3), "k"), "k[3]: required"},
		{atIndex(atKey(errRequired(), "k"), 3), "[3].k: required"},
		{atIndex(atKey(errRequired(), "a-b"), 3), `[3]["a-b"]: required`},
		{atField(atKey(atIndex(atField(errRequired(), "uri"), 12), "x y"), "params"), `params["x y"][12].uri: required`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	// The path and message stay apart.
	var fe *FieldError
	if !errors.As(atField(atIndex(errFormat("uri"), 1), "icons"), &fe) || fe.Path != "icons[1]" || fe.Msg != "not a valid uri" {
		t.Errorf("got %+v", fe)
	}
}

func TestErrorHelpersPassNil(t *testing.T) {
	if atField(nil, "a") != nil || atIndex(nil, 1) != nil || atKey(nil, "k") != nil {
		t.Error("a nil error did not stay nil")
	}
}

func TestErrorsAs(t *testing.T) {
	uv := atField(atIndex(errUnknownVariant("ContentBlock", "type", []byte("video")), 2), "content")
	var u *UnknownVariantError
	if !errors.As(uv, &u) || u.Union != "ContentBlock" || u.Key != "type" || u.Value != "video" {
		t.Errorf("errors.As(%v) = %+v", uv, u)
	}
	if want := `content[2]: unknown ContentBlock variant: type "video"`; uv.Error() != want {
		t.Errorf("got %q, want %q", uv.Error(), want)
	}

	nv := atField(errNoVariant("RequestId", jsonrpc.KindBool), "id")
	var n *NoVariantError
	if !errors.As(nv, &n) || n.Union != "RequestId" || n.Kind != jsonrpc.KindBool {
		t.Errorf("errors.As(%v) = %+v", nv, n)
	}
	if errors.As(nv, &u) {
		t.Error("NoVariantError matched UnknownVariantError")
	}

	// Variant errors made by someone else still become FieldErrors that
	// unwrap to them.
	other := atField(&NoVariantError{Union: "X", Kind: jsonrpc.KindString}, "f")
	if !errors.As(other, &n) || other.Error() != "f: no X variant matches this string" {
		t.Errorf("got %v", other)
	}

	// Scanner errors stay reachable.
	te := &jsonrpc.TypeError{Offset: 9, Want: "string", Got: jsonrpc.KindArray}
	wrapped := atField(atIndex(te, 4), "items")
	var gotTE *jsonrpc.TypeError
	if !errors.As(wrapped, &gotTE) || gotTE != te {
		t.Errorf("errors.As TypeError through %v", wrapped)
	}
	if !errors.Is(atField(io.ErrUnexpectedEOF, "a"), io.ErrUnexpectedEOF) {
		t.Error("errors.Is through FieldError")
	}

	// A FieldError wrapped by someone else keeps its own path in the message.
	outer := atField(fmt.Errorf("context: %w", atField(errRequired(), "b")), "a")
	if outer.Error() != "a: context: b: required" {
		t.Errorf("got %q", outer.Error())
	}
	var fe *FieldError
	if !errors.As(outer, &fe) || fe.Path != "a" {
		t.Errorf("outer FieldError = %+v", fe)
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
