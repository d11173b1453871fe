package streamable

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Shutting down gracefully.
//
// Shutdown stops taking new work, lets the work in progress finish while
// the connections stay open, and then ends what is left as Close does.
// New work is a new session, a request (in a POST of any era) or a new
// GET stream: each gets 503. What existing work needs keeps being served:
// POSTs that carry only responses and notifications, since a handler may
// be waiting for the client's answer to its own request (elicitation,
// sampling, roots), and GETs that resume a stream with Last-Event-ID. The
// standalone GET streams are closed at once: they carry no answers, and
// would keep their connections busy to the end.
//
// The work in progress is the requests of the sessions not yet answered
// and the 2026-07-28 calls being served. Shutdown polls for them to be
// done, as http.Server.Shutdown polls its connections, rather than have
// every answer signal it. When ctx ends first, each request still open
// is answered with errShuttingDown on its stream, and each call's ctx is
// cancelled with server.ErrShutdown as its cause; the call then answers
// errShuttingDown too, except subscriptions/listen, which ends with the
// graceful completion result the protocol gives a shutdown.

// errShuttingDown is the answer to a request the server cancelled because
// it shut down before the request finished.
var errShuttingDown = jsonrpc.NewError(jsonrpc.CodeInternalError, "the server is shutting down: the request did not finish within the shutdown grace period; it may be sent again to a server that is running")

// refuseShuttingDown answers a request that a Handler shutting down does
// not take. It asks the client to close the connection too, so that its
// next attempt can reach a server that is running.
func refuseShuttingDown(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusServiceUnavailable, "the server is shutting down and takes no new sessions or requests")
}

// Shutdown shuts the Handler down gracefully: it takes no new sessions,
// requests or GET streams (503) and closes the GET streams open, but
// keeps serving what the requests in progress need, the client's answers
// to the server's own requests among it, until they have all been
// answered or ctx ends. Then it ends as Close does, answering each
// request still open with an error saying the server is shutting down.
// The connections must stay open meanwhile: call it before
// http.Server.Shutdown, as Serve does. It returns ctx.Err() when ctx
// ended first, nil otherwise.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.drain()
	err := h.waitIdle(ctx)
	h.stop()
	return err
}

// Close ends every session and every 2026-07-28 call at once, answering
// the requests still open with an error saying the server is shutting
// down, and waits for their goroutines to return. Requests arriving
// afterwards get 503.
func (h *Handler) Close() error {
	h.drain()
	h.stop()
	return nil
}

// drain stops taking new work and closes the standalone GET streams.
func (h *Handler) drain() {
	h.mu.Lock()
	h.draining = true
	h.stopping.Store(true)
	all := make([]*session, 0, len(h.byID))
	for _, s := range h.byID {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		s.closeStandalone()
	}
}

// refuseDraining answers 503 and returns true once Shutdown has begun.
func (h *Handler) refuseDraining(w http.ResponseWriter) bool {
	h.mu.Lock()
	draining := h.draining
	h.mu.Unlock()
	if draining {
		refuseShuttingDown(w)
	}
	return draining
}

// waitIdle waits until no session has a request open and no call is
// being served, or ctx ends.
func (h *Handler) waitIdle(ctx context.Context) error {
	return poll(ctx, func() bool {
		if h.calls.Load() > 0 {
			return false
		}
		h.mu.Lock()
		all := make([]*session, 0, len(h.live))
		for s := range h.live {
			all = append(all, s)
		}
		h.mu.Unlock()
		for _, s := range all {
			if s.waiting() {
				return false
			}
		}
		return true
	})
}

// stop ends everything: the requests still open are answered with
// errShuttingDown, the calls' and sessions' ctx is cancelled with
// server.ErrShutdown, and the sessions end.
func (h *Handler) stop() {
	h.mu.Lock()
	h.draining = true
	if !h.closed {
		h.closed = true
		if h.stopJanitor != nil {
			close(h.stopJanitor)
		}
	}
	all := make([]*session, 0, len(h.live))
	for s := range h.live {
		all = append(all, s)
	}
	calls := make([]context.CancelCauseFunc, 0, len(h.running))
	for out, cancel := range h.running {
		calls = append(calls, cancel)
		delete(h.running, out)
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // for the EventStore
	defer cancel()
	for _, s := range all {
		s.refuse(ctx, errShuttingDown)
	}
	h.cancel(server.ErrShutdown)
	for _, cancel := range calls {
		cancel(server.ErrShutdown)
	}
	h.mu.Lock()
	busStop := h.busStop
	h.mu.Unlock()
	if busStop != nil {
		busStop()
	}
	for _, s := range all {
		h.end(s)
	}
	h.wg.Wait()
}

// closeStandalone ends the session's GET stream: the GET writes out what
// it holds and returns. What the stream would have carried afterwards is
// dropped, as when no GET is open.
func (s *session) closeStandalone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.standalone; st != nil {
		s.standalone = nil
		st.finished = true
		st.signal()
	}
}

