package jsonrpc

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of the next JSON value, as told by its first byte.
type Kind uint8

// The kinds of JSON value. KindInvalid stands for the end of the input or a
// byte that cannot start a value.
const (
	KindInvalid Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindBool
	KindNull
)

// String returns the JSON name of the kind: "object", "array", "string",
// "number", "boolean", "null" or "invalid".
func (k Kind) String() string {
	switch k {
	case KindObject:
		return "object"
	case KindArray:
		return "array"
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindBool:
		return "boolean"
	case KindNull:
		return "null"
	}
	return "invalid"
}

// SyntaxError reports malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int    // byte offset of the problem in the input
	Msg    string // what is wrong there
}

// Error returns "json: <msg> at offset N".
func (e *SyntaxError) Error() string {
	return "json: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// TypeError reports a JSON value of the wrong kind. Only the value's first
// byte has been looked at, and the Scanner has not consumed it, so the caller
// may still Skip it.
type TypeError struct {
	Offset int    // byte offset of the value
	Want   string // what the caller asked for: "string", "integer", ...
	Got    Kind   // what the value is
}

// Error returns a message such as "json: expected string, got number at
// offset 12".
func (e *TypeError) Error() string {
	return "json: expected " + e.Want + ", got " + e.Got.String() + " at offset " + strconv.Itoa(e.Offset)
}

// NumberError reports a well-formed JSON number that the Go type asked for
// cannot hold: a fraction where an integer is wanted, or a magnitude out of
// range. The Scanner has consumed the number.
type NumberError struct {
	Offset int    // byte offset of the number
	Number string // the literal as written
	Msg    string // "is not an integer", "is out of range for int64", ...
}

// Error returns a message such as "json: number 1.5 is not an integer at
// offset 7".
func (e *NumberError) Error() string {
	return "json: number " + e.Number + " " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// DefaultMaxDepth bounds the nesting of objects and arrays when
// Scanner.MaxDepth is zero.
const DefaultMaxDepth = 1000

// Scanner reads one JSON document from a byte slice, value by value.
//
// The caller walks the document's structure: ObjectStart then NextKey until
// it reports no more members, ArrayStart then NextElem likewise, and one of
// the value methods (String, Int64, Skip, ...) for each value. Everything is
// checked against RFC 8259 on the way, so a document that is walked to the
// end and then passes End is valid JSON.
//
// Strings are read as encoding/json reads them: invalid UTF-8 and lone
// surrogate escapes become U+FFFD rather than errors.
//
// A Scanner allocates nothing except errors, the strings that String
// returns, and, once, buffers for unescaping strings and for skipping very
// deeply nested values, which Reset keeps for the next document. (Float64
// also copies a number literal longer than the compiler's 32-byte stack
// buffer into a string for strconv.ParseFloat.) After an error the position
// is unspecified; Reset the Scanner before using it again.
//
// The zero Scanner holds an empty document.
type Scanner struct {
	// MaxDepth bounds how deeply objects and arrays may nest, counting both
	// those opened with ObjectStart or ArrayStart and those inside values
	// passed to Raw or Skip. Zero or less means DefaultMaxDepth.
	MaxDepth int

	data    []byte
	pos     int
	depth   int      // containers opened by ObjectStart or ArrayStart and not yet closed
	scratch []byte   // unescaped strings
	spill   []uint64 // for skip: kinds of open containers beyond the innermost 64
}

// Reset makes the Scanner read data from its start. It keeps MaxDepth and
// the buffers grown so far.
func (s *Scanner) Reset(data []byte) {
	s.data = data
	s.pos = 0
	s.depth = 0
}

// Offset returns the byte offset in the input at which the Scanner stands.
func (s *Scanner) Offset() int { return s.pos }

// Peek skips whitespace and reports the kind of the next value without
// consuming it. It looks only at the value's first byte, and reports
// KindInvalid at the end of the input or before a byte that cannot start a
// value (including '}' and ']').
func (s *Scanner) Peek() Kind {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return KindInvalid
	}
	return kindOf[s.data[s.pos]]
}

// ObjectStart consumes the '{' that opens the next value, which must be an
// object. It fails if the object would nest deeper than MaxDepth.
func (s *Scanner) ObjectStart() error { return s.open(KindObject) }

// ArrayStart consumes the '[' that opens the next value, which must be an
// array. It fails if the array would nest deeper than MaxDepth.
func (s *Scanner) ArrayStart() error { return s.open(KindArray) }

func (s *Scanner) open(k Kind) error {
	if err := s.expect(k, k.String()); err != nil {
		return err
	}
	if s.depth >= s.maxDepth() {
		return s.depthError()
	}
	s.depth++
	s.pos++
	return nil
}

// NextKey moves to the next member of the object opened by ObjectStart. If
// there is one, NextKey returns its unescaped key with ok true and consumes
// the ':' after it, leaving the member's value to be read next. Otherwise it
// consumes the closing '}' and returns ok false.
//
// The key may alias the input or the Scanner's own buffer: it is valid
// until the next call on the Scanner that reads a string (NextKey, String,
// StringBytes). Raw and Skip leave it alone, so a caller may read a
// member's key, then its raw value, and use both.
func (s *Scanner) NextKey() (key []byte, ok bool, err error) {
	first := s.after('{')
	s.skipSpace()
	if s.pos >= len(s.data) {
		return nil, false, s.eofError()
	}
	switch c := s.data[s.pos]; {
	case c == '}':
		s.pos++
		s.depth--
		return nil, false, nil
	case first:
		// The key follows directly.
	case c == ',':
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == '}' {
			return nil, false, s.errorf(s.pos, "trailing comma before '}'")
		}
	default:
		return nil, false, s.unexpected("after object member; want ',' or '}'")
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false, s.unexpected("looking for object key")
	}
	if key, err = s.readString(); err != nil {
		return nil, false, err
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return nil, false, s.unexpected("after object key; want ':'")
	}
	s.pos++
	return key, true, nil
}

// NextElem moves to the next element of the array opened by ArrayStart. If
// there is one, NextElem consumes the ',' before it, if any, and returns
// true, leaving the element to be read next. Otherwise it consumes the
// closing ']' and returns false.
func (s *Scanner) NextElem() (ok bool, err error) {
	first := s.after('[')
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, s.eofError()
	}
	switch c := s.data[s.pos]; {
	case c == ']':
		s.pos++
		s.depth--
		return false, nil
	case first:
		return true, nil
	case c == ',':
		s.pos++
		s.skipSpace()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			return false, s.errorf(s.pos, "trailing comma before ']'")
		}
		return true, nil
	}
	return false, s.unexpected("after array element; want ',' or ']'")
}

