package jsonrpc

import (
	"strconv"
)

// idKind tells which member of an ID holds the value.
type idKind uint8

const (
	idNone   idKind = iota // the zero ID: no id at all
	idInt                  // num holds the value
	idString               // str holds the value
	idBig                  // str holds an integer literal beyond the int64 range
)

// ID is a JSON-RPC request id: a string or an integer, never null. The zero
// ID stands for no id (a notification, or the null id of an error answering
// a message whose id could not be read).
//
// IDs are comparable with == and may be map keys: StringID("1") and IntID(1)
// differ, as they do on the wire. An integer id too large for an int64 is
// kept as its literal, so that it is echoed back exactly.
type ID struct {
	str  string
	num  int64
	kind idKind
}

// StringID returns the id with the string value s.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IntID returns the id with the integer value n.
func IntID(n int64) ID { return ID{num: n, kind: idInt} }

// IsZero reports whether id is the zero ID, which stands for no id.
func (id ID) IsZero() bool { return id.kind == idNone }

// Int returns the value of an integer id that fits in an int64, with ok
// true; otherwise it returns 0 and false.
func (id ID) Int() (n int64, ok bool) { return id.num, id.kind == idInt }

// Str returns the value of a string id, with ok true; otherwise it returns
// "" and false.
func (id ID) Str() (s string, ok bool) { return id.str, id.kind == idString }

// String returns the id as JSON text, for logs and error messages: a quoted
// string, an integer, or null for the zero ID.
func (id ID) String() string {
	switch id.kind {
	case idInt:
		return strconv.FormatInt(id.num, 10)
	case idBig:
		return id.str
	}
	return string(id.AppendJSON(nil))
}

// AppendJSON appends the id to dst as JSON: a string, an integer, or null
// for the zero ID.
func (id ID) AppendJSON(dst []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(dst, id.num, 10)
	case idString:
		return AppendString(dst, id.str)
	case idBig:
		return append(dst, id.str...)
	}
	return append(dst, "null"...)
}

// ParseID reads a JSON request id, a string or an integer, from data; the
// MCP layer uses it for ids carried inside params, such as the requestId
// of notifications/cancelled. null, fractions, exponents, booleans and
// everything else are errors.
func ParseID(data []byte) (ID, error) {
	var s Scanner
	s.Reset(data)
	id, null, err := readID(&s)
	if err == nil {
		err = s.End()
	}
	if err == nil && null {
		err = errNullID
	}
	if err != nil {
		return ID{}, err
	}
	return id, nil
}

// errNullID is ParseID's answer to null.
var errNullID = &idError{"null is not a request id"}

// idError reports an id of the wrong kind or form.
type idError struct{ msg string }

func (e *idError) Error() string { return "jsonrpc: " + e.msg }

// readID reads an id or null. Errors other than *SyntaxError leave the
// Scanner past the value, so that a caller may carry on.
func readID(s *Scanner) (id ID, null bool, err error) {
	switch s.Peek() {
	case KindString:
		b, err := s.StringBytes()
		if err != nil {
			return ID{}, false, err
		}
		return StringID(string(b)), false, nil
	case KindNumber:
		lit, err := s.Number()
		if err != nil {
			return ID{}, false, err
		}
		return intLiteralID(lit)
	case KindNull:
		_, err := s.Null()
		return ID{}, err == nil, err
	case KindInvalid:
		return ID{}, false, s.Skip() // a syntax error
	}
	if err := s.Skip(); err != nil {
		return ID{}, false, err
	}
	return ID{}, false, &idError{"id must be a string or an integer"}
}

// intLiteralID turns a checked JSON number literal into an id. JSON-RPC
// says ids should not have fractional parts; we take only plain integers,
// so 1.0 and 1e3, which a float-minded peer could not echo exactly, are
// refused.
func intLiteralID(lit []byte) (ID, bool, error) {
	digits := lit
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if !allDigits(digits) {
		return ID{}, false, &idError{"id " + string(lit) + " is not an integer"}
	}
	n, problem := parseInt(lit)
	if problem != "" {
		return ID{str: string(lit), kind: idBig}, false, nil
	}
	return IntID(n), false, nil
}
