package support

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/fielderr"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// decodeConstString checks that the next value is the string want.
func decodeConstString(s *jsonrpc.Scanner, want, wantJSON string) error {
	got, err := s.StringBytes()
	if err != nil {
		return err
	}
	if string(got) != want {
		return fielderr.Const(wantJSON)
	}
	return nil
}

// decodeConstInt checks that the next value is the integer want.
func decodeConstInt(s *jsonrpc.Scanner, want int64, wantJSON string) error {
	got, err := s.Int64()
	if err != nil {
		return err
	}
	if got != want {
		return fielderr.Const(wantJSON)
	}
	return nil
}

// decodeRawObject reads the next value, which must be an object, and
// returns a copy of its raw JSON.
func decodeRawObject(s *jsonrpc.Scanner) (json.RawMessage, error) {
	if k := s.Peek(); k != jsonrpc.KindObject && k != jsonrpc.KindInvalid {
		return nil, fielderr.Type("object", k)
	}
	raw, err := s.Raw()
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), raw...), nil
}

// rawIsObject reports whether raw JSON, as built in Go, holds an object.
func rawIsObject(raw []byte) bool {
	return kindOf(raw) == jsonrpc.KindObject
}

// appendRaw writes raw JSON, or def when it is empty.
func appendRaw(dst, raw []byte, def string) []byte {
	if len(raw) == 0 {
		return append(dst, def...)
	}
	return appendCompact(dst, raw)
}

// decodeWhole decodes data as one JSON value with decode, rejecting
// anything after it.
func decodeWhole(data []byte, decode func(*jsonrpc.Scanner) error) error {
	var s jsonrpc.Scanner
	s.Reset(data)
	if err := decode(&s); err != nil {
		return fielderr.From(err)
	}
	if err := s.End(); err != nil {
		return fielderr.From(err)
	}
	return nil
}

// decodeSub decodes raw, already validated and taken from a larger value,
// with decode.
func decodeSub(raw []byte, decode func(*jsonrpc.Scanner) error) error {
	var s jsonrpc.Scanner
	s.Reset(raw)
	return decode(&s)
}

// isIntegral reports whether raw is a JSON number with an integral value.
func isIntegral(raw []byte) bool {
	var s jsonrpc.Scanner
	s.Reset(raw)
	_, err := s.Int64()
	return err == nil
}

// kindOfValueAt returns the kind of the value at path inside raw.
func kindOfValueAt(raw []byte, path ...string) jsonrpc.Kind {
	v, ok := valueAt(raw, path...)
	if !ok {
		return jsonrpc.KindInvalid
	}
	return kindOf(v)
}

// decodeForeign decodes the next value into u, a type of another
// generated package (the core protocol's, for an extension), through its
// exported decoder.
func decodeForeign(s *jsonrpc.Scanner, u json.Unmarshaler) error {
	raw, err := s.Raw()
	if err != nil {
		return err
	}
	return u.UnmarshalJSON(raw)
}

// appendForeign appends m, a type of another generated package, through
// its exported encoder.
func appendForeign(dst []byte, m json.Marshaler) ([]byte, error) {
	b, err := m.MarshalJSON()
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
