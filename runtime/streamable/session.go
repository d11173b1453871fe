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

	// Serving a session from several replicas: see replica.go.
	taskOwner  string        // the owner of its tasks, alike on every replica
	base       uint64        // where this replica's stream and request numbers start; 0 unless clustered
	adopted    bool          // brought up here from its record
	ready      chan struct{} // closed once an adopted session is brought up; nil otherwise
	readyErr   error         // why it could not be, set before ready is closed
	terminated atomic.Bool   // the client deleted it: its record goes too
	recordRead atomic.Int64  // unix nanoseconds this replica last read the record (keepRecord)
	// clientReady says the engine was fed notifications/initialized, by
	// the client or by initializeOnce; guarded by mu.
	clientReady bool

	mu         sync.Mutex
	record     SessionRecord            // as last stored
	version    mcp.ProtocolVersion      // negotiated by initialize
	requests   map[jsonrpc.ID]*inflight // client requests not yet answered
	streams    map[uint64]*stream       // streams still owed responses
	nextStream uint64
	standalone *stream // the GET stream, once one was opened
	// sentRequests are this replica's requests to the client still
	// awaiting their response, when clustered.
	sentRequests map[jsonrpc.ID]struct{}
	// tails are the streams of other replicas this one follows (see
	// Handler.tail), by number.
	tails map[uint64]*stream
}

var _ jsonrpc.ConcurrentWriter = (*session)(nil)

// inflight is a client request the engine has not answered yet.
type inflight struct {
	stream     *stream
	req        *http.Request
	identity   any
	initialize bool
}

