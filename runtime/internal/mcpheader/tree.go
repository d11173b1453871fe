package mcpheader

import (
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// node is one value of a parsed schema. Objects keep their members in
// document order, which a Go map would lose: Params reports headers in the
// order the schema lists them.
type node struct {
	kind jsonrpc.Kind
	str  string   // the value of a string; empty for other kinds
	keys []string // an object's member names, in document order
	vals []*node  // an object's member values, or an array's elements
}

// member returns the value of the object member named key, or nil.
func (n *node) member(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parseTree parses one JSON document. Nesting is bounded by the Scanner's
// default depth, which also bounds the recursion here and in the walker.
//
// Duplicate keys are refused: JSON leaves their meaning open, and a client
// whose parser keeps the first of two x-mcp-header values while the server
// keeps the last would build headers the server then rejects, or route on
// a property the server never checks.
func parseTree(data []byte) (*node, error) {
	var s jsonrpc.Scanner
	s.Reset(data)
	n, err := readNode(&s, "")
	if err != nil {
		return nil, err
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	return n, nil
}

func readNode(s *jsonrpc.Scanner, ptr string) (*node, error) {
	switch k := s.Peek(); k {
	case jsonrpc.KindObject:
		if err := s.ObjectStart(); err != nil {
			return nil, err
		}
		n := &node{kind: k}
		for {
			key, ok, err := s.NextKey()
			if err != nil {
				return nil, err
			}
			if !ok {
				return n, nil
			}
			name := string(key)
			at := ptr + "/" + escapeToken(name)
			if n.member(name) != nil {
				return nil, &SchemaError{Pointer: at, Msg: "duplicate key; parsers disagree on which one counts"}
			}
			child, err := readNode(s, at)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, name)
			n.vals = append(n.vals, child)
		}
	case jsonrpc.KindArray:
		if err := s.ArrayStart(); err != nil {
			return nil, err
		}
		n := &node{kind: k}
		for {
			ok, err := s.NextElem()
			if err != nil {
				return nil, err
			}
			if !ok {
				return n, nil
			}
			child, err := readNode(s, ptr+"/"+strconv.Itoa(len(n.vals)))
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, child)
		}
	case jsonrpc.KindString:
		str, err := s.String()
		if err != nil {
			return nil, err
		}
		return &node{kind: k, str: str}, nil
	default:
		// Numbers, booleans and null carry nothing the walker needs; Skip
		// still checks their syntax, and reports the error for a byte that
		// starts no value at all (KindInvalid).
		if err := s.Skip(); err != nil {
			return nil, err
		}
		return &node{kind: k}, nil
	}
}

// escapeToken escapes a key for use as a JSON pointer reference token
// (RFC 6901): "~" becomes "~0" and "/" becomes "~1".
func escapeToken(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
