package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// cursorSealPurpose binds sealed cursors to their use.
const cursorSealPurpose = "mcpgen cursor v1"

// page returns the bounds of the page a cursor asks for out of n items,
// and the cursor of the next page ("" when this is the last). A cursor is
// the offset of its page, sealed with the list's method and the
// principal, so that a client can neither forge one nor page through a
// list with another client's.
func (s *Server) page(r *request, cursor string, n int) (from, to int, next string, err error) {
	to = min(s.opts.PageSize, n)
	if cursor == "" && to == n {
		return 0, n, "", nil // one page: nothing sealed, nothing to digest
	}
	bind := r.method + "\x00" + principalDigest(r.principal) + "\x00"
	if cursor != "" {
		payload, oerr := s.sealer().Open(cursorSealPurpose, cursor, time.Now())
		rest, ok := strings.CutPrefix(string(payload), bind)
		off, aerr := strconv.Atoi(rest)
		if oerr != nil || !ok || aerr != nil || off < 0 {
			return 0, 0, "", jsonrpc.ErrInvalidParams("invalid params: cursor: not a cursor this server gave out for " + r.method)
		}
		from = min(off, n) // the list may have shrunk since: its end is empty

	}
	to = min(from+s.opts.PageSize, n)
	if to < n {
		next = s.sealer().Seal(cursorSealPurpose, []byte(bind+strconv.Itoa(to)), time.Time{})
	}
	return from, to, next, nil
}
