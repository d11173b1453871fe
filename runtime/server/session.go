package server

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The states of a session's lifecycle.
const (
	stateNew         int32 = iota // waiting for initialize
	stateReady                    // initialize answered; requests are served
	stateInitialized              // the client sent notifications/initialized
)

// Session is one client connection to a Server: a stream (stdio, an
// in-memory pipe) or one Streamable HTTP session. It serves both eras
// interleaved: a request whose _meta names a 2026-07-28-era version is
// served on its own, statelessly, with the session adding nothing; every
// other request belongs to the session's legacy lifecycle, which begins
// with initialize.
type Session struct {
	srv *Server
	// taskOwner names the owner of the tasks the session creates when its
	// transport authenticated nobody: random, so no other session can
	// reach them.
	taskOwner string
	conn      *jsonrpc.Conn
	chain     HandlerFunc
	state     atomic.Int32
	tasks     sync.WaitGroup // callbacks started from notifications, and sendChanges

	// Changes waiting to be told to the client, a set: see post.
	changeMu  sync.Mutex
	changes   []string        // list-changed methods, each at most once
	updated   map[string]bool // subscribed URIs that changed
	changeHas chan struct{}   // signalled when something waits

	mu       sync.Mutex
	version  mcp.ProtocolVersion
	client   *mcp.InitializeRequestParams
	minLevel int // index into levels of the lowest level sent
	subs     map[string]bool

	capsOnce sync.Once
	capsJSON []byte // the client's capabilities, encoded on first use
}

// capabilitiesJSON returns the capabilities the client declared in
// initialize, encoded once.
func (s *Session) capabilitiesJSON() []byte {
	s.capsOnce.Do(func() {
		s.mu.Lock()
		c := s.client.Capabilities
		s.mu.Unlock()
		s.capsJSON = encodeCapabilities(&c)
	})
	return s.capsJSON
}

// levels orders the logging levels from least to most severe.
var levels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

// levelIndex returns the index of level in levels, or -1.
func levelIndex(level mcp.LoggingLevel) int {
	for i, l := range levels {
		if l == level {
			return i
		}
	}
	return -1
}

func (s *Server) newSession(t jsonrpc.Transport) *Session {
	sess := &Session{srv: s, subs: map[string]bool{}, chain: s.currentChain(), changeHas: make(chan struct{}, 1), taskOwner: newSessionOwner()}
	var firstID int64
	if rt, ok := t.(ReplicatedTransport); ok {
		sess.taskOwner = rt.SessionOwner()
		firstID = rt.RequestIDBase()
	}
	sess.conn = jsonrpc.NewConn(t, sess, jsonrpc.Options{
		FirstID:        firstID,
		MaxInFlight:    s.opts.MaxInFlight,
		MaxQueued:      s.opts.MaxQueued,
		MaxQueuedBytes: s.opts.MaxQueuedBytes,
		DrainTimeout:   s.opts.DrainTimeout,
		Logger:         s.log,
		OnCancel:       sess.sendCancelled,
		OnDrain:        sess.drain,
		// A client may write its first requests right after initialize,
		// without waiting for its result: they are served after it.
		Barrier: func(method string) bool { return method == mcp.MethodInitialize },
		// A client's liveness check is answered while long calls hold
		// every slot.
		Urgent: func(method string) bool { return method == mcp.MethodPing },
		// Only 2025-03-26 has batches, and initialize may not be in one:
		// they are turned on when that version is negotiated.
		RejectBatches: true,
	})
	return sess
}

// ReplicatedTransport is the transport of a session that several
// replicas serve at once, each with a Session of its own: Streamable HTTP
// behind a load balancer, where any replica may take the session's next
// request.
type ReplicatedTransport interface {
	jsonrpc.Transport
	// SessionOwner names the session alike on every replica, so that a
	// task it created on one is its own on the others. It must be as
	// hard to guess as the session id it stands for.
	SessionOwner() string
	// RequestIDBase is the id after which this replica numbers its
	// requests to the client, apart from the other replicas' numbers, so
	// that the client's response names one request only.
	RequestIDBase() int64
}

