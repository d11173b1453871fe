package client

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Session is one connection to a server, after a successful handshake.
// The embedded mcp.Client sends typed requests (sess.CallTool,
// sess.ListTools, sess.AllTools, ...); its methods may be called from any
// goroutine.
type Session struct {
	mcp.Client

	client *Client
	conn   *jsonrpc.Conn
	ctx    context.Context // ends when the Session is closed; bounds its own writes
	cancel context.CancelFunc

	transport jsonrpc.Transport

	init       *mcp.InitializeResult // a legacy Session's handshake; set by Connect before the Session is handed out
	discovered *mcp.DiscoverResult   // a modern Session's server/discover result, likewise
	modern     bool                  // the Session speaks the 2026-07-28 era, per request
	version    atomic.Value          // mcp.ProtocolVersion in use
	ready      atomic.Bool           // the handshake is done, or not needed: cancellations may be sent

	tools toolBook // what tools/list said of each tool
	// learned says the Session has listed the tools to learn their task
	// support (learnTools), which it does once.
	learned atomic.Bool
	cache   listCache // list results kept for their ttlMs, with Options.CacheLists
	subs    subscriptions

	nextToken atomic.Int64
	watchMu   sync.Mutex
	watches   map[mcp.ProgressToken]*watch // requests whose timeout progress extends

	notes *queue // the server's notifications, for the callbacks

	runDone chan struct{} // closed when Run has returned
	runErr  error         // what Run returned; read after runDone
}

// newSession starts a Conn over t for c. Only the handshake is left to do.
func newSession(c *Client, t jsonrpc.Transport) *Session {
	s := &Session{
		client:    c,
		transport: t,
		watches:   make(map[mcp.ProgressToken]*watch),
		notes:     newQueue(c.log),
		runDone:   make(chan struct{}),
	}
	s.cache.on = c.opts.CacheLists
	s.version.Store(mcp.ProtocolVersion(""))
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.conn = jsonrpc.NewConn(t, incoming{s}, jsonrpc.Options{
		Logger:   c.log,
		OnCancel: s.sendCancel,
	})
	s.Client.Caller = caller{s}
	go s.notes.run()
	go func() {
		s.runErr = s.conn.Run(s.ctx)
		s.notes.close()
		close(s.runDone)
	}()
	return s
}

// InitializeResult returns the server's answer to initialize, or nil for
// a Session of the 2026-07-28 era, which has no handshake (see
// DiscoverResult).
func (s *Session) InitializeResult() *mcp.InitializeResult { return s.init }

// ProtocolVersion returns the protocol version the server chose.
func (s *Session) ProtocolVersion() mcp.ProtocolVersion {
	return s.version.Load().(mcp.ProtocolVersion)
}

// ServerCapabilities returns the capabilities the server declared, in
// initialize or in server/discover.
func (s *Session) ServerCapabilities() *mcp.ServerCapabilities {
	if s.discovered != nil {
		return &s.discovered.Capabilities
	}
	return &s.init.Capabilities
}

// NotifyRootsListChanged tells the server of a legacy Session that the
// list of roots has changed, so that it asks for it again. 2026-07-28 has
// no such notification: its server asks for the roots when it needs them.
func (s *Session) NotifyRootsListChanged(ctx context.Context) error {
	if s.modern {
		return errNotLegacy
	}
	return s.conn.Notify(ctx, mcp.MethodRootsListChangedNotification, nil)
}

// Flush waits until the callbacks of every notification the Session has
// received so far (OnProgress, OnLog, ...) have run, or ctx ends. The
// callbacks run on a goroutine of their own, so a request can return
// before the callbacks of the notifications its server sent ahead of its
// result have run: a proxy that hands those notifications on calls Flush
// once the request returns, to send them ahead of the result too.
func (s *Session) Flush(ctx context.Context) error {
	return s.notes.flush(ctx)
}

// Close ends the Session: it closes the connection and its transport,
// fails the requests still waiting, stops the handlers still running and
// waits for every goroutine of the Session to finish. It returns the
// error of closing the transport; later calls return nil.
func (s *Session) Close() error {
	err := s.conn.Close()
	s.Wait()
	return err
}

// Wait waits until the Session has ended, because the server went away or
// Close was called, and its goroutines have finished. It returns nil, or
// the error that broke the connection.
func (s *Session) Wait() error {
	<-s.runDone
	s.conn.Wait()
	<-s.notes.done
	s.cancel()
	return s.runErr
}

// sendCancel tells the server that the client no longer waits for the
// response to request id. The initialize request is never cancelled this
// way, as the protocol requires.
func (s *Session) sendCancel(id jsonrpc.ID) {
	if !s.ready.Load() {
		return
	}
	p := &mcp.CancelledNotificationParams{Reason: "the client cancelled the request"}
	if n, ok := id.Int(); ok {
		p.RequestID = mcp.RequestIdFromInteger(n)
	} else if str, ok := id.Str(); ok {
		p.RequestID = mcp.RequestIdFromString(str)
	} else {
		return
	}
	params, err := json.Marshal(p)
	if err == nil {
		err = s.conn.Notify(s.ctx, mcp.MethodCancelledNotification, params)
	}
	if err != nil && s.ctx.Err() == nil {
		s.client.log.Warn("client: cannot send notifications/cancelled", "id", id, "err", err)
	}
}
