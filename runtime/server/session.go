package server

import (
	"context"
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

// Session is one client connection to a Server.
type Session struct {
	srv   *Server
	conn  *jsonrpc.Conn
	chain HandlerFunc
	state atomic.Int32
	tasks sync.WaitGroup // callbacks started from notifications

	mu       sync.Mutex
	version  mcp.ProtocolVersion
	client   *mcp.InitializeRequestParams
	minLevel int        // index into levels of the lowest level sent
	initID   jsonrpc.ID // the initialize request, which is never cancelled
	subs     map[string]bool
}

// levels orders the logging levels from least to most severe.
var levels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

func (s *Server) newSession(t jsonrpc.Transport) *Session {
	sess := &Session{srv: s, subs: map[string]bool{}}
	s.mu.RLock()
	mw := slices.Clone(s.middleware)
	s.mu.RUnlock()
	sess.chain = sess.dispatch
	for i := len(mw) - 1; i >= 0; i-- {
		sess.chain = mw[i](sess.chain)
	}
	sess.conn = jsonrpc.NewConn(t, sess, jsonrpc.Options{
		MaxInFlight: s.opts.MaxInFlight,
		Logger:      s.log,
		OnCancel:    sess.sendCancelled,
		// Only 2025-03-26 has batches, and initialize may not be in one:
		// they are turned on when that version is negotiated.
		RejectBatches: true,
	})
	return sess
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

// Handle implements jsonrpc.Handler: the lifecycle, then the middleware
// chain and the generated dispatch.
func (s *Session) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		s.notification(ctx, req)
		return nil, nil
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
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is not initialized: send initialize first")
	}
	ctx = withRequest(ctx, &requestInfo{session: s, id: req.ID, progressToken: progressToken(req.Params)})
	r, err := s.chain(ctx, &Request{Session: s, ID: req.ID, Method: req.Method, Params: req.Params})
	if err != nil {
		return nil, err
	}
	return r.MarshalJSON()
}

// dispatch is the innermost handler: the generated dispatch into the
// session's ServerHandler methods.
func (s *Session) dispatch(ctx context.Context, req *Request) (mcp.Message, error) {
	return mcp.DispatchServerRequest(ctx, s, s.ProtocolVersion(), req.Method, req.Params)
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
	// Record the id before leaving stateNew: cancellations are ignored
	// until then, and for this id afterwards.
	s.mu.Lock()
	if s.initID.IsZero() {
		s.initID = req.ID
	}
	s.mu.Unlock()
	if !s.state.CompareAndSwap(stateNew, stateReady) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize was already received")
	}
	p := new(mcp.InitializeRequestParams)
	err := p.UnmarshalJSON(req.Params)
	if err == nil {
		err = p.ValidateVersion(latestLegacy())
	}
	if err != nil {
		s.state.Store(stateNew)
		return nil, jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	// Answer the client's version when it is one we speak in this era,
	// else the newest we do; initialize never negotiates a modern version.
	v := mcp.ProtocolVersion(p.ProtocolVersion)
	if !v.Supported() || v.Era() != mcp.EraLegacy {
		v = latestLegacy()
	}
	s.mu.Lock()
	s.version, s.client = v, p
	s.mu.Unlock()
	s.conn.SetRejectBatches(v != mcp.Version20250326)
	res := &mcp.InitializeResult{
		ProtocolVersion: string(v),
		Capabilities:    s.srv.capabilities(),
		ServerInfo:      s.srv.info,
		Instructions:    s.srv.opts.Instructions,
	}
	return res.MarshalJSON()
}

func (s *Session) notification(ctx context.Context, req *jsonrpc.Request) {
	switch req.Method {
	case mcp.MethodInitializedNotification:
		s.state.CompareAndSwap(stateReady, stateInitialized)
	case mcp.MethodCancelledNotification:
		if s.state.Load() == stateNew {
			return // only initialize can be running, and it is never cancelled
		}
		var p mcp.CancelledNotificationParams
		if err := p.UnmarshalJSON(req.Params); err != nil {
			s.srv.log.Debug("malformed cancellation", "error", err)
			return
		}
		s.mu.Lock()
		initID := s.initID
		s.mu.Unlock()
		if id, ok := toID(p.RequestID); ok && id != initID {
			s.conn.CancelIncoming(id)
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

func toID(r mcp.RequestId) (jsonrpc.ID, bool) {
	if n, ok := r.AsInteger(); ok {
		return jsonrpc.IntID(n), true
	}
	if str, ok := r.AsString(); ok {
		return jsonrpc.StringID(str), true
	}
	return jsonrpc.ID{}, false
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

// notify sends a notification once the client is initialized; before
// that only log messages go out.
func (s *Session) notify(ctx context.Context, method string, params []byte) {
	st := s.state.Load()
	if st == stateNew || (st == stateReady && method != mcp.MethodLoggingMessageNotification) {
		return
	}
	if err := s.conn.Notify(ctx, method, params); err != nil {
		s.srv.log.Debug("notification not sent", "method", method, "error", err)
	}
}

func (s *Session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[uri]
}

// progressToken returns the raw JSON of params._meta.progressToken, or nil.
// It is echoed exactly as received.
func progressToken(params []byte) []byte {
	if len(params) == 0 {
		return nil
	}
	var sc jsonrpc.Scanner
	sc.Reset(params)
	meta, ok := member(&sc, "_meta")
	if !ok {
		return nil
	}
	sc.Reset(meta)
	tok, ok := member(&sc, "progressToken")
	if !ok {
		return nil
	}
	return tok
}

// member returns the raw value of key in the object sc reads.
func member(sc *jsonrpc.Scanner, key string) ([]byte, bool) {
	if sc.ObjectStart() != nil {
		return nil, false
	}
	var found []byte
	for {
		k, more, err := sc.NextKey()
		if err != nil || !more {
			return found, found != nil
		}
		if string(k) == key {
			if found, err = sc.Raw(); err != nil {
				return nil, false
			}
			continue
		}
		if sc.Skip() != nil {
			return nil, false
		}
	}
}
