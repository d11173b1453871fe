package streamable

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/bus"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Server runs one MCP session over a transport until it closes;
// *server.Server is one.
type Server interface {
	Serve(ctx context.Context, t jsonrpc.Transport) error
}

// HandlerOptions configure a Handler. The zero HandlerOptions are ready
// to use.
type HandlerOptions struct {
	// JSONResponse answers POSTed requests with one application/json
	// body instead of an SSE stream. Notifications their handlers send
	// are then dropped, and requests to the client fail.
	JSONResponse bool

	// Stateless serves every POST on a fresh session that ends with it:
	// no Mcp-Session-Id, no GET stream (405), JSON replies. Requests are
	// served without the client sending initialize first, as if it had
	// initialized with the version of its MCP-Protocol-Version header
	// and no capabilities.
	Stateless bool

	// IdleTimeout ends a session when no HTTP request of it has been in
	// progress for that long. Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration

	// Sessions records the sessions; nil means a MemorySessionStore.
	Sessions SessionStore

	// Events keeps the events of SSE streams for resumption with
	// Last-Event-ID; nil means a MemoryEventStore with the default bounds.
	Events EventStore

	// Bus, when set, makes the Handler one of several replicas that share
	// Sessions, Events and Bus behind a load balancer: a legacy session
	// is served by whichever replica gets its request, without sticky
	// routing (see replica.go). Every replica's Server must share its
	// list changes and resource updates on a bus too, for the clients
	// whose GET stream another replica holds. Nil keeps every session
	// with the replica that started it.
	Bus bus.Bus

	// BusTopic is the topic of the messages the replicas exchange on Bus;
	// empty means DefaultBusTopic. Replicas of different servers sharing
	// one bus need topics of their own.
	BusTopic string

	// AllowedHosts lists the Host names (or host:port) served besides
	// localhost, 127.0.0.1 and [::1]: the names a reverse proxy forwards
	// under. "*" allows every host, turning DNS-rebinding protection off.
	// An Origin header, when present, must name an allowed host too, or
	// the request's own Host.
	AllowedHosts []string

	// Authenticate, when set, is called on every request; an error is
	// answered with 401 and its text. The identity it returns is what
	// IdentityFromContext gives the handlers of the request.
	Authenticate func(r *http.Request) (identity any, err error)

	// MaxBodyBytes bounds a POST body; larger ones get 413. Zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// RetryInterval is the reconnection delay sent to clients of
	// 2025-11-25 and later on each SSE stream. Zero means one second.
	RetryInterval time.Duration

	// KeepAlive is how long the SSE response of a 2026-07-28 request may
	// stay silent before it gets a comment line (subscriptions/listen
	// streams are often quiet for long). Zero means DefaultKeepAlive; a
	// negative value sends none.
	KeepAlive time.Duration

	// MaxStreamBuffer bounds, in bytes, the SSE events a session's
	// stream holds that its HTTP response has not written out yet: what
	// a client that reads slowly, or not at all, costs the server per
	// stream. A handler whose notification or request to the client
	// would pass it waits, until the client has read enough, its ctx
	// ends or the session does; responses are never held back. Zero
	// means DefaultMaxStreamBuffer. It does not apply to 2026-07-28
	// requests, whose events go straight to their HTTP response.
	MaxStreamBuffer int

	// MaxSessions caps the sessions the Handler runs at once. An
	// initialize over it is answered 503 with a JSON-RPC error naming
	// this option, and starts nothing; sessions already running carry
	// on. Zero means DefaultMaxSessions, a negative value no cap. The
	// short-lived sessions of Stateless mode, and 2026-07-28 requests,
	// are not counted.
	MaxSessions int

	// MaxSessionsPerIdentity caps the sessions of one identity that
	// Authenticate returned, identities being told apart with ==: an
	// initialize over it is answered 429 (this client, not the server,
	// has too many). Zero means DefaultMaxSessionsPerIdentity, a
	// negative value no cap. Sessions without an identity, or with one
	// == cannot compare, count toward MaxSessions only; an Authenticate
	// that returns a new pointer on every request makes each session an
	// identity of its own, so return a value (a user id) for this cap to
	// hold.
	MaxSessionsPerIdentity int

	// Logger receives what cannot be told to a client. Nil discards it.
	Logger *slog.Logger
}

