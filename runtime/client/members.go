package client

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// A 2026-07-28 request carries its protocol details in its params'
// _meta, and the retry of a multi round-trip request its answers beside
// its params. The typed API encodes the params; the helpers below edit
// the encoding, member by member, keeping every other member's value
// byte for byte.

// member is one member of a JSON object: its key, unescaped, and its raw
// value.
type member struct {
	key   string
	value []byte
}

// members reads the members of a JSON object, in order. Empty input is
// the empty object.
func members(obj []byte) ([]member, error) {
	if len(obj) == 0 {
		return nil, nil
	}
	var s jsonrpc.Scanner
	s.Reset(obj)
	if err := s.ObjectStart(); err != nil {
		return nil, err
	}
	var out []member
	for {
		k, more, err := s.NextKey()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		key := string(k)
		v, err := s.Raw()
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: v})
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	return out, nil
}

// object encodes members as a JSON object.
func object(ms []member) []byte {
	n := 2
	for _, m := range ms {
		n += len(m.key) + len(m.value) + 4
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonrpc.AppendString(out, m.key)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}')
}

// set gives key the value, replacing a member of that key, or appending
// one; a nil value removes the member.
func set(ms []member, key string, value []byte) []member {
	out := ms[:0:0]
	found := false
	for _, m := range ms {
		if m.key != key {
			out = append(out, m)
			continue
		}
		if !found && value != nil {
			out = append(out, member{key: key, value: value})
		}
		found = true
	}
	if !found && value != nil {
		out = append(out, member{key: key, value: value})
	}
	return out
}

// withMeta returns params with the members add in its _meta object, made
// when absent. A key the params' _meta already holds keeps its value: what
// the caller wrote wins.
func withMeta(params []byte, add []member) ([]byte, error) {
	top, err := members(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	var meta []member
	for _, m := range top {
		if m.key == "_meta" {
			if meta, err = members(m.value); err != nil {
				return nil, fmt.Errorf("params._meta: %w", err)
			}
		}
	}
	for _, a := range add {
		if !has(meta, a.key) {
			meta = append(meta, a)
		}
	}
	return object(set(top, "_meta", object(meta))), nil
}

func has(ms []member, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// memberOf returns the raw value of key in a JSON object, or nil.
func memberOf(obj []byte, key string) []byte {
	ms, err := members(obj)
	if err != nil {
		return nil
	}
	for _, m := range ms {
		if m.key == key {
			return m.value
		}
	}
	return nil
}
