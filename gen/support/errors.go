package support

import (
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Errors from decoding and validation.
//
// Every problem with a value is a *FieldError whose Path says where the value
// is, so a caller sees "content[2].mimeType: required". Generated code builds
// errors from the inside out: the constructors below make a FieldError with
// an empty path, and each enclosing decoder or validator prepends its own
// segment with atField, atIndex or atKey on the way out. Those helpers run
// only once something has failed, so a successful decode or validation
// allocates nothing for errors. They take ownership of the error they are
// given and may change it in place.
//
// The messages, for the record (want and limit are written by the
// generator, already in JSON):
//
//	errRequired()                        required
//	errConst(want)                       must be <want>
//	errEnum(got, allowed)                must be one of <allowed>, got <quoted got>
//	errType(want, got)                   expected <want>, got <kind of got>
//	errFormat(format)                    not a valid <format>
//	errMinimum(limit)                    must be >= <limit>
//	errMaximum(limit)                    must be <= <limit>
//	errExclusiveMinimum(limit)           must be > <limit>
//	errExclusiveMaximum(limit)           must be < <limit>
//	errMultipleOf(n)                     must be a multiple of <n>
//	errMinLength(n)                      must be at least <n> characters long
//	errMaxLength(n)                      must be at most <n> characters long
//	errPattern(pattern)                  must match the pattern <quoted pattern>
//	errMinItems(n)                       must have at least <n> items
//	errMaxItems(n)                       must have at most <n> items
//	errUniqueItems(i, j)                 items [<i>] and [<j>] must not be equal
//	errMinProperties(n)                  must have at least <n> properties
//	errMaxProperties(n)                  must have at most <n> properties
//	errUnknownProperty()                 unknown property (placed at the key with atKey)
//	errUnknownVariant(union, key, value) unknown <union> variant: <key> <quoted value>
//	errNoVariant(union, kind)            no <union> variant matches this <kind>
//
// Errors from the JSON scanner become FieldErrors too, keeping the original
// in Err:
//
//	*jsonrpc.TypeError     expected <want>, got <kind>
//	*jsonrpc.NumberError   number <literal> <problem>, e.g. number 1.5 is not an integer
//	*jsonrpc.SyntaxError   invalid JSON: <problem> at offset <n>
//	any other error        its Error text
//
// Quoted values use Go quoting (strconv.Quote), so that odd bytes stay
// visible.

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

// atField returns err with the object member name prepended to its path.
func atField(err error, name string) error {
	if err == nil {
		return nil
	}
	return prependPath(err, memberSegment(name))
}

// atKey returns err with the map member key prepended to its path. It
// renders keys exactly as atField renders names; the two are separate so
// that generated code says which it means.
func atKey(err error, key string) error {
	if err == nil {
		return nil
	}
	return prependPath(err, memberSegment(key))
}

// atIndex returns err with the array index i prepended to its path.
func atIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return prependPath(err, "["+strconv.Itoa(i)+"]")
}

// prependPath adds seg, a member name or "[...]", in front of the path of
// err, first turning err into a *FieldError if it is not one.
func prependPath(err error, seg string) error {
	fe := asFieldError(err)
	switch {
	case fe.Path == "":
		fe.Path = seg
	case fe.Path[0] == '[':
		fe.Path = seg + fe.Path
	default:
		fe.Path = seg + "." + fe.Path
	}
	return fe
}