// String consumes the next value, which must be a string, and returns it
// unescaped. Invalid UTF-8 and lone surrogate escapes become U+FFFD, as in
// encoding/json. Only the result is allocated.
func (s *Scanner) String() (string, error) {
	b, err := s.StringBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// StringBytes is like String but allocates nothing: the result may alias the
// input or the Scanner's own buffer and is valid only until the next call on
// the Scanner.
func (s *Scanner) StringBytes() ([]byte, error) {
	if err := s.expect(KindString, "string"); err != nil {
		return nil, err
	}
	return s.readString()
}

// Number consumes the next value, which must be a number, and returns its
// literal, checked against the JSON grammar. The result aliases the input.
func (s *Scanner) Number() ([]byte, error) {
	return s.number("number")
}

// Float64 consumes the next value, which must be a number, and returns the
// nearest float64. A number too large for a float64 is a *NumberError.
func (s *Scanner) Float64() (float64, error) {
	lit, err := s.number("number")
	if err != nil {
		return 0, err
	}
	// The grammar has been checked, so the only possible error is range.
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return 0, &NumberError{Offset: s.pos - len(lit), Number: string(lit), Msg: "is out of range for float64"}
	}
	return f, nil
}

// Int64 consumes the next value, which must be a number with an integral
// value. Like JSON Schema's "integer", it accepts 1.0 and 1e3 as well as 1;
// a fraction such as 1.5, or a value outside the int64 range, is a
// *NumberError.
func (s *Scanner) Int64() (int64, error) {
	lit, err := s.number("integer")
	if err != nil {
		return 0, err
	}
	v, problem := parseInt(lit)
	if problem != "" {
		return 0, &NumberError{Offset: s.pos - len(lit), Number: string(lit), Msg: problem}
	}
	return v, nil
}

// Bool consumes the next value, which must be true or false.
func (s *Scanner) Bool() (bool, error) {
	if err := s.expect(KindBool, "boolean"); err != nil {
		return false, err
	}
	if s.data[s.pos] == 't' {
		return true, s.literal("true")
	}
	return false, s.literal("false")
}

