package mcpheader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// CodeHeaderMismatch is the JSON-RPC error code of a request whose
// mirrored headers do not agree with its body. It goes with HTTP status
// 400.
const CodeHeaderMismatch = -32020

// maxSafeInteger is the largest integer that every JSON parser holds
// exactly, being within float64's 53-bit mantissa; integer parameters
// must stay within ±maxSafeInteger.
const maxSafeInteger = 1<<53 - 1

// MismatchError reports an Mcp-Param header that does not agree with the
// call's arguments: missing, unexpected, repeated, malformed, or holding
// another value. A server answers it with HTTP status 400 and a JSON-RPC
// error of code CodeHeaderMismatch whose message is the error's text.
type MismatchError struct {
	Header string // the header's name, as Param.Header spells it
	Reason string // what is wrong; values in it are quoted, escaped and truncated
}

// Error returns "<header>: <reason>".
func (e *MismatchError) Error() string { return e.Header + ": " + e.Reason }

// Check reports whether the Mcp-Param headers of a tools/call request
// agree with its arguments, the JSON object given as args, for the
// parameters that Params found in the tool's inputSchema. It returns nil
// if they do, and otherwise a *MismatchError for the first parameter, in
// the order of params, that does not. Headers for names not in params are
// ignored, as intermediaries must ignore headers they do not know.
//
// A parameter whose value is absent from args, or null, must come without
// its header. Otherwise its header must come exactly once (names compare
// ignoring case), must be a valid value for Decode, and must decode to the
// value's string form: a string exactly; an integer numerically, so that
// "42", "42.0" and "4.2e1" (any JSON number with an integral value) all
// match 42 and 42.0, while "+42", "042" and "0x2A" do not; a boolean as
// "true" or "false". The value must be of the declared type, and an
// integer must lie within ±(2^53−1).
//
// Values are found as Lookup finds them, so arguments that name a
// parameter twice, or in another case, are a mismatch as well.
//
// Only a Param with a Type other than those Params returns gives an error
// that is not a *MismatchError.
func Check(params []Param, args []byte, header http.Header) error {
	for _, p := range params {
		if err := checkParam(p, args, header); err != nil {
			return err
		}
	}
	return nil
}

func checkParam(p Param, args []byte, header http.Header) error {
	name := p.Header()
	mismatch := func(format string, a ...any) error {
		return &MismatchError{Header: name, Reason: fmt.Sprintf(format, a...)}
	}
	switch p.Type {
	case "string", "integer", "boolean":
	default:
		return fmt.Errorf("mcpheader: %s: unsupported parameter type %q", name, p.Type)
	}
	where := argumentPath(p.Path)
	value, count := headerValue(header, p.Name)
	if count > 1 {
		return mismatch("the header occurs %d times; it must occur once", count)
	}
	raw, err := Lookup(args, p.Path)
	if err != nil {
		return mismatch("%v", err)
	}
	if raw == nil || isNull(raw) {
		if count == 1 {
			return mismatch("the header is present, but %s is absent or null; the header must then be left out", where)
		}
		return nil
	}
	text, n, problem := textOf(raw, p.Type)
	if problem != "" {
		return mismatch("%s %s", where, problem)
	}
	if count == 0 {
		return mismatch("the header is missing, but %s is given", where)
	}
	got, err := Decode(value)
	if err != nil {
		return mismatch("invalid header value: %v", err)
	}
	if p.Type == "integer" {
		hn, ok := headerInt(got)
		if !ok {
			return mismatch("header %s is not an integer, but %s is", preview(got), where)
		}
		if hn != n {
			return mismatch("header %s does not match %s %s", preview(got), where, text)
		}
		return nil
	}
	if got != text {
		if p.Type == "string" {
			text = preview(text)
		}
		return mismatch("header %s does not match %s %s", preview(got), where, text)
	}
	return nil
}

// headerValue returns the first value of the header HeaderPrefix+name and
// how many values the header has in all. It compares names ignoring case
// itself rather than trusting h to hold only canonical keys, which a
// hand-built http.Header need not, and it allocates nothing.
func headerValue(h http.Header, name string) (value string, count int) {
	for k, vs := range h {
		if len(k) == len(HeaderPrefix)+len(name) &&
			strings.EqualFold(k[:len(HeaderPrefix)], HeaderPrefix) && strings.EqualFold(k[len(HeaderPrefix):], name) {
			if count == 0 && len(vs) > 0 {
				value = vs[0]
			}
			count += len(vs)
		}
	}
	return value, count
}

// headerInt parses the decoded value of an integer header: a JSON number,
// with nothing around it, whose value is an integer in the safe range.
func headerInt(s string) (int64, bool) {
	if s == "" || isJSONSpace(s[0]) || isJSONSpace(s[len(s)-1]) {
		return 0, false
	}
	var sc jsonrpc.Scanner
	sc.Reset([]byte(s))
	if sc.Peek() != jsonrpc.KindNumber {
		return 0, false
	}
	n, err := sc.Int64()
	if err != nil || sc.End() != nil || n < -maxSafeInteger || n > maxSafeInteger {
		return 0, false
	}
	return n, true
}

