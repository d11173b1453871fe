package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// session is one MCP session run by this process. It is the
// jsonrpc.Transport that the engine's Serve runs over: Read returns the
// frames that POSTs feed in, Write routes each outgoing frame to a stream.
type session struct {
	h      *Handler
	id     string        // "" for the short-lived sessions of stateless mode
	owner  any           // the identity that started the session, if any
	in     chan []byte   // frames from POST bodies, handed to Read
	closed chan struct{} // closed when the session ends
	done   chan struct{} // closed once Serve has returned
	once   sync.Once

	lastActive atomic.Int64 // unix nanoseconds of the last HTTP request's start or end
	busy       atomic.Int32 // HTTP requests of the session in progress

	mu         sync.Mutex
	record     SessionRecord            // as last stored
	version    mcp.ProtocolVersion      // negotiated by initialize
	requests   map[jsonrpc.ID]*inflight // client requests not yet answered
	streams    map[uint64]*stream       // streams still owed responses
	nextStream uint64
	standalone *stream // the GET stream, once one was opened
}

// inflight is a client request the engine has not answered yet.
type inflight struct {
	stream     *stream
	req        *http.Request
	identity   any
	initialize bool
}

// stream is where the messages caused by one POST's requests go: an SSE
// stream, or the JSON reply. All its fields are guarded by session.mu.
type stream struct {
	num      uint64
	pending  int  // responses still owed
	json     bool // collect the responses for an application/json reply
	keep     bool // keep events in the EventStore for resumption
	swallow  bool // drop everything: the synthetic initialize of stateless mode
	seq      uint64
	attached bool     // an HTTP response is writing the stream out
	finished bool     // every response has been sent
	queue    [][]byte // SSE events (or JSON frames) not yet written out
	wake     chan struct{}
}

func newStream(num uint64) *stream {
	return &stream{num: num, wake: make(chan struct{}, 1)}
}

func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// errSessionClosed is the error of Reads, Writes and feeds after the
// session ended.
// It wraps jsonrpc.ErrClosed, so that the engine's Conn stops at once
// when the Handler ends a session: the Handler has already given its
// requests their grace period, or the client asked for the end.
var errSessionClosed = fmt.Errorf("streamable: session closed: %w", jsonrpc.ErrClosed)

func newSession(h *Handler, id string) *session {
	s := &session{
		h:      h,
		id:     id,
		in:     make(chan []byte),
		closed: make(chan struct{}),
		done:   make(chan struct{}),
	}
	s.touch()
	return s
}

func (s *session) touch() { s.lastActive.Store(time.Now().UnixNano()) }

// acquire and release bracket an HTTP request of the session, which is not
// idle meanwhile.
func (s *session) acquire() { s.busy.Add(1); s.touch() }
func (s *session) release() { s.touch(); s.busy.Add(-1) }

// Read implements jsonrpc.Transport.
func (s *session) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-s.in:
		return f, nil
	case <-s.closed:
		return nil, errSessionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close implements jsonrpc.Transport. It ends the session's streams too.
