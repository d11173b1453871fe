package support

import (
	"math/bits"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// topVariants returns the mask of the variants that qualify (every
// required key present) with the most required keys and, among those, the
// most declared keys present. required and declared hold a mask over the
// scored keys per variant; a variant whose required mask is all ones has
// been ruled out.
func topVariants(present uint64, required, declared []uint64) uint64 {
	var top uint64
	bestReq, bestDecl := -1, -1
	for i, req := range required {
		if req == ^uint64(0) || req&^present != 0 {
			continue
		}
		r, d := bits.OnesCount64(req), bits.OnesCount64(declared[i]&present)
		switch {
		case r > bestReq || (r == bestReq && d > bestDecl):
			top, bestReq, bestDecl = 1<<i, r, d
		case r == bestReq && d == bestDecl:
			top |= 1 << i
		}
	}
	return top
}

// valueAt returns the raw JSON at path inside raw: object members by key,
// array elements by decimal index.
func valueAt(raw []byte, path ...string) ([]byte, bool) {
	for _, seg := range path {
		var s jsonrpc.Scanner
		s.Reset(raw)
		switch s.Peek() {
		case jsonrpc.KindObject:
			v, ok := memberRaw(&s, raw, seg)
			if !ok {
				return nil, false
			}
			raw = v
		case jsonrpc.KindArray:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 {
				return nil, false
			}
			if s.ArrayStart() != nil {
				return nil, false
			}
			found := false
			for i := 0; ; i++ {
				ok, err := s.NextElem()
				if err != nil || !ok {
					return nil, false
				}
				if i == n {
					v, err := s.Raw()
					if err != nil {
						return nil, false
					}
					raw, found = v, true
					break
				}
				if s.Skip() != nil {
					return nil, false
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return raw, true
}

// stringValueAt reports whether the value at path is the JSON string want.
func stringValueAt(raw []byte, want string, path ...string) bool {
	v, ok := valueAt(raw, path...)
	if !ok {
		return false
	}
	var s jsonrpc.Scanner
	s.Reset(v)
	got, err := s.StringBytes()
	return err == nil && string(got) == want
}

// hasValueAt reports whether raw has a value at path.
func hasValueAt(raw []byte, path ...string) bool {
	_, ok := valueAt(raw, path...)
	return ok
}
