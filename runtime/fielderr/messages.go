package fielderr

import (
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// New reports a problem, described by msg, with the value at an empty
// path. The constructors below cover the schema keywords; New is for the
// rest, such as a union that holds no value.
func New(msg string) error { return &FieldError{Msg: msg} }

// Required reports a required member that is missing.
func Required() error { return New("required") }

// Const reports a value other than the schema's const; want is the const
// as JSON, such as "text" with its quotes.
func Const(want string) error { return New("must be " + want) }

// Enum reports a string outside the schema's enum; allowed lists the enum
// as a JSON array, such as ["debug","info"].
func Enum(got string, allowed string) error {
	return New("must be one of " + allowed + ", got " + strconv.Quote(got))
}

// Type reports a value of the wrong JSON kind; want is what the schema
// asks for, such as "string" or "integer".
func Type(want string, got jsonrpc.Kind) error {
	return New("expected " + want + ", got " + got.String())
}

// Format reports a string that is not of the schema's format, such as
// "uri". The value itself is left out: it may be long.
func Format(format string) error { return New("not a valid " + format) }

// Minimum reports a number below the schema's minimum, written as in the
// schema.
func Minimum(limit string) error { return New("must be >= " + limit) }

// Maximum reports a number above the schema's maximum.
func Maximum(limit string) error { return New("must be <= " + limit) }

// ExclusiveMinimum reports a number not above the schema's
// exclusiveMinimum.
func ExclusiveMinimum(limit string) error { return New("must be > " + limit) }

// ExclusiveMaximum reports a number not below the schema's
// exclusiveMaximum.
func ExclusiveMaximum(limit string) error { return New("must be < " + limit) }

// MultipleOf reports a number that is not a multiple of n.
func MultipleOf(n string) error { return New("must be a multiple of " + n) }

// MinLength reports a string with fewer than n characters (code points,
// as JSON Schema counts them).
func MinLength(n int) error {
	return New("must be at least " + count(n, "character", "characters") + " long")
}

// MaxLength reports a string with more than n characters.
func MaxLength(n int) error {
	return New("must be at most " + count(n, "character", "characters") + " long")
}

// Pattern reports a string that does not match the schema's pattern.
func Pattern(pattern string) error {
	return New("must match the pattern " + strconv.Quote(pattern))
}

// MinItems reports an array with fewer than n items.
func MinItems(n int) error { return New("must have at least " + count(n, "item", "items")) }

// MaxItems reports an array with more than n items.
func MaxItems(n int) error { return New("must have at most " + count(n, "item", "items")) }

// UniqueItems reports two equal items, at indexes i and j, in an array
// whose items must be unique.
func UniqueItems(i, j int) error {
	return New("items [" + strconv.Itoa(i) + "] and [" + strconv.Itoa(j) + "] must not be equal")
}

// MinProperties reports an object with fewer than n members.
func MinProperties(n int) error {
	return New("must have at least " + count(n, "property", "properties"))
}

// MaxProperties reports an object with more than n members.
func MaxProperties(n int) error {
	return New("must have at most " + count(n, "property", "properties"))
}

// UnknownProperty reports a member that the schema does not allow; the
// caller puts the member's key on the path with AtKey.
func UnknownProperty() error { return New("unknown property") }

// UnknownVariant reports a union value whose discriminator, the member
// key, holds a value that names no variant; the caller puts key on the
// path with AtField, so the error sits at the discriminator
// (content[2].type).
func UnknownVariant(union, key string, value []byte) error {
	e := &UnknownVariantError{Union: union, Key: key, Value: string(value)}
	return &FieldError{Msg: e.Error(), Err: e}
}

// NoVariant reports a union value, of the given kind, that matches no
// variant.
func NoVariant(union string, kind jsonrpc.Kind) error {
	e := &NoVariantError{Union: union, Kind: kind}
	return &FieldError{Msg: e.Error(), Err: e}
}

// count writes n with the singular or plural noun.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
