package metadata

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// UnmarshalJSON reads the document, keeping unnamed members in Extra.
func (m *ProtectedResource) UnmarshalJSON(data []byte) error {
	type plain ProtectedResource
	extra, err := decode(data, (*plain)(m))
	m.Extra = extra
	return err
}

// MarshalJSON writes the named members, then Extra's in key order.
func (m ProtectedResource) MarshalJSON() ([]byte, error) {
	type plain ProtectedResource
	return encode(plain(m), m.Extra)
}

// UnmarshalJSON reads the document, keeping unnamed members in Extra.
func (m *AuthorizationServer) UnmarshalJSON(data []byte) error {
	type plain AuthorizationServer
	extra, err := decode(data, (*plain)(m))
	m.Extra = extra
	return err
}

// MarshalJSON writes the named members, then Extra's in key order.
func (m AuthorizationServer) MarshalJSON() ([]byte, error) {
	type plain AuthorizationServer
	return encode(plain(m), m.Extra)
}

// decode reads data into v, a pointer to a struct without methods, and
// returns the members v's fields do not name.
func decode(data []byte, v any) (map[string]json.RawMessage, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k := range namedKeys(v) {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return all, nil
}

// namedKeys returns the JSON member names of the fields of v, a struct or
// a pointer to one.
func namedKeys(v any) map[string]bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := make(map[string]bool, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// encode writes v, a struct without methods, followed by extra's members
// that v does not name, in key order.
func encode(v any, extra map[string]json.RawMessage) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return raw, err
	}
	names := namedKeys(v)
	var b bytes.Buffer
	b.Write(raw[:len(raw)-1])
	first := len(raw) == 2
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if names[k] {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
