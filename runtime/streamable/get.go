package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

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
	case st == nil && s.foreignStream(num):
		// A POST's stream that another replica writes, or wrote: its
		// events are read from the Events store until the last one.
		st = newStream(num)
		st.seq = seq
		if n := len(events); n > 0 {
			st.seq = events[n-1].Seq
			st.finished = events[n-1].Last
		}
		if !st.finished {
			s.h.tail(s, st)
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

// foreignStream reports whether a stream number names a POST's stream of
// another replica. s.mu is held.
func (s *session) foreignStream(num uint64) bool {
	return s.h.clustered() && (num <= s.base || num > s.nextStream) && !s.foreignStandalone(num)
}

// Bounds of following another replica's stream; variables for the
// tests' sake.
var (
	// tailInterval is how often the Events store is read for the stream's
	// new events.
	tailInterval = 100 * time.Millisecond
	// tailProbe is how long a followed stream may stay quiet before this
	// replica asks, over the bus, whether the replica writing it still
	// does; it asks again as often while the quiet lasts.
	tailProbe = time.Second
	// tailDead ends the following when the stream was quiet that long and
	// no replica answered the probes: the one writing it died, and with
	// it the stream's requests. The client learns at once instead of
	// waiting for a response that cannot come.
	tailDead = 3 * time.Second
	// tailIdle ends the following when no event came for that long and
	// the probes could not be sent (the bus is down). The client
	// reconnects with Last-Event-ID if it still waits.
	tailIdle = 30 * time.Second
)

// tail follows a stream another replica writes into the Events store,
// until its last event, the client going away, the session ending, or
// the writer falling silent: tailDead without an event or an answer to
// the probes, or tailIdle when the probes cannot be sent. s.mu is held.
func (h *Handler) tail(s *session, st *stream) {
	if s.tails == nil {
		s.tails = make(map[uint64]*stream)
	}
	s.tails[st.num] = st
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer func() {
			s.mu.Lock()
			if s.tails[st.num] == st {
				delete(s.tails, st.num)
			}
			s.mu.Unlock()
		}()
		t := time.NewTicker(tailInterval)
		defer t.Stop()
		quiet := time.Now()
		var probed, lastProbe time.Time // the first probe of this quiet spell, the last
		for {
			select {
			case <-t.C:
			case <-s.closed:
				return
			case <-h.ctx.Done():
				return
			}
			s.mu.Lock()
			seq, attached := st.seq, st.attached
			s.mu.Unlock()
			if !attached {
				return // the client went away; its next GET follows afresh
			}
			ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
			events, err := h.events.After(ctx, s.id, st.num, seq)
			cancel()
			if err != nil {
				h.log.Warn("streamable: cannot read another replica's stream", "session", s.id, "err", err)
			}
			s.mu.Lock()
			for _, e := range events {
				ev := appendEvent(nil, e.ID(), e.Data)
				st.queue = append(st.queue, ev)
				st.buffered += len(ev)
				st.seq = e.Seq
				st.finished = st.finished || e.Last
			}
			now := time.Now()
			if len(events) > 0 {
				quiet = now
			}
			if st.heard.After(quiet) {
				quiet = st.heard
			}
			if !probed.IsZero() && !quiet.Before(probed) {
				probed = time.Time{} // the writer spoke since: a new spell of quiet starts
			}
			switch {
			case !probed.IsZero() && now.Sub(probed) > tailDead:
				st.finished = true // nobody answered: nobody writes it any more
			case now.Sub(quiet) > tailIdle:
				st.finished = true
			}
			finished := st.finished
			st.signal()
			s.mu.Unlock()
			if finished {
				return
			}
			if now.Sub(quiet) > tailProbe && now.Sub(lastProbe) > tailProbe {
				lastProbe = now
				if h.publish(h.ctx, relay{Session: s.id, Kind: relayProbe, Frame: json.RawMessage(strconv.FormatUint(st.num, 10))}) && probed.IsZero() {
					probed = now
				}
			}
		}
	}()
}

// tookStandalone tells the other replicas that this one now writes the
// session's GET stream, so that they send what they would have put on
// theirs here.
func (h *Handler) tookStandalone(ctx context.Context, s *session, st *stream) {
	if h.clustered() && st.num == s.base {
		h.publish(ctx, relay{Session: s.id, Kind: relayGetStream})
	}
}
