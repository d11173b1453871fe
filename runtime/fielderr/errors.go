package fielderr

import (
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// FieldError reports a problem with one value of an MCP message at its JSON path.
//
// Path is written as in JavaScript: members by name after a dot
// (params.arguments), array elements by index (content[2]), and members
// whose names are not identifiers as quoted strings (_meta["io.example/key"]).
// An empty Path means the message itself.
type FieldError struct {
	Path string // where the value is, such as content[2].mimeType
	Msg  string // what is wrong with it, such as required
	Err  error  // the underlying error, if any
}

// Error returns "path: msg", or just msg when the path is empty.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unwrap returns the underlying error, which may be nil.
func (e *FieldError) Unwrap() error { return e.Err }

// UnknownVariantError reports a union value whose discriminator names no variant.
// It reaches callers inside a *FieldError; use errors.As to find it.
type UnknownVariantError struct {
	Union string // the union type, such as ContentBlock
	Key   string // the discriminating property, such as type
	Value string // its value in the message, such as video
}

// Error returns a message such as `unknown ContentBlock variant: type "video"`.
func (e *UnknownVariantError) Error() string {
	return "unknown " + e.Union + " variant: " + e.Key + " " + strconv.Quote(e.Value)
}

// NoVariantError reports a union value that matches none of the union's
// variants: a JSON kind that no variant has, or an object without the
// properties that any variant requires. It reaches callers inside a
// *FieldError; use errors.As to find it.
type NoVariantError struct {
	Union string       // the union type, such as RequestId
	Kind  jsonrpc.Kind // the JSON kind of the value
}

// Error returns a message such as "no RequestId variant matches this boolean".
func (e *NoVariantError) Error() string {
	what := e.Kind.String()
	if e.Kind == jsonrpc.KindInvalid {
		what = "value"
	}
	return "no " + e.Union + " variant matches this " + what
}

// From returns err itself when it is a *FieldError, and otherwise a new
// FieldError with an empty path that explains err in words and wraps it.
// err must not be nil.
func From(err error) *FieldError {
	var msg string
	switch e := err.(type) {
	case *FieldError:
		return e
	case *jsonrpc.TypeError:
		msg = "expected " + e.Want + ", got " + e.Got.String()
	case *jsonrpc.NumberError:
		msg = "number " + e.Number + " " + e.Msg
	case *jsonrpc.SyntaxError:
		msg = "invalid JSON: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
	default:
		msg = err.Error()
	}
	return &FieldError{Msg: msg, Err: err}
}
