package streamable

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/bus"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// A legacy session served by several replicas
//
// With HandlerOptions.Bus set, the Handler is one replica of several that
// share Sessions, Events and the bus, behind a load balancer that may send
// each request of a session to any of them. The replica that gets a
// session's request without running the session brings it up from its
// record: a session of its own, under the same id, taken through the
// client's initialize and notifications/initialized again, then the
// logging level and resource subscriptions the record holds. Those
// replies go nowhere. Each replica then serves what it is sent; the bus
// carries what one replica receives and another must act on:
//
//   - the client's response to a request another replica sent it
//     (sampling, elicitation, roots), and its cancellation of a request
//     another replica serves;
//   - what a replica would send on the GET stream, which another replica
//     may hold;
//   - a change of the session's logging level or subscriptions, and its
//     end (DELETE).
//
// A DELETE is answered once every replica that ran the session has ended
// it: on a bus that counts its receivers (bus.Counter), the replica that
// takes the DELETE waits, a bounded time, for each to confirm, so that
// the client's next request is refused wherever it lands.
//
// Each replica numbers its requests to the client, and its SSE streams,
// from a random base of its own, so that neither request ids nor event ids
// meet; a Last-Event-ID of another replica's stream resumes from the
// Events store. List changes and resource updates are not relayed: each
// replica's Server hears of them on its own bus and tells its copies.

// DefaultBusTopic is the topic of the session messages replicas exchange
// when HandlerOptions.BusTopic is empty.
const DefaultBusTopic = "mcpgen:streamable"

// Limits of a session's shared state.
const (
	// maxRecordedSubscriptions bounds the resource subscriptions a session
	// record keeps for other replicas; past it, later ones stay with the
	// replica that took them.
	maxRecordedSubscriptions = 256
	// maxSentRequests bounds the requests to the client a replica tracks
	// until their response; past it, a response that reaches another
	// replica is not relayed back.
	maxSentRequests = 4096
	// maxRelays bounds the relayed messages being fed at once.
	maxRelays = 64
	// streamBaseBits is how far apart the replicas' stream and request
	// numbers start: a replica's standalone stream is its base, and its
	// POST streams follow it.
	streamBaseBits = 21
	// endConfirmWait bounds how long the end of a session waits for the
	// other replicas to say they ended their copies of it.
	endConfirmWait = 2 * time.Second
)

// The kinds of relayed messages.
const (
	relayResponse  = "response"   // the client answered a request: Frame
	relayCancel    = "cancel"     // the client cancelled a request: Frame
	relayForGet    = "standalone" // for the GET stream: Frame
	relayGetStream = "get"        // a replica opened the GET stream
	relayApply     = "apply"      // a request changed the session: Method, Frame its params
	relayEnd       = "end"        // the client deleted the session; Frame, if any, asks for a relayEnded
	relayEnded     = "ended"      // this replica no longer runs the session: Frame is the relayEnd's
	relayProbe     = "probe"      // is the POST stream Frame (a number) still running?
	relayAlive     = "alive"      // it is: the stream Frame still waits for responses
)

// relay is one message on the bus.
type relay struct {
	Origin  string          `json:"o"`
	Session string          `json:"s"`
	Kind    string          `json:"k"`
	Method  string          `json:"m,omitempty"`
	Frame   json.RawMessage `json:"f,omitempty"`
}

// maxRelayBytes bounds a relayed message that is accepted from the bus.
const maxRelayBytes = 8 << 20

// clustered reports whether the Handler is one of several replicas.
func (h *Handler) clustered() bool { return h.opts.Bus != nil }

// joinBus subscribes to the session messages of the other replicas; the
// subscription ends in stop. It is retried on each new session until it
// succeeds. h.mu is held.
func (h *Handler) joinBus() {
	if !h.clustered() || h.busStop != nil {
		return
	}
	stop, err := h.opts.Bus.Subscribe(h.ctx, h.busTopic(), h.delivered)
	if err != nil {
		h.log.Warn("streamable: cannot subscribe to the replicas' bus; retrying with the next session", "err", err)
		return
	}
	h.busStop = stop
}

func (h *Handler) busTopic() string {
	if h.opts.BusTopic != "" {
		return h.opts.BusTopic
	}
	return DefaultBusTopic
}

// publish sends a message to the other replicas. It is best effort: a bus
// that is down loses it, as it would lose a message to a replica that is.
func (h *Handler) publish(ctx context.Context, m relay) (published bool) {
	_, published = h.publishCounted(ctx, m)
	return published
}