// Defaults for HandlerOptions left zero.
const (
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultMaxBodyBytes    = 4 << 20
	DefaultMaxStreamBuffer = 1 << 20
)

// The HTTP headers of the transport.
const (
	headerSessionID   = "Mcp-Session-Id"
	headerVersion     = mcpheader.ProtocolVersion
	headerLastEventID = "Last-Event-Id"
)

// Handler is the http.Handler of an MCP endpoint. Its sessions run until
// the client DELETEs them, they sit idle for IdleTimeout, or Close.
// Under an http.Server's ReadTimeout and WriteTimeout it keeps its long
// responses whole, as ServeOptions describes.
type Handler struct {
	srv      Server
	opts     HandlerOptions
	log      *slog.Logger
	sessions SessionStore
	events   EventStore
	ctx      context.Context // the parent of every Serve ctx; ends on Close
	cancel   context.CancelCauseFunc
	calls    atomic.Int64 // 2026-07-28 calls being served

	wg       sync.WaitGroup // Serve goroutines, 2026-07-28 calls and the janitor
	mu       sync.Mutex
	draining bool        // Shutdown has begun: no new work is taken
	stopping atomic.Bool // draining, for session.open to read under its own lock
	closed   bool
	byID     map[string]*session
	quota    quota                 // the sessions of byID, against the caps
	live     map[*session]struct{} // every running session, stateless ones too
	// running holds the cancel of each 2026-07-28 call being served,
	// which stop calls with server.ErrShutdown, removing it.
	running     map[*callStream]context.CancelCauseFunc
	runningPeak int
	livePeak    int // the most sessions live and byID held, for deleteShrink
	byIDPeak    int
	stopJanitor chan struct{} // nil until the janitor runs

	origin  string        // names this replica's messages on the bus
	busStop func()        // ends the bus subscription; nil until one is made
	relays  chan struct{} // a slot per relayed message being fed
	// endings are the session ends this replica announced and waits to
	// hear confirmed, by the nonce of their relayEnd.
	endings map[string]*ending
}

// NewHandler returns a Handler serving srv's sessions. Nil opts are the
// zero HandlerOptions.
func NewHandler(srv Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, byID: make(map[string]*session), live: make(map[*session]struct{}), running: make(map[*callStream]context.CancelCauseFunc)}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.IdleTimeout <= 0 {
		h.opts.IdleTimeout = DefaultIdleTimeout
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if h.opts.RetryInterval <= 0 {
		h.opts.RetryInterval = time.Second
	}
	if h.opts.MaxStreamBuffer <= 0 {
		h.opts.MaxStreamBuffer = DefaultMaxStreamBuffer
	}
	h.quota = newQuota(h.opts.MaxSessions, h.opts.MaxSessionsPerIdentity)
	h.log = h.opts.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.sessions = h.opts.Sessions
	if h.sessions == nil {
		h.sessions = NewMemorySessionStore()
	}
	h.events = h.opts.Events
	if h.events == nil {
		h.events = NewMemoryEventStore(0, 0)
	}
	h.ctx, h.cancel = context.WithCancelCause(context.Background())
	if h.clustered() {
		h.origin = bus.NewOrigin()
		h.relays = make(chan struct{}, maxRelays)
	}
	return h
}

// start runs the engine over a new session, registered under its id
// unless it has none. It fails once the Handler is closed, and with a
// *capError for a session with an id over a cap.
func (h *Handler) start(s *session) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errClosedHandler
	}
	if s.id != "" {
		if err := h.quota.take(s.owner, "HandlerOptions"); err != nil {
			return err
		}
		h.byID[s.id] = s
		h.joinBus()
		if h.stopJanitor == nil {
			h.stopJanitor = make(chan struct{})
			h.wg.Add(1)
			go h.janitor(h.stopJanitor)
		}
	}
	h.run(s)
	return nil
}