// stream is where the messages caused by one POST's requests go: an SSE
// stream, or the JSON reply. All its fields are guarded by session.mu.
//
// An SSE stream holds at most HandlerOptions.MaxStreamBuffer bytes of
// events that its HTTP response has not yet written out; a notification
// or request that would pass the bound waits for room (see
// session.Write). Responses never wait, so buffered may pass the bound
// by the responses owed, and one event larger than the bound goes alone.
type stream struct {
	num      uint64
	pending  int  // responses still owed
	json     bool // collect the responses for an application/json reply
	keep     bool // keep events in the EventStore for resumption
	swallow  bool // drop everything: the synthetic initialize of stateless mode
	seq      uint64
	attached bool          // an HTTP response is writing the stream out
	finished bool          // every response has been sent
	queue    [][]byte      // SSE events (or JSON frames) not yet written out
	buffered int           // bytes of SSE events queued or being written out
	room     chan struct{} // closed when buffered shrinks or the stream stops taking events; nil until a writer waits
	wake     chan struct{}
	heard    time.Time // when the replica writing a followed stream last said it still does
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

// full returns a channel to wait on when an SSE event of n bytes would
// take the stream past its bound max, or nil when the stream has room or
// keeps no queue. A stream with nothing buffered always has room, so an
// event larger than the bound is not held back for ever.
func (st *stream) full(n, max int) <-chan struct{} {
	if !st.attached || st.finished || st.buffered == 0 || st.buffered+n <= max {
		return nil
	}
	if st.room == nil {
		st.room = make(chan struct{})
	}
	return st.room
}

// freed wakes the writers waiting for room, to try again.
func (st *stream) freed() {
	if st.room != nil {
		close(st.room)
		st.room = nil
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
	s.taskOwner = sessionOwner(id)
	if h.clustered() && id != "" {
		s.base = randomBase()
		s.nextStream = s.base
		s.recordRead.Store(time.Now().UnixNano())
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
//
// A request or notification that would take its stream past
// HandlerOptions.MaxStreamBuffer waits until the client has read enough,
// ctx ends or the session does: a handler that outruns its client is
// held back rather than the session's memory growing. Responses never
// wait. Write may be called from several goroutines at once; a frame
// waiting for room on one stream holds no other back.
func (s *session) Write(ctx context.Context, frame []byte) error {
	msgs, _, err := jsonrpc.DecodeBatch(frame)
	if err != nil && len(msgs) == 0 {
		return err
	}
	if msgs[0].Kind() == jsonrpc.MessageResponse {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.isClosed() {
			return errSessionClosed
		}
		s.routeResponses(ctx, msgs, frame)
		return nil
	}
	isRequest := msgs[0].Kind() == jsonrpc.MessageRequest
	if s.h.clustered() && s.id != "" {
		s.mu.Lock()
		s.track(msgs)
		s.mu.Unlock()
	}
	for {
		if err := ctx.Err(); err != nil {
			return err // the handler's request has ended: its stream may be gone
		}
		room, err := s.send(ctx, frame, isRequest)
		if err == errNoStream && s.h.clustered() && s.id != "" {
			if relayStandalone(msgs[0].Method) {
				s.h.publish(ctx, relay{Session: s.id, Kind: relayForGet, Frame: frame})
			}
			return nil // another replica may hold the GET stream
		}
		if room == nil {
			return err
		}
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closed:
			return errSessionClosed
		}
	}
}

// WritesConcurrently implements jsonrpc.ConcurrentWriter: Write keeps
// each frame whole under s.mu, and waits for room outside it.
func (s *session) WritesConcurrently() {}

// send routes a request or notification to its stream, or, when that has
// no room for it, returns the channel to wait on.
func (s *session) send(ctx context.Context, frame []byte, isRequest bool) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return nil, errSessionClosed
	}
	st := s.standalone
	if r := jsonrpc.RequestFromContext(ctx); r != nil {
		if inf := s.requests[r.ID]; inf != nil {
			st = inf.stream
		}
	}
	switch {
	case st != nil && st.swallow:
		return nil, nil // the reply to a request the client did not send
	case st == nil:
		if isRequest || s.h.clustered() && s.id != "" {
			return nil, errNoStream
		}
		return nil, nil // a notification nobody listens for
	case st.json:
		if isRequest {
			return nil, errors.New("streamable: the client asked for a JSON reply, which cannot carry a request to it")
		}
		return nil, nil
	}
	var ev []byte // weighed against the bound only when a response writes it out
	if st.attached {
		ev = appendEvent(nil, eventID(st.num, st.seq+1), frame)
		if room := st.full(len(ev), s.h.opts.MaxStreamBuffer); room != nil {
			return room, nil
		}
	}
	s.pushEvent(ctx, st, frame, ev)
	return nil, nil
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
	if s.id == "" || s.adopted {
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
	var ev []byte
	if st.attached {
		ev = appendEvent(nil, eventID(st.num, st.seq+1), frame)
	}
	s.pushEvent(ctx, st, frame, ev)
}

// pushEvent is push on an SSE stream, with ev the frame's event, made
// beforehand to weigh it; nil when the stream is not attached. Guarded by
// s.mu.
func (s *session) pushEvent(ctx context.Context, st *stream, frame, ev []byte) {
	st.seq++
	if st.keep {
		last := st.num != s.base && st.pending <= 0 // the standalone stream has no end
		if err := s.h.events.Append(ctx, s.id, Event{Stream: st.num, Seq: st.seq, Data: frame, Last: last}); err != nil {
			s.h.log.Warn("streamable: cannot keep an event", "session", s.id, "err", err)
		}
	}
	if st.attached {
		st.queue = append(st.queue, ev)
		st.buffered += len(ev)
		st.signal()
	}
}

// finish marks a stream as complete. Guarded by s.mu.
func (s *session) finish(st *stream) {
	st.finished = true
	delete(s.streams, st.num)
	s.shrink()
	st.signal()
	st.freed() // a writer waiting on it routes its frame afresh
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

// errNoStream is the error of sending a request to the client when no
// stream can carry it.
var errNoStream = errors.New("streamable: no stream open to carry a request to the client: it has no GET stream open")

// errDraining is the error of opening a stream once Shutdown has begun.
var errDraining = errors.New("streamable: the server is shutting down")

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
	// Checked under s.mu, which Shutdown's wait for open requests takes
	// too: a request is either refused here or seen by that wait.
	if s.h.stopping.Load() {
		return nil, errDraining
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

// detach notes that no HTTP response writes the stream out any more: its
// events go to the EventStore only, and nothing waits for room on it.
func (s *session) detach(st *stream) {
	s.mu.Lock()
	st.attached = false
	st.queue = nil
	st.buffered = 0
	st.freed()
	s.mu.Unlock()
}

// take returns what the stream holds to write out, and whether it is
// complete. The events stay counted against the bound until sent says
// they are written.
func (s *session) take(st *stream) (queue [][]byte, finished bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := st.queue
	st.queue = nil
	return q, st.finished
}

// sent notes that n bytes of the stream's events have been written out,
// making room for writers waiting on it.
func (s *session) sent(st *stream, n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	st.buffered = max(st.buffered-n, 0)
	st.freed()
	s.mu.Unlock()
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
