package support

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Members that the schema allows but does not name (additionalProperties,
// the contents of _meta) are kept as raw JSON in a map[string]json.RawMessage
// so that they survive a decode → encode round trip.

// appendExtra appends the members of m to dst as `"key":value` pairs,
// sorted by key so that the output is deterministic. first says whether
// nothing has been written in the enclosing object yet; when it is false,
// each member is preceded by a comma. appendExtra returns the new dst and
// the new value of first, which is false once any member has been written.
// Values are copied as they are; a nil or empty value is written as null,
// as encoding/json does. Up to 16 members are sorted without allocating.
func appendExtra(dst []byte, m map[string]json.RawMessage, first bool) ([]byte, bool) {
	if len(m) == 0 {
		return dst, first
	}
	var small [16]string
	keys := small[:0]
	if len(m) > len(small) {
		keys = make([]string, 0, len(m))
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = jsonrpc.AppendString(dst, k)
		dst = append(dst, ':')
		dst = appendRawOrNull(dst, m[k])
	}
	return dst, first
}

// appendRawOrNull appends raw, or null when raw is empty.
func appendRawOrNull(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return appendCompact(dst, raw)
}

// appendCompact appends raw JSON, compacted when it has line breaks: raw
// values built in Go (an indented schema, say) must not break the
// one-message-per-line framing of stdio. Raw JSON decoded from a message
// has none and is copied as it is.
func appendCompact(dst, raw []byte) []byte {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(dst, raw...) // not JSON: leave it for the reader to reject
	}
	return append(dst, b.Bytes()...)
}

// decodeRaw reads the next value with s and returns a copy of its raw JSON,
// which stays valid when the input buffer is reused.
func decodeRaw(s *jsonrpc.Scanner) (json.RawMessage, error) {
	raw, err := s.Raw()
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), raw...), nil
}

// decodeExtra reads the value of the member key, which s has just read, and
// stores a copy of it in *m, making the map if it is nil. A later member
// with the same key replaces an earlier one.
func decodeExtra(s *jsonrpc.Scanner, key []byte, m *map[string]json.RawMessage) error {
	k := string(key) // key is valid only until the next call on s
	raw, err := decodeRaw(s)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = make(map[string]json.RawMessage)
	}
	(*m)[k] = raw
	return nil
}
