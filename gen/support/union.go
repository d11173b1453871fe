package support

import (
	"math/bits"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Choosing the variant of a union value.
//
// A union decoder first takes the value's raw JSON, then looks at it with
// the helpers below, without decoding it, to choose the variant type, and
// finally decodes the raw JSON as that type. The helpers allocate nothing.
//
// Keys are compared after unescaping, so "ty\u0070e" is the key type. When an
// object has the same key more than once, the last member counts, as in
// encoding/json and in the generated decoders.

// kindOf returns the JSON kind of the value in raw, judged by its first
// byte after whitespace; KindInvalid when raw is empty or starts with
// something that is not JSON.
func kindOf(raw []byte) jsonrpc.Kind {
	var s jsonrpc.Scanner
	s.Reset(raw)
	return s.Peek()
}

// objectKeys reads the object in raw, which must be the whole of raw, and
// sets bit i of present for each names[i] that is one of its top-level
// keys. names has at most 64 entries. Member values, nested objects
// included, are skipped. The error is the scanner's: a *jsonrpc.TypeError
// when raw is not an object, a *jsonrpc.SyntaxError when it is malformed.
func objectKeys(raw []byte, names []string) (present uint64, err error) {
	var s jsonrpc.Scanner
	s.Reset(raw)
	if err := s.ObjectStart(); err != nil {
		return 0, err
	}
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		for i, name := range names {
			if string(key) == name {
				present |= 1 << i
				break
			}
		}
		if err := s.Skip(); err != nil {
			return 0, err
		}
	}
	if err := s.End(); err != nil {
		return 0, err
	}
	return present, nil
}

// constAt returns the raw JSON of the value found by following path, a list
// of object keys, from the value in raw: constAt(raw, "items", "anyOf") is
// raw.items.anyOf. It reports false when a step is missing, when a value on
// the way is not an object, or when the JSON is malformed. The result is a
// subslice of raw, without surrounding whitespace. With no path it returns
// raw itself, trimmed.
func constAt(raw []byte, path ...string) (value []byte, ok bool) {
	var s jsonrpc.Scanner
	if len(path) == 0 {
		s.Reset(raw)
		v, err := s.Raw()
		if err != nil || s.End() != nil {
			return nil, false
		}
		return v, true
	}
	value = raw
	for _, key := range path {
		if value, ok = memberRaw(&s, value, key); !ok {
			return nil, false
		}
	}
	return value, true
}

// stringAt is like constAt for a value that must be a JSON string, and
// returns the string unescaped. The result aliases raw, or a buffer of its
// own when the string has escapes; it is meant for comparing, not keeping.
func stringAt(raw []byte, path ...string) (str []byte, ok bool) {
	v, ok := constAt(raw, path...)
	if !ok {
		return nil, false
	}
	var s jsonrpc.Scanner
	s.Reset(v)
	str, err := s.StringBytes()
	if err != nil {
		return nil, false
	}
	return str, true
}

// memberRaw returns the raw value of the last member named key in the object
// that is the whole of obj, using s to read it.
func memberRaw(s *jsonrpc.Scanner, obj []byte, key string) (value []byte, ok bool) {
	s.Reset(obj)
	if s.ObjectStart() != nil {
		return nil, false
	}
	for {
		k, more, err := s.NextKey()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		if string(k) != key {
			if s.Skip() != nil {
				return nil, false
			}
			continue
		}
		if value, err = s.Raw(); err != nil {
			return nil, false
		}
		ok = true
	}
	if s.End() != nil {
		return nil, false
	}
	return value, ok
}

// pickVariant chooses among the variants of a union told apart by their
// properties. present has a bit for each property name in the value (from
// objectKeys); required[i] and declared[i] have the bits of the properties
// that variant i requires and declares. A variant qualifies when all it
// requires is present. The best is the qualifying variant that requires the
// most; among equals, the one declaring the most of the present properties.
// When that still leaves several, best is the first of them and tie is true.
// best is -1 when no variant qualifies.
func pickVariant(present uint64, required, declared []uint64) (best int, tie bool) {
	best = -1
	var bestReq, bestDecl int
	for i, req := range required {
		if req&^present != 0 {
			continue
		}
		nreq := bits.OnesCount64(req)
		ndecl := bits.OnesCount64(declared[i] & present)
		switch {
		case best < 0 || nreq > bestReq || nreq == bestReq && ndecl > bestDecl:
			best, bestReq, bestDecl, tie = i, nreq, ndecl, false
		case nreq == bestReq && ndecl == bestDecl:
			tie = true
		}
	}
	return best, tie
}