// publishCounted is publish that also returns how many subscriptions took
// the message, this replica's own among them: -1 when the bus cannot say,
// not being a bus.Counter.
func (h *Handler) publishCounted(ctx context.Context, m relay) (receivers int, published bool) {
	m.Origin = h.origin
	data, err := json.Marshal(m)
	if err != nil {
		h.log.Warn("streamable: cannot encode a message for the other replicas", "err", err)
		return 0, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	receivers = -1
	if c, ok := h.opts.Bus.(bus.Counter); ok {
		receivers, err = c.PublishCount(ctx, h.busTopic(), data)
	} else {
		err = h.opts.Bus.Publish(ctx, h.busTopic(), data)
	}
	if err != nil {
		h.log.Warn("streamable: cannot reach the other replicas", "session", m.Session, "kind", m.Kind, "err", err)
		return 0, false
	}
	return receivers, true
}

// delivered acts on a message from the bus. It never waits for a
// session: what must be fed to one is fed from a goroutine of its own,
// at most maxRelays at once.
func (h *Handler) delivered(data []byte) {
	if len(data) > maxRelayBytes {
		h.log.Warn("streamable: dropped an oversized message from the bus", "bytes", len(data))
		return
	}
	var m relay
	if err := json.Unmarshal(data, &m); err != nil || m.Session == "" || m.Kind == "" {
		h.log.Warn("streamable: dropped a malformed message from the bus", "err", err)
		return
	}
	if m.Origin == h.origin {
		if m.Kind == relayEnd {
			h.endConfirmed(m.Frame) // this replica's own copy ended before it was announced
		}
		return
	}
	h.mu.Lock()
	s := h.byID[m.Session]
	h.mu.Unlock()
	switch m.Kind {
	case relayEnd:
		// Ended here before it is confirmed, so that once the replica
		// that announced it answers the DELETE, no request finds the
		// session on this one.
		if s != nil {
			h.end(s)
		}
		if len(m.Frame) > 0 {
			h.spawn(func(ctx context.Context) {
				h.publish(ctx, relay{Session: m.Session, Kind: relayEnded, Frame: m.Frame})
			})
		}
		return
	case relayEnded:
		h.endConfirmed(m.Frame)
		return
	}
	if s == nil {
		return
	}
	switch m.Kind {
	case relayForGet:
		s.sendStandalone(h.ctx, m.Frame)
	case relayGetStream:
		s.closeStandalone() // the client now reads the other replica's
	case relayResponse:
		if s.awaits(m.Frame) {
			h.relayed(s, m.Frame)
		}
	case relayCancel:
		if id, ok := cancelledID(m.Frame); ok && s.serves(id) {
			s.cancelled(id)
			h.relayed(s, m.Frame)
		}
	case relayProbe:
		if num, err := strconv.ParseUint(string(m.Frame), 10, 64); err == nil && s.writes(num) {
			h.spawn(func(ctx context.Context) {
				h.publish(ctx, relay{Session: s.id, Kind: relayAlive, Frame: m.Frame})
			})
		}
	case relayAlive:
		if num, err := strconv.ParseUint(string(m.Frame), 10, 64); err == nil {
			s.heard(num)
		}
	case relayApply:
		if applies(m.Method) {
			s.remember(m.Method, m.Frame) // so that its next Update keeps the change
			h.spawn(func(ctx context.Context) {
				if err := s.waitReady(ctx); err == nil {
					h.replay(ctx, s, m.Method, m.Frame)
				}
			})
		}
	default:
		h.log.Debug("streamable: dropped a message of an unknown kind from the bus", "kind", m.Kind)
	}
}

// relayed feeds a frame another replica received to s.
func (h *Handler) relayed(s *session, frame []byte) {
	h.spawn(func(ctx context.Context) {
		if err := s.feed(ctx, frame); err != nil {
			h.log.Debug("streamable: cannot feed a relayed message", "session", s.id, "err", err)
		}
	})
}

// spawn runs f in a goroutine of the Handler with a bounded ctx, unless
// maxRelays already run: then f is dropped, as a bus drops what a slow
// subscriber leaves. f acts on a message from the bus, or on the stores
// for a session (keepRecord).
func (h *Handler) spawn(f func(ctx context.Context)) {
	select {
	case h.relays <- struct{}{}:
	default:
		h.log.Warn("streamable: dropped work for the other replicas: too much of it running")
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer func() { <-h.relays }()
		ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
		defer cancel()
		f(ctx)
	}()
}

// applies reports whether a request changes the session's state that the
// record keeps.
func applies(method string) bool {
	switch method {
	case mcp.MethodSetLevel, mcp.MethodSubscribe, mcp.MethodUnsubscribe:
		return true
	}
	return false
}

// ownerKey names an identity the same on every replica, for the record:
// the session's owner must be the one who brings it up elsewhere. Only
// identities with a stable text can be named; a session of another kind
// of identity stays with its replica.
func ownerKey(identity any) (string, bool) {
	switch v := identity.(type) {
	case nil:
		return "", true
	case fmt.Stringer:
		return fmt.Sprintf("%T:%s", v, v), true
	}
	switch reflect.TypeOf(identity).Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("%T:%v", identity, identity), true
	}
	return "", false
}