// numberText shows a number literal in a message. The JSON grammar keeps it
// to printable ASCII, so it needs no quotes, only a bound on its length.
func numberText(lit []byte) string {
	if len(lit) > previewLen {
		return string(lit[:previewLen]) + "..."
	}
	return string(lit)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// textOf returns the header text of the body value raw for a parameter of
// type typ, and for an integer also its value. problem, when not empty,
// says why the value cannot be mirrored, as a phrase to follow its path.
func textOf(raw []byte, typ string) (text string, n int64, problem string) {
	var s jsonrpc.Scanner
	s.Reset(raw)
	var want jsonrpc.Kind
	switch typ {
	case "string":
		want = jsonrpc.KindString
	case "integer":
		want = jsonrpc.KindNumber
	case "boolean":
		want = jsonrpc.KindBool
	}
	if got := s.Peek(); got != want {
		return "", 0, fmt.Sprintf("is %s, but the schema declares %s", kindName(got), typ)
	}
	var lit []byte
	var err error
	switch typ {
	case "string":
		text, err = s.String()
	case "integer":
		lit, err = s.Number()
	case "boolean":
		var b bool
		b, err = s.Bool()
		text = strconv.FormatBool(b)
	}
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return "", 0, fmt.Sprintf("is malformed: %v", err)
	}
	if typ == "integer" {
		// Number has checked the grammar; Int64 on the literal alone now
		// judges only its value.
		s.Reset(lit)
		n, err = s.Int64()
		if err != nil {
			return "", 0, fmt.Sprintf("is %s, which is not an integer within ±(2^53−1)", numberText(lit))
		}
		if n < -maxSafeInteger || n > maxSafeInteger {
			return "", 0, fmt.Sprintf("is %s, outside the range ±(2^53−1) that an integer parameter may take", numberText(lit))
		}
		text = strconv.FormatInt(n, 10)
	}
	return text, n, ""
}

// FormatValue returns the header value that mirrors the body value raw of
// a parameter of type typ: its string form as Check expects it (an integer
// in plain decimal, so 42.0 gives "42"), passed through Encode.
//
// It returns false when no header may be sent: raw is nil (the value is
// absent) or null. It also returns false when raw cannot be mirrored,
// being of another type, an integer outside ±(2^53−1), or malformed. The
// server rejects such a call whatever its headers say, so a client should
// report the problem rather than send it.
func FormatValue(raw json.RawMessage, typ string) (string, bool) {
	if raw == nil || isNull(raw) {
		return "", false
	}
	switch typ {
	case "string", "integer", "boolean":
	default:
		return "", false
	}
	text, _, problem := textOf(raw, typ)
	if problem != "" {
		return "", false
	}
	return Encode(text), true
}

// Lookup returns the value at path in args, a JSON object of tool
// arguments, or nil when there is none there: args is empty, or a step of
// the path is missing or does not reach an object. A value that is null
// is returned as it is. The result aliases args.
//
// Lookup refuses arguments whose object names a step of the path more than
// once, or names it in another case only (bytes.EqualFold): encoding/json,
// which many tool handlers decode with, keeps the last of duplicate keys
// and matches struct fields ignoring case, so the handler could act on a
// value other than the one the header was checked against. Malformed JSON
// on the way is an error too.
func Lookup(args []byte, path []string) (json.RawMessage, error) {
	var s jsonrpc.Scanner
	cur := args
	for i, key := range path {
		s.Reset(cur)
		switch s.Peek() {
		case jsonrpc.KindObject:
		case jsonrpc.KindInvalid:
			if len(bytes.TrimSpace(cur)) == 0 {
				return nil, nil
			}
			return nil, fmt.Errorf("%s is not valid JSON: %w", argumentPath(path[:i]), s.Skip())
		default:
			// Also checks that what is not followed is well-formed.
			if err := s.Skip(); err != nil {
				return nil, fmt.Errorf("%s is not valid JSON: %w", argumentPath(path[:i]), err)
			}
			return nil, nil
		}
		found, err := member(&s, key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", argumentPath(path[:i]), err)
		}
		if found == nil {
			return nil, nil
		}
		cur = found
	}
	return cur, nil
}

// member reads the object that s stands at and returns the value of its
// member key, or nil if it has none.
func member(s *jsonrpc.Scanner, key string) ([]byte, error) {
	if err := s.ObjectStart(); err != nil {
		return nil, err
	}
	var found []byte
	matches := 0
	for {
		k, ok, err := s.NextKey()
		if err != nil {
			return nil, err
		}
		if !ok {
			return found, nil
		}
		if !bytes.EqualFold(k, []byte(key)) {
			if err := s.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		matches++
		if string(k) != key {
			return nil, fmt.Errorf("key %s stands for %q only if case is ignored; send the key as the schema spells it", preview(string(k)), key)
		}
		if matches > 1 {
			return nil, fmt.Errorf("key %q occurs more than once", key)
		}
		if found, err = s.Raw(); err != nil {
			return nil, err
		}
	}
}

// argumentPath renders path for a message: arguments.region, or
// arguments["a b"] for a key that is not a plain name.
func argumentPath(path []string) string {
	var b strings.Builder
	b.WriteString("arguments")
	for _, key := range path {
		if plainKey(key) {
			b.WriteString(".")
			b.WriteString(key)
		} else {
			b.WriteString("[")
			b.WriteString(preview(key))
			b.WriteString("]")
		}
	}
	return b.String()
}

func plainKey(key string) bool {
	if key == "" || len(key) > previewLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == '-', i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}