// memberSegment writes name as a path segment: as is when it is an
// identifier ([A-Za-z_][A-Za-z0-9_]*), else quoted in brackets.
func memberSegment(name string) string {
	if isIdentifier(name) {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// asFieldError returns err itself when it is a *FieldError, and otherwise a
// new FieldError with an empty path that explains err and wraps it.
func asFieldError(err error) *FieldError {
	if fe, ok := err.(*FieldError); ok {
		return fe
	}
	var msg string
	switch e := err.(type) {
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

func fieldError(msg string) error { return &FieldError{Msg: msg} }

// errRequired reports a required member that is missing.
func errRequired() error { return fieldError("required") }

// errConst reports a value other than the schema's const; want is the const
// as JSON, such as "text" with its quotes.
func errConst(want string) error { return fieldError("must be " + want) }

// errEnum reports a string outside the schema's enum; allowed lists the enum
// as a JSON array, such as ["debug","info"].
func errEnum(got string, allowed string) error {
	return fieldError("must be one of " + allowed + ", got " + strconv.Quote(got))
}

// errType reports a value of the wrong JSON kind; want is what the schema
// asks for, such as "string" or "integer".
func errType(want string, got jsonrpc.Kind) error {
	return fieldError("expected " + want + ", got " + got.String())
}

// errFormat reports a string that is not of the schema's format, such as
// "uri". The value itself is left out: it may be long.
func errFormat(format string) error { return fieldError("not a valid " + format) }

// errMinimum reports a number below the schema's minimum, written as in the
// schema.
func errMinimum(limit string) error { return fieldError("must be >= " + limit) }

// errMaximum reports a number above the schema's maximum.
func errMaximum(limit string) error { return fieldError("must be <= " + limit) }

// errExclusiveMinimum reports a number not above the schema's
// exclusiveMinimum.
func errExclusiveMinimum(limit string) error { return fieldError("must be > " + limit) }

// errExclusiveMaximum reports a number not below the schema's
// exclusiveMaximum.
func errExclusiveMaximum(limit string) error { return fieldError("must be < " + limit) }

// errMultipleOf reports a number that is not a multiple of n.
func errMultipleOf(n string) error { return fieldError("must be a multiple of " + n) }

// errMinLength reports a string with fewer than n characters (code points,
// as JSON Schema counts them).
func errMinLength(n int) error {
	return fieldError("must be at least " + pluralize(n, "character", "characters") + " long")
}

// errMaxLength reports a string with more than n characters.
func errMaxLength(n int) error {
	return fieldError("must be at most " + pluralize(n, "character", "characters") + " long")
}

// errPattern reports a string that does not match the schema's pattern.
func errPattern(pattern string) error {
	return fieldError("must match the pattern " + strconv.Quote(pattern))
}

// errMinItems reports an array with fewer than n items.
func errMinItems(n int) error {
	return fieldError("must have at least " + pluralize(n, "item", "items"))
}

// errMaxItems reports an array with more than n items.
func errMaxItems(n int) error {
	return fieldError("must have at most " + pluralize(n, "item", "items"))
}

// errUniqueItems reports two equal items, at indexes i and j, in an array
// whose items must be unique.
func errUniqueItems(i, j int) error {
	return fieldError("items [" + strconv.Itoa(i) + "] and [" + strconv.Itoa(j) + "] must not be equal")
}

// errMinProperties reports an object with fewer than n members.
func errMinProperties(n int) error {
	return fieldError("must have at least " + pluralize(n, "property", "properties"))
}

// errMaxProperties reports an object with more than n members.
func errMaxProperties(n int) error {
	return fieldError("must have at most " + pluralize(n, "property", "properties"))
}

// errUnknownProperty reports a member that the schema does not allow; the
// caller puts the member's key on the path with atKey.
func errUnknownProperty() error { return fieldError("unknown property") }

// errUnknownVariant reports a union value whose discriminator, the member
// key, holds a value that names no variant; the caller puts key on the path
// with atField, so the error sits at the discriminator (content[2].type).
func errUnknownVariant(union, key string, value []byte) error {
	e := &UnknownVariantError{Union: union, Key: key, Value: string(value)}
	return &FieldError{Msg: e.Error(), Err: e}
}

// errNoVariant reports a union value, of the given kind, that matches no
// variant.
func errNoVariant(union string, kind jsonrpc.Kind) error {
	e := &NoVariantError{Union: union, Kind: kind}
	return &FieldError{Msg: e.Error(), Err: e}
}

// pluralize writes n with the singular or plural noun.
func pluralize(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