// randomBase returns a random multiple of 1<<streamBaseBits below 1<<52,
// which keeps request ids exact in a JavaScript client's numbers.
func randomBase() uint64 {
	var b [8]byte
	rand.Read(b[:])
	n := binary.LittleEndian.Uint64(b[:]) % (1<<(52-streamBaseBits) - 1)
	return (n + 1) << streamBaseBits
}

// SessionOwner implements server.ReplicatedTransport: a digest of the
// session id, as secret as the id, names the owner of its tasks on every
// replica.
func (s *session) SessionOwner() string { return s.taskOwner }

// RequestIDBase implements server.ReplicatedTransport.
func (s *session) RequestIDBase() int64 { return int64(s.base) }

var _ server.ReplicatedTransport = (*session)(nil)

// sessionOwner derives the owner of a session's tasks from its id; a
// session without one gets a random owner of its own.
func sessionOwner(id string) string {
	if id == "" {
		var b [16]byte
		rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	sum := sha256.Sum256([]byte("mcpgen streamable session owner\x00" + id))
	return hex.EncodeToString(sum[:16])
}

// foreignStandalone reports whether a stream number names another
// replica's GET stream.
func (s *session) foreignStandalone(num uint64) bool {
	return s.h.clustered() && num != s.base && num&(1<<streamBaseBits-1) == 0
}

// adopt brings up a session this replica does not run from its record,
// or answers with an error and returns nil. The session is returned
// acquired and ready.
func (h *Handler) adopt(w http.ResponseWriter, r *http.Request, id string, identity any) *session {
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	rec, err := h.sessions.Get(ctx, id)
	if errors.Is(err, ErrUnknownSession) {
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return nil
	}
	if err != nil {
		h.log.Warn("streamable: cannot read a session record", "err", err)
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, "the session store cannot be reached; try again")
		return nil
	}
	if key, ok := ownerKey(identity); rec.Unshared || !ok || key != rec.Owner {
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return nil
	}
	s := newSession(h, id)
	s.owner = identity
	s.record = rec
	s.adopted = true
	s.ready = make(chan struct{})
	s.acquire()
	running, err := h.startAdopted(s)
	if err != nil {
		if e, ok := err.(*capError); ok {
			e.write(w, jsonrpc.ID{})
		} else {
			refuseShuttingDown(w)
		}
		return nil
	}
	if running != nil {
		// Another request brought it up first.
		if err := running.waitReady(r.Context()); err != nil {
			running.release()
			httpError(w, http.StatusServiceUnavailable, "cannot bring the session up on this replica: "+err.Error())
			return nil
		}
		return running
	}
	err = h.bringUp(ctx, s, rec)
	s.readyErr = err
	close(s.ready)
	// The session may have ended since its record was read, its end
	// announced before this replica ran it and so not heard of here: the
	// record, read again now that the session is registered, says.
	if _, gerr := h.sessions.Get(ctx, id); errors.Is(gerr, ErrUnknownSession) {
		s.release()
		h.end(s)
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return nil
	}
	if err != nil {
		h.log.Warn("streamable: cannot bring a session up from its record", "session", id, "err", err)
		s.release()
		h.end(s)
		httpError(w, http.StatusServiceUnavailable, "cannot bring the session up on this replica: "+err.Error())
		return nil
	}
	h.log.Debug("streamable: session brought up from its record", "session", id)
	return s
}

