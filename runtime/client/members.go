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
	var out []member
	err := eachMember(obj, func(key, value []byte) {
		out = append(out, member{key: string(key), value: value})
	})
	if err != nil {
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
// the caller wrote wins. Every 2026-07-28 request goes through here, so
// rather than splitting params into members it reads them in place and
// writes two buffers, the merged _meta and the result; the bytes are what
// object(set(members(params), "_meta", merged)) gives.
func withMeta(params []byte, add []member) ([]byte, error) {
	var meta []byte // the last _meta's value, as encoding/json reads duplicates
	var metaErr error
	err := eachMember(params, func(key, value []byte) {
		if string(key) == "_meta" {
			meta = value
			if metaErr == nil {
				metaErr = eachMember(value, func(_, _ []byte) {})
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if metaErr != nil {
		return nil, fmt.Errorf("params._meta: %w", metaErr)
	}

	n := len(meta) + 2
	for _, a := range add {
		n += len(a.key) + len(a.value) + 4
	}
	merged := append(make([]byte, 0, n), '{')
	eachMember(meta, func(key, value []byte) {
		merged = append(append(jsonrpc.AppendStringBytes(comma(merged), key), ':'), value...)
	})
	for i, a := range add {
		if memberOf(meta, a.key) == nil && !has(add[:i], a.key) {
			merged = append(append(jsonrpc.AppendString(comma(merged), a.key), ':'), a.value...)
		}
	}
	merged = append(merged, '}')

	out := append(make([]byte, 0, len(params)+len(merged)+10), '{')
	placed := false // the first _meta's place holds the merged one, and later ones go
	eachMember(params, func(key, value []byte) {
		if string(key) == "_meta" {
			if placed {
				return
			}
			value, placed = merged, true
		}
		out = append(append(jsonrpc.AppendStringBytes(comma(out), key), ':'), value...)
	})
	if !placed {
		out = append(append(jsonrpc.AppendString(comma(out), "_meta"), ':'), merged...)
	}
	return append(out, '}'), nil
}

// comma appends the ',' that goes before a member of the JSON object
// being written in out, unless the member is its first: out then ends
// with the object's '{', which no JSON value ends with.
func comma(out []byte) []byte {
	if out[len(out)-1] == '{' {
		return out
	}
	return append(out, ',')
}

// eachMember calls f with the key, unescaped, and the raw value of each
// member of a JSON object, in order, and returns the object's syntax
// error, if any, after calling f for the members before it. Empty input
// is the empty object. The key is valid only during the call.
func eachMember(obj []byte, f func(key, value []byte)) error {
	if len(obj) == 0 {
		return nil
	}
	var s jsonrpc.Scanner
	s.Reset(obj)
	if err := s.ObjectStart(); err != nil {
		return err
	}
	for {
		k, more, err := s.NextKey()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		v, err := s.Raw()
		if err != nil {
			return err
		}
		f(k, v)
	}
	return s.End()
}

func has(ms []member, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// memberOf returns the raw value of key in a JSON object, or nil, also
// when obj is not a well-formed object. Of duplicate keys the first wins.
// It allocates nothing: a call reads several members of its params and
// result this way.
func memberOf(obj []byte, key string) []byte {
	var found []byte
	err := eachMember(obj, func(k, value []byte) {
		if found == nil && string(k) == key {
			found = value
		}
	})
	if err != nil {
		return nil
	}
	return found
}