// ProtocolVersion is the version negotiated by initialize, "" before it.
func (s *Session) ProtocolVersion() mcp.ProtocolVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// ClientInfo returns what the client said of itself in initialize, nil
// before it.
func (s *Session) ClientInfo() *mcp.InitializeRequestParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// Close ends the session.
func (s *Session) Close() error { return s.conn.Close() }

// ListRoots asks the session's client for its roots: what an
// OnRootsListChanged callback calls to learn the new ones.
func (s *Session) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	if s.state.Load() != stateInitialized {
		return nil, ErrNotInitialized
	}
	if c := s.ClientInfo(); c == nil || c.Capabilities.Roots == nil {
		return nil, &CapabilityError{Capability: "roots"}
	}
	return (&mcp.ClientAPI{Caller: s.conn}).ListRoots(ctx, nil)
}

// Handle implements jsonrpc.Handler: the era gate, then the legacy
// lifecycle or the stateless path, then the middleware chain and the
// generated dispatch.
func (s *Session) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		s.notification(ctx, req)
		return nil, nil
	}
	m := scanMeta(req.Params)
	if m.modern || modernOnly(req.Method) {
		return s.srv.serveCall(ctx, &Call{ID: req.ID, Method: req.Method, Params: req.Params, Out: s.conn}, m)
	}
	switch req.Method {
	case mcp.MethodInitialize:
		return s.initialize(req)
	case mcp.MethodPing:
		if s.state.Load() == stateNew {
			return []byte(`{}`), nil
		}
	}
	if s.state.Load() == stateNew {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is not initialized: send initialize first (or, for 2026-07-28, put the protocol version and client capabilities in each request's _meta)")
	}
	s.mu.Lock()
	r := &request{
		session:       s,
		id:            req.ID,
		method:        req.Method,
		version:       s.version,
		caps:          &s.client.Capabilities,
		client:        &s.client.ClientInfo,
		logLevel:      -1,
		principal:     ctx.Value(principalKey{}),
		progressToken: m.progressToken,
		meta:          m.raw,
	}
	s.mu.Unlock()
	return s.srv.serve(ctx, r, req.Params)
}

// latestLegacy is the newest version negotiated with initialize.
func latestLegacy() mcp.ProtocolVersion {
	var v mcp.ProtocolVersion
	for _, sv := range mcp.SupportedVersions() {
		if sv.Era() == mcp.EraLegacy {
			v = sv
		}
	}
	return v
}

func (s *Session) initialize(req *jsonrpc.Request) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Load() != stateNew {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize was already received")
	}
	p := new(mcp.InitializeRequestParams)
	err := p.UnmarshalJSON(req.Params)
	if err == nil {
		err = p.ValidateVersion(latestLegacy())
	}
	if err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	// Answer the client's version when it is one we speak in this era,
	// else the newest we do; initialize never negotiates a modern version.
	v := mcp.ProtocolVersion(p.ProtocolVersion)
	if !v.Supported() || v.Era() != mcp.EraLegacy {
		v = latestLegacy()
	}
	// The state moves on last: a request that sees it ready finds the
	// version and the client's capabilities.
	s.version, s.client = v, p
	s.state.Store(stateReady)
	s.conn.SetRejectBatches(v != mcp.Version20250326)
	res := &mcp.InitializeResult{
		ProtocolVersion: string(v),
		Capabilities:    s.srv.capabilitiesFor(false),
		ServerInfo:      s.srv.info,
		Instructions:    s.srv.opts.Instructions,
	}
	return res.MarshalJSON()
}

// drain ends the session's subscriptions/listen requests with their
// graceful completion as its shutdown begins: they would otherwise hold
// it for the whole grace period.
func (s *Session) drain() {
	s.srv.eachListener(func(l *listener) {
		if l.out == Notifier(s.conn) {
			l.end(ErrShutdown)
		}
	})
}