// startAdopted is start for a session brought up from its record, unless
// this replica runs one of that id already, which it returns acquired.
func (h *Handler) startAdopted(s *session) (running *session, err error) {
	h.mu.Lock()
	running = h.byID[s.id]
	if running != nil {
		running.acquire()
	}
	h.mu.Unlock()
	if running != nil {
		return running, nil
	}
	return nil, h.start(s)
}

// run starts the engine's goroutine for a session. h.mu is held.
func (h *Handler) run(s *session) {
	h.live[s] = struct{}{}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(s.done)
		ctx := server.WithPrincipal(context.WithValue(h.ctx, sessionKey{}, s), s.owner)
		if err := h.srv.Serve(ctx, s); err != nil {
			h.log.Warn("streamable: session ended with an error", "session", s.id, "err", err)
		}
		h.end(s)
	}()
}

var errClosedHandler = errors.New("streamable: the handler is closed")

// end ends a session: its transport closes, so Serve returns, its streams
// end, and its records are dropped. It may be called more than once.
func (h *Handler) end(s *session) {
	h.mu.Lock()
	_, live := h.live[s]
	h.live = deleteShrink(h.live, s, &h.livePeak)
	if s.id != "" && h.byID[s.id] == s {
		h.byID = deleteShrink(h.byID, s.id, &h.byIDPeak)
		h.quota.give(s.owner)
	}
	h.mu.Unlock()
	s.Close()
	if !live || s.id == "" {
		return
	}
	if h.clustered() && !s.terminated.Load() {
		return // other replicas may serve it yet: its record stays
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.dropRecord(ctx, s.id)
}

// janitor ends idle sessions until stop is closed.
func (h *Handler) janitor(stop <-chan struct{}) {
	defer h.wg.Done()
	every := min(h.opts.IdleTimeout/2, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			h.expire(now)
		}
	}
}

func (h *Handler) expire(now time.Time) {
	cutoff := now.Add(-h.opts.IdleTimeout).UnixNano()
	var idle []*session
	h.mu.Lock()
	for _, s := range h.byID {
		if s.busy.Load() == 0 && s.lastActive.Load() < cutoff {
			idle = append(idle, s)
		}
	}
	h.mu.Unlock()
	for _, s := range idle {
		h.log.Debug("streamable: session expired", "session", s.id)
		h.end(s)
	}
}

// EndSessions ends the sessions running here whose owner, the identity
// that opened them (HandlerOptions.Authenticate), match reports true, as
// a DELETE of each would, and returns how many it ended: for an identity
// whose credentials were revoked, so that it keeps no stream open.
func (h *Handler) EndSessions(match func(owner any) bool) int {
	h.mu.Lock()
	ended := owned(h.byID, func(s *session) any { return s.owner }, match)
	h.mu.Unlock()
	for _, s := range ended {
		s.terminated.Store(true)
		h.end(s)
	}
	return len(ended)
}

// owned returns the sessions of byID that have an owner match reports
// true for.
func owned[S any](byID map[string]S, owner func(S) any, match func(any) bool) []S {
	var out []S
	for _, s := range byID {
		if o := owner(s); o != nil && match(o) {
			out = append(out, s)
		}
	}
	return out
}

// SessionCount returns how many sessions are running here, stateless ones
// included.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.live)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, r = withDeadlines(w, r)
	if msg := h.checkHost(r.Host, r.Header.Get("Origin")); msg != "" {
		httpError(w, http.StatusForbidden, msg)
		return
	}
	hv := r.Header.Get(headerVersion)
	allow := "GET, POST, DELETE"
	if h.opts.Stateless || modernHeader(hv) {
		allow = "POST" // 2026-07-28 has neither the GET stream nor sessions to DELETE
	}
	if r.Method != http.MethodPost && (allow == "POST" || (r.Method != http.MethodGet && r.Method != http.MethodDelete)) {
		w.Header().Set("Allow", allow)
		httpError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed; this endpoint takes "+allow)
		return
	}
	h.mu.Lock()
	closed, draining := h.closed, h.draining
	h.mu.Unlock()
	if closed || draining && r.Method == http.MethodGet && r.Header.Get(headerLastEventID) == "" {
		refuseShuttingDown(w)
		return
	}
	var identity any
	if h.opts.Authenticate != nil {
		var err error
		if identity, err = h.opts.Authenticate(r); err != nil {
			httpError(w, http.StatusUnauthorized, "unauthorized: "+err.Error())
			return
		}
	}
	if r.Method == http.MethodPost {
		h.post(w, r, identity, hv)
		return
	}
	version, ok := legacyVersion(w, hv)
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.get(w, r, identity, version)
	case http.MethodDelete:
		h.delete(w, r, identity)
	}
}

