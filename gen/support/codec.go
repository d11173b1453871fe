package support

import (
	"encoding/json"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/fielderr"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Decoding helpers the generated decoders call for primitive values.

func decodeString(s *jsonrpc.Scanner, p *string) (err error) {
	*p, err = s.String()
	return err
}

func decodeInt(s *jsonrpc.Scanner, p *int64) (err error) {
	*p, err = s.Int64()
	return err
}

func decodeFloat(s *jsonrpc.Scanner, p *float64) (err error) {
	*p, err = s.Float64()
	return err
}

func decodeBool(s *jsonrpc.Scanner, p *bool) (err error) {
	*p, err = s.Bool()
	return err
}

// decodeNullable decodes null as a nil pointer and anything else with
// decode into a new value.
func decodeNullable[T any](s *jsonrpc.Scanner, p **T, decode func(*jsonrpc.Scanner, *T) error) error {
	if null, err := s.Null(); err != nil || null {
		*p = nil
		return err
	}
	v := new(T)
	if err := decode(s, v); err != nil {
		return err
	}
	*p = v
	return nil
}

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

// decodeRawObject copies the next value, which must be an object.
func decodeRawObject(s *jsonrpc.Scanner, p *json.RawMessage) error {
	if k := s.Peek(); k != jsonrpc.KindObject && k != jsonrpc.KindInvalid {
		return fielderr.Type("object", k)
	}
	raw, err := s.Raw()
	if err != nil {
		return err
	}
	*p = append(json.RawMessage(nil), raw...)
	return nil
}

// decodeRawValue copies the next value, whatever it is.
func decodeRawValue(s *jsonrpc.Scanner, p *json.RawMessage) (err error) {
	*p, err = decodeRaw(s)
	return err
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

// sortedKeys returns the keys of m in order, so that maps encode the same
// way every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