// bringUp takes a new session through what its record says the client
// did: initialize, notifications/initialized, then the state requests.
func (h *Handler) bringUp(ctx context.Context, s *session, rec SessionRecord) error {
	if err := h.swallow(ctx, s, jsonrpc.AppendRequest(nil, jsonrpc.StringID("mcpgen-replica-initialize"), mcp.MethodInitialize, rec.Initialize)); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := s.feed(ctx, jsonrpc.AppendNotification(nil, mcp.MethodInitializedNotification, nil)); err != nil {
		return err
	}
	// The engine takes a notification in order but without an answer: a
	// ping behind it returns once the session counts as initialized, so
	// that a list change from then on reaches the client it is adopted
	// for, even one made while the replayed events are still on the way.
	if err := h.replay(ctx, s, mcp.MethodPing, nil); err != nil {
		return err
	}
	s.mu.Lock()
	s.clientReady = true
	s.mu.Unlock()
	if rec.LogLevel != "" {
		params, _ := json.Marshal(map[string]string{"level": rec.LogLevel})
		if err := h.replay(ctx, s, mcp.MethodSetLevel, params); err != nil {
			return err
		}
	}
	for _, uri := range rec.Subscriptions {
		params, _ := json.Marshal(map[string]string{"uri": uri})
		if err := h.replay(ctx, s, mcp.MethodSubscribe, params); err != nil {
			return err
		}
	}
	return nil
}