// waiting reports whether a request of the session waits for its response.
func (s *session) waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests) > 0
}

// refuse answers every request of the session still waiting for its
// response with e, on the request's stream. A response the engine sends
// later finds no request waiting and is dropped.
func (s *session) refuse(ctx context.Context, e *jsonrpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return
	}
	for id, inf := range s.requests {
		delete(s.requests, id)
		st := inf.stream
		st.pending--
		if !st.swallow {
			s.push(ctx, st, jsonrpc.AppendError(nil, id, e))
		}
		if st.pending <= 0 {
			s.finish(st)
		}
	}
	s.shrink()
}

// poll calls done, with growing pauses up to a tenth of a second, until
// it reports true or ctx ends.
func poll(ctx context.Context, done func() bool) error {
	wait := time.Millisecond
	t := time.NewTimer(wait)
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
		t.Reset(wait)
	}
	return nil
}

// Shutdown shuts the LegacyHandler down gracefully, as Handler.Shutdown
// does: new streams and POSTs carrying requests get 503, POSTs of
// responses and notifications are still taken, and the streams stay open,
// since they carry the answers, until every request of every session has
// been answered or ctx ends. Then it ends as Close does, sending each
// request still open an error saying the server is shutting down. It
// returns ctx.Err() when ctx ended first, nil otherwise.
func (h *LegacyHandler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	err := poll(ctx, func() bool {
		for _, s := range h.all() {
			if s.waiting() {
				return false
			}
		}
		return true
	})
	h.stop()
	return err
}

// Close ends every session at once, sending each request still open an
// error saying the server is shutting down, and waits for their Serve
// calls to return. Requests arriving afterwards get 503.
func (h *LegacyHandler) Close() error {
	h.stop()
	return nil
}

func (h *LegacyHandler) all() []*legacySession {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := make([]*legacySession, 0, len(h.byID))
	for _, s := range h.byID {
		all = append(all, s)
	}
	return all
}

// stop answers the requests still open with errShuttingDown, cancels the
// sessions' ctx with server.ErrShutdown, and ends them.
func (h *LegacyHandler) stop() {
	h.mu.Lock()
	h.draining, h.closed = true, true
	h.mu.Unlock()
	all := h.all()
	for _, s := range all {
		s.refuse(errShuttingDown)
	}
	h.cancel(server.ErrShutdown)
	for _, s := range all {
		h.end(s)
	}
	h.wg.Wait()
}

// expect notes the requests among msgs, a POST's messages for s, as
// waiting for their responses. Once a shutdown has begun it takes no
// requests: it notes nothing and returns false.
func (h *LegacyHandler) expect(s *legacySession, msgs []jsonrpc.Message, r *http.Request) bool {
	// h.mu is held throughout, so that a Shutdown waiting for the
	// requests open sees these once it has begun.
	h.mu.Lock()
	defer h.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range msgs {
		if msgs[i].Kind() != jsonrpc.MessageRequest {
			continue
		}
		if h.draining {
			return false
		}
		if s.pending == nil {
			s.pending = make(map[jsonrpc.ID]*http.Request)
		}
		s.pending[msgs[i].ID] = r
	}
	return true
}

// request returns the POST that carried the client's request id, while
// it is unanswered.
func (s *legacySession) request(id jsonrpc.ID) *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[id]
}

// forget drops the requests among msgs, which never reached the engine.
func (s *legacySession) forget(msgs []jsonrpc.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range msgs {
		if msgs[i].Kind() == jsonrpc.MessageRequest {
			delete(s.pending, msgs[i].ID)
		}
	}
	s.shrink()
}

// answered notes the responses in frame, taken by the stream, as sent.
func (s *legacySession) answered(frame []byte) {
	if !s.waiting() {
		return // the frame answers nothing of the client's
	}
	msgs, _, _ := jsonrpc.DecodeBatch(frame)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range msgs {
		if msgs[i].Kind() == jsonrpc.MessageResponse {
			delete(s.pending, msgs[i].ID)
		}
	}
	s.shrink()
}

// shrink drops an emptied map, which Go never shrinks. s.mu is held.
func (s *legacySession) shrink() {
	if len(s.pending) == 0 {
		s.pending = nil
	}
}

// waiting reports whether a request of the session waits for its
// response.
func (s *legacySession) waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0
}

// refuse answers every request still waiting with e: the stream writes
// the answers out once the session is closed.
func (s *legacySession) refuse(e *jsonrpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.pending {
		s.last = append(s.last, jsonrpc.AppendError(nil, id, e))
	}
	s.pending = nil
}

// takeLast returns the frames refuse left for the stream.
func (s *legacySession) takeLast() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.last
	s.last = nil
	return last
}