// legacyVersion returns the legacy version a request of a session speaks,
// from its MCP-Protocol-Version header hv, or answers 400 and returns
// false for a version the legacy transport does not serve.
func legacyVersion(w http.ResponseWriter, hv string) (mcp.ProtocolVersion, bool) {
	if hv == "" {
		return mcp.Version20250326, true // what a request without the header speaks
	}
	v := mcp.ProtocolVersion(hv)
	if !v.Supported() || v.Era() != mcp.EraLegacy {
		httpError(w, http.StatusBadRequest, "unsupported "+headerVersion+" "+quote(hv)+"; supported: "+strings.Join(legacyVersions(), ", ")+", and 2026-07-28 with the protocol version in each request's _meta")
		return "", false
	}
	return v, true
}

// legacyVersions lists the legacy versions a Handler serves, newest first,
// for messages and for the supported list of -32022 data.
func legacyVersions() []string {
	vs := mcp.EraLegacy.Versions()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// session returns the live session named by the request's Mcp-Session-Id,
// acquired for the request, or answers 400 or 404 and returns nil.
// session finds the session a request names. A session started by an
// authenticated client answers only that identity: another one is told
// the session does not exist, so ids cannot be probed or taken over.
func (h *Handler) session(w http.ResponseWriter, r *http.Request, identity any) *session {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing "+headerSessionID+" header: send initialize first to start a session")
		return nil
	}
	h.mu.Lock()
	s := h.byID[id]
	if s != nil {
		s.acquire()
	}
	h.mu.Unlock()
	if s == nil && h.clustered() {
		if r.Method == http.MethodDelete {
			h.forget(w, r, id, identity)
			return nil
		}
		return h.adopt(w, r, id, identity)
	}
	if s == nil || !reflect.DeepEqual(s.owner, identity) {
		if s != nil {
			s.release()
		}
		httpError(w, http.StatusNotFound, "unknown or terminated session: send initialize to start a new one")
		return nil
	}
	if err := s.waitReady(r.Context()); err != nil {
		s.release()
		httpError(w, http.StatusServiceUnavailable, "cannot bring the session up on this replica: "+err.Error())
		return nil
	}
	if h.clustered() {
		h.keepRecord(s)
	}
	return s
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, identity any) {
	s := h.session(w, r, identity)
	if s == nil {
		return
	}
	s.release()
	s.terminated.Store(true)
	h.end(s)
	w.WriteHeader(http.StatusNoContent)
}

// newSessionID returns 130 random bits as 26 base32 characters.
func newSessionID() string { return rand.Text() }

// accepts reports whether an Accept header lists the media type, itself
// or through a wildcard.
func accepts(header []string, mediaType string) bool {
	major, _, _ := strings.Cut(mediaType, "/")
	for _, line := range header {
		for part := range strings.SplitSeq(line, ",") {
			t, _, _ := strings.Cut(part, ";")
			t = strings.ToLower(strings.TrimSpace(t))
			if t == mediaType || t == "*/*" || t == major+"/*" {
				return true
			}
		}
	}
	return false
}

// isJSON reports whether a Content-Type header is absent or JSON.
func isJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "application/json"
}

// httpError answers with status and a JSON-RPC error without an id.
func httpError(w http.ResponseWriter, status int, msg string) {
	code := int64(jsonrpc.CodeInvalidRequest)
	if status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	writeJSON(w, status, jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(code, msg)))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	// A length given up front spares a body over net/http's 2 KiB
	// chunking threshold the chunked framing, and lets the client size
	// its buffer once.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