func (s *session) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// isClosed reports whether the session has ended.
func (s *session) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// feed hands a frame to the engine's read loop.
func (s *session) feed(ctx context.Context, frame []byte) error {
	select {
	case s.in <- frame:
		return nil
	case <-s.closed:
		return errSessionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Write implements jsonrpc.Transport: it routes a frame to the stream of
// the request that caused it. A response goes where its request came
// from; a request or notification sent with a handler's ctx goes on that
// handler's request's stream, anything else on the standalone stream.
func (s *session) Write(ctx context.Context, frame []byte) error {
	msgs, _, err := jsonrpc.DecodeBatch(frame)
	if err != nil && len(msgs) == 0 {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return errSessionClosed
	}
	if msgs[0].Kind() == jsonrpc.MessageResponse {
		s.routeResponses(ctx, msgs, frame)
		return nil
	}
	st := s.standalone
	if r := jsonrpc.RequestFromContext(ctx); r != nil {
		if inf := s.requests[r.ID]; inf != nil {
			st = inf.stream
		}
	}
	isRequest := msgs[0].Kind() == jsonrpc.MessageRequest
	switch {
	case st == nil || st.swallow:
		if isRequest {
			return errors.New("streamable: no stream open to carry a request to the client: it has no GET stream open")
		}
		return nil // a notification nobody listens for
	case st.json:
		if isRequest {
			return errors.New("streamable: the client asked for a JSON reply, which cannot carry a request to it")
		}
		return nil
	}
	s.push(ctx, st, frame)
	return nil
}

// routeResponses sends a response, or a batch of them, to the stream of
// the requests they answer. Guarded by s.mu.
func (s *session) routeResponses(ctx context.Context, msgs []jsonrpc.Message, frame []byte) {
	var st *stream
	for i := range msgs {
		inf := s.requests[msgs[i].ID]
		if inf == nil {
			continue // cancelled by the client, or not ours
		}
		delete(s.requests, msgs[i].ID)
		s.shrink()
		if inf.initialize && msgs[i].Error == nil {
			s.initialized(ctx, msgs[i].Result)
		}
		if st == nil {
			st = inf.stream
		}
		inf.stream.pending--
	}
	if st == nil {
		s.h.log.Debug("streamable: response dropped: no request waits for it", "session", s.id)
		return
	}
	if !st.swallow {
		s.push(ctx, st, frame)
	}
	if st.pending <= 0 {
		s.finish(st)
	}
}

// initialized records the version initialize negotiated. Guarded by s.mu.
func (s *session) initialized(ctx context.Context, result []byte) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	s.version = mcp.ProtocolVersion(r.ProtocolVersion)
	if s.id == "" {
		return
	}
	s.record.ProtocolVersion = r.ProtocolVersion
	if err := s.h.sessions.Update(ctx, s.record); err != nil {
		s.h.log.Warn("streamable: cannot update the session record", "session", s.id, "err", err)
	}
}

// push adds a frame to a stream: kept for resumption, and queued for the
// HTTP response writing the stream out, if any. Guarded by s.mu.
func (s *session) push(ctx context.Context, st *stream, frame []byte) {
	if st.json {
		st.queue = append(st.queue, frame)
		st.signal()
		return
	}
	st.seq++
	if st.keep {
		if err := s.h.events.Append(ctx, s.id, Event{Stream: st.num, Seq: st.seq, Data: frame}); err != nil {
			s.h.log.Warn("streamable: cannot keep an event", "session", s.id, "err", err)
		}
	}
	if st.attached {
		st.queue = append(st.queue, appendEvent(nil, eventID(st.num, st.seq), frame))
		st.signal()
	}
}

// finish marks a stream as complete. Guarded by s.mu.
func (s *session) finish(st *stream) {
	st.finished = true
	delete(s.streams, st.num)
	s.shrink()
	st.signal()
}

// protocolVersion returns the negotiated protocol version.
func (s *session) protocolVersion() mcp.ProtocolVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// shrink drops emptied maps, which Go never shrinks: an idle session should
// hold no memory for the requests it once had. s.mu is held.
func (s *session) shrink() {
	if len(s.requests) == 0 {
		s.requests = nil
	}
	if len(s.streams) == 0 {
		s.streams = nil
	}
}

// errDuplicateID reports a request id that is still in use.
type errDuplicateID struct{ id jsonrpc.ID }

func (e errDuplicateID) Error() string {
	return "request id " + e.id.String() + " is already in use"
}

// open registers the requests of a POST body under a new stream.
func (s *session) open(b *body, r *http.Request, identity any, asJSON, prime bool) (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return nil, errSessionClosed
	}
	for i := range b.msgs {
		m := &b.msgs[i]
		if m.Kind() != jsonrpc.MessageRequest {
			continue
		}
		if s.requests[m.ID] != nil {
			return nil, errDuplicateID{m.ID}
		}
		for j := range i {
			if b.msgs[j].Kind() == jsonrpc.MessageRequest && b.msgs[j].ID == m.ID {
				return nil, errDuplicateID{m.ID}
			}
		}
	}
	s.nextStream++
	st := newStream(s.nextStream)
	st.json = asJSON
	st.keep = !asJSON && s.id != ""
	st.attached = true
	if prime {
		st.seq = 1 // the priming event's
	}
	if s.requests == nil {
		s.requests = make(map[jsonrpc.ID]*inflight)
	}
	if s.streams == nil {
		s.streams = make(map[uint64]*stream)
	}
	for i := range b.msgs {
		m := &b.msgs[i]
		if m.Kind() != jsonrpc.MessageRequest {
			continue
		}
		s.requests[m.ID] = &inflight{stream: st, req: r, identity: identity, initialize: m.Method == mcp.MethodInitialize}
		st.pending++
	}
	s.streams[st.num] = st
	return st, nil
}

// abandon forgets a stream whose requests never reached the engine.
func (s *session) abandon(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, inf := range s.requests {
		if inf.stream == st {
			delete(s.requests, id)
			s.shrink()
		}
	}
	delete(s.streams, st.num)
	s.shrink()
}

// cancelled forgets a request the client cancelled: the engine sends no
// response to it, so its stream must not wait for one.
func (s *session) cancelled(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inf := s.requests[id]
	if inf == nil || inf.initialize {
		return
	}
	delete(s.requests, id)
	s.shrink()
	inf.stream.pending--
	if inf.stream.pending <= 0 {
		s.finish(inf.stream)
	}
}

// detach notes that no HTTP response writes the stream out any more.
func (s *session) detach(st *stream) {
	s.mu.Lock()
	st.attached = false
	st.queue = nil
	s.mu.Unlock()
}

// take returns what the stream holds to write out, and whether it is
// complete.
func (s *session) take(st *stream) (queue [][]byte, finished bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := st.queue
	st.queue = nil
	return q, st.finished
}

// lookup returns the inflight entry of the request whose handler ctx is
// given, or nil.
func (s *session) lookup(ctx context.Context) *inflight {
	r := jsonrpc.RequestFromContext(ctx)
	if r == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[r.ID]
}