// Null consumes the next value and returns true if it is null. Otherwise it
// consumes nothing and returns false, without looking further: a value that
// is not null, or its absence, is for the next call to judge. It fails only
// on a malformed literal that starts like null.
func (s *Scanner) Null() (bool, error) {
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != 'n' {
		return false, nil
	}
	if err := s.literal("null"); err != nil {
		return false, err
	}
	return true, nil
}

// Raw checks and consumes the next value, of any kind, and returns its exact
// bytes without the whitespace around it. The result aliases the input.
// Nesting inside the value counts towards MaxDepth.
func (s *Scanner) Raw() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

// Skip is like Raw but returns only the error.
func (s *Scanner) Skip() error {
	s.skipSpace()
	return s.skip()
}

// End reports an error unless only whitespace remains in the input. Call it
// after the top-level value to reject trailing data.
func (s *Scanner) End() error {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.errorf(s.pos, "unexpected data after top-level value")
	}
	return nil
}

// kindOf maps the first byte of a value to its kind.
var kindOf = func() (t [256]Kind) {
	t['{'] = KindObject
	t['['] = KindArray
	t['"'] = KindString
	t['-'] = KindNumber
	for c := '0'; c <= '9'; c++ {
		t[c] = KindNumber
	}
	t['t'] = KindBool
	t['f'] = KindBool
	t['n'] = KindNull
	return t
}()

// stopInString marks the bytes that a string reader must look at: the
// closing quote, the escape character, control characters (which must be
// escaped) and the bytes of multi-byte UTF-8 sequences (which must be valid).
// Every other byte stands for itself.
var stopInString = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

func (s *Scanner) maxDepth() int {
	if s.MaxDepth > 0 {
		return s.MaxDepth
	}
	return DefaultMaxDepth
}

func (s *Scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// after reports whether c is the last byte before the current position,
// whitespace aside. Right after ObjectStart or ArrayStart it is the opening
// bracket, which tells NextKey and NextElem that no comma is due. No value
// ends in a bracket that opens, so the test cannot be fooled.
func (s *Scanner) after(c byte) bool {
	i := s.pos - 1
	for i >= 0 {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i--
			continue
		}
		return s.data[i] == c
	}
	return false
}

// expect skips whitespace and checks that the next value is of kind k,
// without consuming it. want names what the caller asked for in a TypeError.
func (s *Scanner) expect(k Kind, want string) error {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return s.eofError()
	}
	switch got := kindOf[s.data[s.pos]]; got {
	case k:
		return nil
	case KindInvalid:
		return s.unexpected("looking for beginning of value")
	default:
		return &TypeError{Offset: s.pos, Want: want, Got: got}
	}
}

// number consumes the next value, which must be a number, and returns its
// literal. want names what the caller asked for in a TypeError.
func (s *Scanner) number(want string) ([]byte, error) {
	if err := s.expect(KindNumber, want); err != nil {
		return nil, err
	}
	end, err := s.numberEnd()
	if err != nil {
		return nil, err
	}
	lit := s.data[s.pos:end]
	s.pos = end
	return lit, nil
}