// replay serves a request on s whose response nobody reads.
func (h *Handler) replay(ctx context.Context, s *session, method string, params []byte) error {
	id := jsonrpc.StringID("mcpgen-replica-" + rand.Text())
	if err := h.swallow(ctx, s, jsonrpc.AppendRequest(nil, id, method, params)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// swallow feeds one request to s on a stream of its own that drops
// everything, and waits for its response.
func (h *Handler) swallow(ctx context.Context, s *session, frame []byte) error {
	msgs, _, err := jsonrpc.DecodeBatch(frame)
	if err != nil {
		return err
	}
	st, err := s.open(&body{frame: frame, msgs: msgs, requests: 1}, nil, nil, true, false)
	if err != nil {
		return err
	}
	st.swallow = true // nothing can write to st before the feed below
	if err := s.feed(ctx, frame); err != nil {
		s.abandon(st)
		return err
	}
	for {
		if _, finished := s.take(st); finished {
			return nil
		}
		select {
		case <-st.wake:
		case <-s.closed:
			return errSessionClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitReady waits until an adopted session is brought up.
func (s *session) waitReady(ctx context.Context) error {
	if s.ready == nil {
		return nil
	}
	select {
	case <-s.ready:
		return s.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// forget ends a session that this replica does not run, for a DELETE:
// its record and events go, and the replicas running it end it.
func (h *Handler) forget(w http.ResponseWriter, r *http.Request, id string, identity any) {
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	rec, err := h.sessions.Get(ctx, id)
	if errors.Is(err, ErrUnknownSession) {
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return
	}
	if err != nil {
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, "the session store cannot be reached; try again")
		return
	}
	if key, ok := ownerKey(identity); rec.Unshared || !ok || key != rec.Owner {
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return
	}
	h.dropRecord(ctx, id)
	w.WriteHeader(http.StatusNoContent)
}

// dropRecord deletes a session's record and events and tells the other
// replicas that the session has ended.
func (h *Handler) dropRecord(ctx context.Context, id string) {
	if err := h.sessions.Delete(ctx, id); err != nil {
		h.log.Warn("streamable: cannot delete the session record", "session", id, "err", err)
	}
	if err := h.events.Forget(ctx, id); err != nil {
		h.log.Warn("streamable: cannot forget the session's events", "session", id, "err", err)
	}
	if h.clustered() {
		h.announceEnd(ctx, id)
	}
}

// recordKeepEvery is how often a replica reads the record of a session
// it serves, which restarts the store's idle expiry (store/redis's
// IdleTTL): a session in use on one replica alone, which reads its record
// nowhere else, keeps the record another replica would bring it up from.
var recordKeepEvery = 10 * time.Minute

// keepRecord reads s's record in the background when this replica has not
// for recordKeepEvery.
func (h *Handler) keepRecord(s *session) {
	now := time.Now().UnixNano()
	last := s.recordRead.Load()
	if now-last < int64(recordKeepEvery) || !s.recordRead.CompareAndSwap(last, now) {
		return
	}
	h.spawn(func(ctx context.Context) {
		if _, err := h.sessions.Get(ctx, s.id); err != nil {
			h.log.Debug("streamable: cannot read the record of a session in use", "session", s.id, "err", err)
		}
	})
}

// ending counts the replicas that confirmed the end of a session this
// replica announced. Guarded by Handler.mu.
type ending struct {
	confirmed int
	wake      chan struct{} // signalled when confirmed grows
}

// announceEnd tells the other replicas that a session has ended. On a bus
// that counts its receivers it then waits, at most endConfirmWait, until
// each receiver confirmed that it no longer runs the session: the DELETE
// is answered after that, so that the client's next request finds the
// session on no replica. A receiver that drops the message, or runs a
// version of mcpgen that does not confirm, costs the wait in full.
func (h *Handler) announceEnd(ctx context.Context, id string) {
	nonce := json.RawMessage(strconv.Quote(rand.Text()))
	e := &ending{wake: make(chan struct{}, 1)}
	h.mu.Lock()
	// The confirmations come on the bus: a replica that never ran a
	// session has not subscribed to it yet.
	h.joinBus()
	if h.busStop == nil {
		h.mu.Unlock()
		h.publish(ctx, relay{Session: id, Kind: relayEnd})
		return
	}
	if h.endings == nil {
		h.endings = make(map[string]*ending)
	}
	h.endings[string(nonce)] = e
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.endings, string(nonce))
		h.mu.Unlock()
	}()
	receivers, published := h.publishCounted(ctx, relay{Session: id, Kind: relayEnd, Frame: nonce})
	if !published || receivers < 0 {
		return
	}
	timer := time.NewTimer(endConfirmWait)
	defer timer.Stop()
	for {
		h.mu.Lock()
		confirmed := e.confirmed
		h.mu.Unlock()
		if confirmed >= receivers {
			return
		}
		select {
		case <-e.wake:
		case <-timer.C:
			h.log.Warn("streamable: not every replica confirmed the end of a session in time", "session", id, "confirmed", confirmed, "receivers", receivers)
			return
		case <-ctx.Done():
			return
		}
	}
}

// endConfirmed counts a confirmation of the end announceEnd is waiting
// for, named by nonce; one it no longer waits for is dropped.
func (h *Handler) endConfirmed(nonce json.RawMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.endings[string(nonce)]
	if e == nil {
		return
	}
	e.confirmed++
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// share tells the record, and the other replicas, of the requests of a
// POST body that change the session's state, before they are served.
func (h *Handler) share(ctx context.Context, s *session, b *body) {
	for i := range b.msgs {
		m := &b.msgs[i]
		if m.Kind() != jsonrpc.MessageRequest || !applies(m.Method) {
			continue
		}
		if s.remember(m.Method, m.Params) {
			s.mu.Lock()
			rec := s.record
			rec.Subscriptions = slices.Clone(rec.Subscriptions)
			s.mu.Unlock()
			if err := h.sessions.Update(ctx, rec); err != nil {
				h.log.Warn("streamable: cannot update the session record", "session", s.id, "err", err)
			}
		}
		h.publish(ctx, relay{Session: s.id, Kind: relayApply, Method: m.Method, Frame: m.Params})
	}
}

// remember notes a state request in the record; false when it changes
// nothing there.
func (s *session) remember(method string, params []byte) bool {
	var p struct {
		Level string `json:"level"`
		URI   string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &s.record
	switch method {
	case mcp.MethodSetLevel:
		if p.Level == "" || p.Level == rec.LogLevel {
			return false
		}
		rec.LogLevel = p.Level
	case mcp.MethodSubscribe:
		if p.URI == "" || slices.Contains(rec.Subscriptions, p.URI) || len(rec.Subscriptions) >= maxRecordedSubscriptions {
			return false
		}
		rec.Subscriptions = append(rec.Subscriptions, p.URI)
	case mcp.MethodUnsubscribe:
		i := slices.Index(rec.Subscriptions, p.URI)
		if i < 0 {
			return false
		}
		rec.Subscriptions = slices.Delete(slices.Clone(rec.Subscriptions), i, i+1)
	}
	return true
}

// relayIncoming passes on what a POST without requests carries for other
// replicas: responses to requests this replica did not send, and
// cancellations of requests it does not serve. They are fed here too,
// where the engine drops what is not its own.
func (h *Handler) relayIncoming(ctx context.Context, s *session, b *body) {
	for i := range b.msgs {
		m := &b.msgs[i]
		switch {
		case m.Kind() == jsonrpc.MessageResponse && !s.awaitsID(m.ID):
			h.publish(ctx, relay{Session: s.id, Kind: relayResponse, Frame: b.frame})
			return
		case m.Kind() == jsonrpc.MessageNotification && m.Method == mcp.MethodCancelledNotification:
			if id, err := server.CancelledRequestID(m.Params); err == nil && !s.serves(id) {
				h.publish(ctx, relay{Session: s.id, Kind: relayCancel, Frame: jsonrpc.AppendNotification(nil, m.Method, m.Params)})
			}
		}
	}
}

// cancelledID reads the request id of a notifications/cancelled frame.
func cancelledID(frame []byte) (jsonrpc.ID, bool) {
	m, err := jsonrpc.DecodeMessage(frame)
	if err != nil || m.Method != mcp.MethodCancelledNotification {
		return jsonrpc.ID{}, false
	}
	id, err := server.CancelledRequestID(m.Params)
	return id, err == nil
}

// awaits reports whether a frame holds a response to a request this
// replica sent.
func (s *session) awaits(frame []byte) bool {
	msgs, _, err := jsonrpc.DecodeBatch(frame)
	if err != nil {
		return false
	}
	for i := range msgs {
		if msgs[i].Kind() == jsonrpc.MessageResponse && s.awaitsID(msgs[i].ID) {
			return true
		}
	}
	return false
}

func (s *session) awaitsID(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.sentRequests[id]
	return ok
}

// serves reports whether a request of the client is being served here.
func (s *session) serves(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[id] != nil
}

// track notes the requests to the client a frame holds, and forgets those
// it answers or cancels, for responses to find their replica. s.mu is
// held.
func (s *session) track(msgs []jsonrpc.Message) {
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Kind() == jsonrpc.MessageRequest:
			if s.sentRequests == nil {
				s.sentRequests = make(map[jsonrpc.ID]struct{})
			}
			if len(s.sentRequests) < maxSentRequests {
				s.sentRequests[m.ID] = struct{}{}
			}
		case m.Method == mcp.MethodCancelledNotification:
			if id, err := server.CancelledRequestID(m.Params); err == nil {
				delete(s.sentRequests, id)
			}
		}
	}
}

// answered forgets the requests to the client that a client's frame
// answers.
func (s *session) answered(msgs []jsonrpc.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range msgs {
		if msgs[i].Kind() == jsonrpc.MessageResponse {
			delete(s.sentRequests, msgs[i].ID)
		}
	}
	if len(s.sentRequests) == 0 {
		s.sentRequests = nil
	}
}

// sendStandalone puts a frame another replica relayed on this replica's
// GET stream, when it holds one. It never waits for room: the bus does
// not wait either.
func (s *session) sendStandalone(ctx context.Context, frame []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.standalone
	if s.isClosed() || st == nil || !st.attached {
		return
	}
	s.pushEvent(ctx, st, frame, appendEvent(nil, eventID(st.num, st.seq+1), frame))
}

// relayStandalone reports whether a frame with nowhere to go here should
// go to the replica holding the GET stream: not the list changes and
// resource updates, which every replica's Server tells its own copy of
// the session.
func relayStandalone(method string) bool {
	switch method {
	case mcp.MethodToolListChangedNotification, mcp.MethodPromptListChangedNotification,
		mcp.MethodResourceListChangedNotification, mcp.MethodResourceUpdatedNotification:
		return false
	}
	return true
}

// initializeOnce makes sure the engine of a clustered session has heard
// notifications/initialized before it serves anything else of the
// client's: the client sent it after initialize, but perhaps to another
// replica, and a request reaching this one says the client holds itself
// initialized. The engine takes a second one as a no-op.
func (s *session) initializeOnce(ctx context.Context, b *body) error {
	s.mu.Lock()
	done := s.clientReady
	s.clientReady = true
	s.mu.Unlock()
	if done {
		return nil
	}
	for i := range b.msgs {
		if b.msgs[i].Method == mcp.MethodInitializedNotification {
			return nil // this body brings it
		}
	}
	return s.feed(ctx, jsonrpc.AppendNotification(nil, mcp.MethodInitializedNotification, nil))
}

// writes reports whether this replica writes the POST stream num of s:
// its requests still wait for responses here.
func (s *session) writes(num uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.streams[num]
	return st != nil && !st.finished
}

// heard notes that the replica writing the stream num, which this one
// follows, said it still does.
func (s *session) heard(num uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.tails[num]; st != nil {
		st.heard = time.Now()
	}
}