func (s *Session) notification(ctx context.Context, req *jsonrpc.Request) {
	switch req.Method {
	case mcp.MethodInitializedNotification:
		s.state.CompareAndSwap(stateReady, stateInitialized)
	case mcp.MethodCancelledNotification:
		// Both eras cancel this way on a stream: a 2026-07-28 request may
		// be running before, or without, any initialize.
		id, err := CancelledRequestID(req.Params)
		if err != nil {
			s.srv.log.Debug("cancellation ignored", "error", err)
			return
		}
		if method, running := s.conn.IncomingMethod(id); running && method != mcp.MethodInitialize {
			s.conn.CancelIncoming(id) // initialize is never cancelled
		}
	case mcp.MethodRootsListChangedNotification:
		if cb := s.srv.opts.OnRootsListChanged; cb != nil {
			// Off the read loop: the callback may well ask for the roots.
			s.tasks.Add(1)
			go func() {
				defer s.tasks.Done()
				cb(ctx, s)
			}()
		}
	}
}

// sendCancelled tells the client that the server gave up on a request.
func (s *Session) sendCancelled(id jsonrpc.ID) {
	var p mcp.CancelledNotificationParams
	if n, ok := id.Int(); ok {
		p.RequestID = mcp.RequestIdFromInteger(n)
	} else if str, ok := id.Str(); ok {
		p.RequestID = mcp.RequestIdFromString(str)
	}
	p.Reason = "the server's request context ended"
	params, err := p.MarshalJSON()
	if err == nil {
		s.conn.Notify(context.Background(), mcp.MethodCancelledNotification, params)
	}
}

// post records a change to tell the client: a list-changed method, or
// the URI of a resource it may have subscribed to. It never waits: the
// session's sendChanges goroutine sends what waits, and repeats of a
// change not yet sent collapse into one, so a client that stops reading
// costs a bounded set (the methods, and the URIs it subscribed to) and
// holds up no broadcast.
func (s *Session) post(method, uri string) {
	if uri != "" && !s.subscribed(uri) {
		return
	}
	s.changeMu.Lock()
	switch {
	case uri != "":
		if s.updated == nil {
			s.updated = map[string]bool{}
		}
		s.updated[uri] = true
	case !slices.Contains(s.changes, method):
		s.changes = append(s.changes, method)
	}
	s.changeMu.Unlock()
	select {
	case s.changeHas <- struct{}{}:
	default:
	}
}

// sendChanges sends the changes post records until ctx ends, which Serve
// does once the session is over.
func (s *Session) sendChanges(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changeHas:
		}
		s.changeMu.Lock()
		methods, uris := s.changes, s.updated
		s.changes, s.updated = nil, nil
		s.changeMu.Unlock()
		for _, m := range methods {
			s.notify(ctx, m, nil)
		}
		for u := range uris {
			params, err := (&mcp.ResourceUpdatedNotificationParams{URI: u}).MarshalJSON()
			if err == nil {
				s.notify(ctx, mcp.MethodResourceUpdatedNotification, params)
			}
		}
	}
}

// notify sends a notification once the client is initialized; before
// that only log messages go out, and the others are dropped. It returns
// why a notification could not be sent (ctx ended while the client was
// slow to read, the session is gone), so that a handler reporting
// progress learns it is talking to nobody.
func (s *Session) notify(ctx context.Context, method string, params []byte) error {
	st := s.state.Load()
	if st == stateNew || (st == stateReady && method != mcp.MethodLoggingMessageNotification) {
		return nil
	}
	err := s.conn.Notify(ctx, method, params)
	if err != nil {
		s.srv.log.Debug("notification not sent", "method", method, "error", err)
	}
	return err
}

func (s *Session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[uri]
}

// Log sends a log message to this session's client, filtered by the level
// it set with logging/setLevel. data is encoded as JSON.
func (s *Session) Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	idx := levelIndex(level)
	if idx < 0 {
		return errors.New("server: unknown logging level " + string(level))
	}
	s.mu.Lock()
	min := s.minLevel
	s.mu.Unlock()
	if idx < min {
		return nil
	}
	params, err := logParams(level, logger, data)
	if err != nil {
		return err
	}
	return s.notify(ctx, mcp.MethodLoggingMessageNotification, params)
}