// numberEnd checks the number literal at the current position against the
// JSON grammar and returns the offset just past it.
func (s *Scanner) numberEnd() (int, error) {
	data := s.data
	i := s.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
		if i < len(data) && isDigit(data[i]) {
			return 0, s.errorf(i-1, "invalid number: leading zero")
		}
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digitsEnd(data, i+1)
	default:
		return 0, s.numberError(i, "want digit")
	}
	if i < len(data) && data[i] == '.' {
		i++
		j := digitsEnd(data, i)
		if j == i {
			return 0, s.numberError(i, "want digit after decimal point")
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digitsEnd(data, i)
		if j == i {
			return 0, s.numberError(i, "want digit in exponent")
		}
		i = j
	}
	return i, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd returns the offset of the first non-digit in data at or after i.
func digitsEnd(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// parseInt returns the value of a number literal already checked against
// the JSON grammar, or, if the value is not an integer or does not fit in an
// int64, a reason for a NumberError. It works on the decimal digits, so
// 1.0, 1e3 and 12.5e1 are integers exactly when they should be, however many
// digits they carry.
func parseInt(lit []byte) (v int64, problem string) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) <= 18 && allDigits(lit) {
		// The common case: plain digits that cannot overflow.
		for _, c := range lit {
			v = v*10 + int64(c-'0')
		}
		if neg {
			v = -v
		}
		return v, ""
	}

	// The value is the digits of whole and frac, read as one integer, times
	// 10^scale.
	whole, frac, exp := splitNumber(lit)
	scale := exp - int64(len(frac))
	// Leading zeros do not change that value, and trailing ones can move
	// into the scale; afterwards the last digit, if any, is not zero.
	whole = trimLeft(whole, '0')
	if len(whole) == 0 {
		frac = trimLeft(frac, '0')
	}
	n := len(frac)
	frac = trimRight(frac, '0')
	scale += int64(n - len(frac))
	if len(frac) == 0 {
		n = len(whole)
		whole = trimRight(whole, '0')
		scale += int64(n - len(whole))
	}
	ndigits := int64(len(whole) + len(frac))
	switch {
	case ndigits == 0:
		return 0, ""
	case scale < 0:
		return 0, "is not an integer"
	case ndigits+scale > 19: // 10^19 > 2^63
		return 0, "is out of range for int64"
	}
	// At most 19 digits: no uint64 overflow.
	var u uint64
	for _, c := range whole {
		u = u*10 + uint64(c-'0')
	}
	for _, c := range frac {
		u = u*10 + uint64(c-'0')
	}
	for ; scale > 0; scale-- {
		u *= 10
	}
	limit := uint64(1<<63 - 1)
	if neg {
		limit++
	}
	if u > limit {
		return 0, "is out of range for int64"
	}
	if neg {
		return int64(-u), ""
	}
	return int64(u), ""
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

// splitNumber splits an unsigned number literal into the digits before and
// after the decimal point and the exponent. The exponent saturates far
// beyond any scale a literal's length could offset.
func splitNumber(lit []byte) (whole, frac []byte, exp int64) {
	i := digitsEnd(lit, 0)
	whole = lit[:i]
	if i < len(lit) && lit[i] == '.' {
		j := digitsEnd(lit, i+1)
		frac = lit[i+1 : j]
		i = j
	}
	if i == len(lit) {
		return whole, frac, 0
	}
	i++ // 'e' or 'E'
	neg := lit[i] == '-'
	if lit[i] == '-' || lit[i] == '+' {
		i++
	}
	const saturated = 1 << 50
	for _, c := range lit[i:] {
		if exp < saturated {
			exp = exp*10 + int64(c-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return whole, frac, exp
}

func trimLeft(b []byte, c byte) []byte {
	for len(b) > 0 && b[0] == c {
		b = b[1:]
	}
	return b
}

func trimRight(b []byte, c byte) []byte {
	for len(b) > 0 && b[len(b)-1] == c {
		b = b[:len(b)-1]
	}
	return b
}

// literal consumes word (true, false or null), which the next value must
// spell out.
func (s *Scanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		j := s.pos + i
		if j >= len(s.data) {
			return s.eofErrorAt(j)
		}
		if s.data[j] != word[i] {
			return s.errorf(j, "invalid character %s in literal %s", quoteByte(s.data[j]), word)
		}
	}
	s.pos += len(word)
	return nil
}

// readString consumes the string at the current position, which starts with
// '"', and returns it unescaped. The result aliases the input when the
// string has no escapes and is valid UTF-8, and the scratch buffer otherwise.
func (s *Scanner) readString() ([]byte, error) {
	data := s.data
	start := s.pos + 1
	i := start
	for {
		i = plainEnd(data, i)
		if i >= len(data) {
			return nil, s.eofErrorAt(i)
		}
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			return data[start:i], nil
		case c == '\\':
			return s.unescape(start, i)
		case c < 0x20:
			return nil, s.controlError(i)
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return s.unescape(start, i)
		}
		i += size
	}
}

// plainEnd returns the offset of the first byte at or after i that
// stopInString marks, or len(data).
func plainEnd(data []byte, i int) int {
	if i < len(data) && stopInString[data[i]] {
		return i // escapes often come in clusters
	}
	for ; i+8 <= len(data); i += 8 {
		x := load8(data, i)
		if hits := nonASCII(x) | below(x, 0x20) | equal(x, '"') | equal(x, '\\'); hits != 0 {
			return i + firstHit(hits)
		}
	}
	for i < len(data) && !stopInString[data[i]] {
		i++
	}
	return i
}

// unescape finishes reading the string that starts at offset start, whose
// bytes are plain up to offset i, into the scratch buffer.
func (s *Scanner) unescape(start, i int) ([]byte, error) {
	data := s.data
	buf := append(s.scratch[:0], data[start:i]...)
	for {
		j := plainEnd(data, i)
		buf = append(buf, data[i:j]...)
		i = j
		if i >= len(data) {
			return nil, s.eofErrorAt(i)
		}
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			s.scratch = buf // keep the grown buffer for next time
			return buf, nil
		case c == '\\':
			var err error
			if buf, i, err = s.appendEscape(buf, i); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, s.controlError(i)
		default:
			// Invalid UTF-8 decodes to utf8.RuneError, which is U+FFFD.
			r, size := utf8.DecodeRune(data[i:])
			buf = utf8.AppendRune(buf, r)
			i += size
		}
	}
}

// appendEscape decodes the escape sequence at offset i onto buf and returns
// the offset after it.
func (s *Scanner) appendEscape(buf []byte, i int) ([]byte, int, error) {
	data := s.data
	if i+1 >= len(data) {
		return buf, i, s.eofErrorAt(i + 1)
	}
	switch c := data[i+1]; c {
	case '"', '\\', '/':
		return append(buf, c), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
		r, bad := hex4(data, i+2)
		if bad >= 0 {
			return buf, i, s.escapeError(bad)
		}
		i += 6
		if utf16.IsSurrogate(r) {
			// Only an escaped low surrogate right after a high one makes a
			// character; any other surrogate stands alone and, as in
			// encoding/json, becomes U+FFFD without consuming what follows.
			if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
				if r2, bad := hex4(data, i+2); bad < 0 {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						return utf8.AppendRune(buf, pair), i + 6, nil
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(buf, r), i, nil
	}
	return buf, i, s.escapeError(i + 1)
}

// hex4 decodes the four hex digits at offset i of data. If they are not
// all there it returns the offset of the first one missing, which may be the
// end of data, as bad; otherwise bad is -1.
func hex4(data []byte, i int) (r rune, bad int) {
	for j := i; j < i+4; j++ {
		if j >= len(data) {
			return 0, j
		}
		c := data[j]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, j
		}
		r = r<<4 | rune(c)
	}
	return r, -1
}

// skipString checks and consumes the string at the current position. Like
// encoding/json, it lets invalid UTF-8 pass: readers replace it.
func (s *Scanner) skipString() error {
	data := s.data
	i := s.pos + 1
	for {
		i = rawPlainEnd(data, i)
		if i >= len(data) {
			return s.eofErrorAt(i)
		}
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c < 0x20:
			return s.controlError(i)
		}
		// An escape.
		if i+1 >= len(data) {
			return s.eofErrorAt(i + 1)
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if _, bad := hex4(data, i+2); bad >= 0 {
				return s.escapeError(bad)
			}
			i += 6
		default:
			return s.escapeError(i + 1)
		}
	}
}

// rawPlainEnd is plainEnd for skipString, which passes bytes of 0x80 and
// above without decoding them.
func rawPlainEnd(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		x := load8(data, i)
		if hits := below(x, 0x20) | equal(x, '"') | equal(x, '\\'); hits != 0 {
			return i + firstHit(hits)
		}
	}
	for i < len(data) && (data[i] >= utf8.RuneSelf || !stopInString[data[i]]) {
		i++
	}
	return i
}

