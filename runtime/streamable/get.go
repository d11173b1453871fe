package streamable

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// get opens the session's standalone SSE stream, or resumes a stream
// from the event after Last-Event-ID.
func (h *Handler) get(w http.ResponseWriter, r *http.Request, identity any, version mcp.ProtocolVersion) {
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, "the Accept header must list text/event-stream")
		return
	}
	s := h.session(w, r, identity)
	if s == nil {
		return
	}
	defer s.release()
	if last := r.Header.Get(headerLastEventID); last != "" {
		st, status, msg := s.resume(r.Context(), last)
		if st == nil {
			httpError(w, status, msg)
			return
		}
		h.tookStandalone(r.Context(), s, st)
		h.pump(w, r, s, st, "")
		return
	}
	st, primingID := s.openStandalone(version >= mcp.Version20251125)
	if st == nil {
		httpError(w, http.StatusConflict, "the session already has a GET stream open")
		return
	}
	h.tookStandalone(r.Context(), s, st)
	h.pump(w, r, s, st, primingID)
}

// openStandalone attaches a GET to the standalone stream, creating it the
// first time; nil when another GET holds it. With prime, it reserves the
// id of a priming event.
func (s *session) openStandalone(prime bool) (st *stream, primingID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone == nil {
		s.standalone = newStream(s.base)
		s.standalone.keep = true
	}
	st = s.standalone
	if st.attached {
		return nil, ""
	}
	st.attached = true
	if prime {
		st.seq++
		primingID = eventID(st.num, st.seq)
	}
	return st, primingID
}

// resume attaches a GET to the stream that Last-Event-ID names, with the
// events after it queued; a stream that is complete gets a stand-in that
// replays them and ends.
func (s *session) resume(ctx context.Context, last string) (*stream, int, string) {
	num, seq, ok := parseEventID(last)
	s.mu.Lock()
	defer s.mu.Unlock()
	// A clustered session's stream numbers start at each replica's base:
	// any number may name another replica's stream, in the Events store.
	if !ok || !s.h.clustered() && num > s.nextStream {
		return nil, http.StatusBadRequest, errUnknownEvent.Error() + " " + quote(last)
	}
	st := s.streams[num]
	if num == s.base {
		st = s.standalone
	}
	if st != nil && st.json {
		return nil, http.StatusBadRequest, errUnknownEvent.Error() + " " + quote(last)
	}
	if st != nil && st.attached {
		return nil, http.StatusConflict, "the stream of " + quote(last) + " is already being written to another connection"
	}
	events, err := s.h.events.After(ctx, s.id, num, seq)
	if err != nil {
		return nil, http.StatusInternalServerError, "cannot read the stream's events: " + err.Error()
	}
	switch {
	case st == nil && s.foreignStandalone(num):
		// Another replica's GET stream, which that replica no longer
		// writes: what it stored is replayed, then this replica's GET
		// stream carries on.
		if s.standalone == nil {
			s.standalone = newStream(s.base)
			s.standalone.keep = true
		}
		st = s.standalone
		if st.attached {
			return nil, http.StatusConflict, "the session already has a GET stream open"
		}
	case st == nil:
		st = newStream(num)
		st.finished = true
	}
	st.attached = true
	st.queue, st.buffered = st.queue[:0], 0
	for _, e := range events {
		ev := appendEvent(nil, e.ID(), e.Data)
		st.queue = append(st.queue, ev)
		st.buffered += len(ev)
	}
	return st, 0, ""
}

// tookStandalone tells the other replicas that this one now writes the
// session's GET stream, so that they send what they would have put on
// theirs here.
func (h *Handler) tookStandalone(ctx context.Context, s *session, st *stream) {
	if h.clustered() && st.num == s.base {
		h.publish(ctx, relay{Session: s.id, Kind: relayGetStream})
	}
}