// skipKey consumes an object key and the ':' after it, with the whitespace
// before either.
func (s *Scanner) skipKey() error {
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		if s.pos < len(s.data) && s.data[s.pos] == '}' && s.after(',') {
			return s.errorf(s.pos, "trailing comma before '}'")
		}
		return s.unexpected("looking for object key")
	}
	if err := s.skipString(); err != nil {
		return err
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return s.unexpected("after object key; want ':'")
	}
	s.pos++
	return nil
}

// skip checks and consumes the value at the current position, which follows
// any whitespace.
func (s *Scanner) skip() error {
	open := containers{spill: s.spill[:0]}
	err := s.skipNested(&open)
	s.spill = open.spill[:0]
	return err
}

// skipNested does the work of skip without recursion, keeping the kinds of
// the containers it is inside in open.
func (s *Scanner) skipNested(open *containers) error {
	data := s.data
	room := s.maxDepth() - s.depth // containers that may still open
	for {
		// A value starts here.
		s.skipSpace()
		if s.pos >= len(data) {
			return s.eofError()
		}
		switch c := data[s.pos]; kindOf[c] {
		case KindObject, KindArray:
			if open.n >= room {
				return s.depthError()
			}
			object := c == '{'
			open.push(object)
			s.pos++
			s.skipSpace()
			if s.pos < len(data) && data[s.pos] == closing(object) {
				s.pos++
				open.pop()
				break // an empty container is a complete value
			}
			if object {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			continue
		case KindString:
			if err := s.skipString(); err != nil {
				return err
			}
		case KindNumber:
			end, err := s.numberEnd()
			if err != nil {
				return err
			}
			s.pos = end
		case KindBool, KindNull:
			word := "null"
			switch c {
			case 't':
				word = "true"
			case 'f':
				word = "false"
			}
			if err := s.literal(word); err != nil {
				return err
			}
		default:
			if (c == ']' || c == '}') && s.after(',') {
				return s.errorf(s.pos, "trailing comma before %s", quoteByte(c))
			}
			return s.unexpected("looking for beginning of value")
		}

		// A value has ended: close the containers it completes, then move
		// to the next member or element.
		for {
			if open.n == 0 {
				return nil
			}
			s.skipSpace()
			if s.pos >= len(data) {
				return s.eofError()
			}
			object := open.top&1 == 1
			c := data[s.pos]
			if c == closing(object) {
				s.pos++
				open.pop()
				continue
			}
			if c != ',' {
				if object {
					return s.unexpected("after object member; want ',' or '}'")
				}
				return s.unexpected("after array element; want ',' or ']'")
			}
			s.pos++
			if object {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			break
		}
	}
}

func closing(object bool) byte {
	if object {
		return '}'
	}
	return ']'
}

// containers is a stack of the kinds of open containers, one bit each, set
// for an object. The innermost 64 live in top, bit 0 innermost; full words
// further out are spilled.
type containers struct {
	n     int
	top   uint64
	spill []uint64
}

func (c *containers) push(object bool) {
	if c.n > 0 && c.n%64 == 0 {
		c.spill = append(c.spill, c.top)
		c.top = 0
	}
	c.top <<= 1
	if object {
		c.top |= 1
	}
	c.n++
}

func (c *containers) pop() {
	c.top >>= 1
	c.n--
	if c.n > 0 && c.n%64 == 0 {
		c.top = c.spill[len(c.spill)-1]
		c.spill = c.spill[:len(c.spill)-1]
	}
}

func (s *Scanner) errorf(offset int, format string, args ...any) error {
	return &SyntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

func (s *Scanner) eofError() error { return s.eofErrorAt(s.pos) }

func (s *Scanner) eofErrorAt(offset int) error {
	return &SyntaxError{Offset: offset, Msg: "unexpected end of input"}
}

// unexpected reports the byte at the current position, or the end of the
// input, as out of place; where says what the Scanner was doing.
func (s *Scanner) unexpected(where string) error {
	if s.pos >= len(s.data) {
		return s.eofError()
	}
	return s.errorf(s.pos, "invalid character %s %s", quoteByte(s.data[s.pos]), where)
}

func (s *Scanner) numberError(i int, want string) error {
	if i >= len(s.data) {
		return s.eofErrorAt(i)
	}
	return s.errorf(i, "invalid character %s in number; %s", quoteByte(s.data[i]), want)
}

func (s *Scanner) controlError(i int) error {
	return s.errorf(i, "invalid control character %s in string; it must be escaped", quoteByte(s.data[i]))
}

// escapeError reports the byte at offset i, inside an escape sequence, as
// out of place.
func (s *Scanner) escapeError(i int) error {
	if i >= len(s.data) {
		return s.eofErrorAt(i)
	}
	return s.errorf(i, "invalid character %s in string escape", quoteByte(s.data[i]))
}

func (s *Scanner) depthError() error {
	return s.errorf(s.pos, "nesting deeper than %d", s.maxDepth())
}

// quoteByte quotes c for an error message: 'x', '\n', or 0xFF for a byte
// that is not ASCII.
func quoteByte(c byte) string {
	if c >= utf8.RuneSelf {
		return fmt.Sprintf("0x%02X", c)
	}
	return strconv.QuoteRune(rune(c))
}
