package streamable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// LegacyOptions configure a LegacyHandler. The zero LegacyOptions are
// ready to use.
type LegacyOptions struct {
	// Endpoint is where clients POST their messages, as the endpoint
	// event names it with the session id added: a path, absolute or
	// relative to the path of the GET that opened the stream. "" means
	// the GET's own path, so that one handler on one path serves the
	// whole transport.
	Endpoint string

	// AllowedHosts lists the Host names (or host:port) served besides
	// localhost, 127.0.0.1 and [::1], as HandlerOptions.AllowedHosts
	// does. "*" turns DNS-rebinding protection off.
	AllowedHosts []string

	// Authenticate, when set, is called on every request; an error is
	// answered with 401 and its text. The identity it returns for the
	// GET owns the session: a POST into it from another identity is
	// answered as one naming an unknown session, and the session's
	// handlers get the owner from IdentityFromContext (and
	// server.PrincipalFrom).
	Authenticate func(r *http.Request) (identity any, err error)

	// MaxBodyBytes bounds a POST body; larger ones get 413. Zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// MaxSessions caps the sessions (open streams) the LegacyHandler
	// runs at once; a GET over it is answered 503, as
	// HandlerOptions.MaxSessions says. Zero means DefaultMaxSessions, a
	// negative value no cap.
	MaxSessions int

	// MaxSessionsPerIdentity caps the sessions of one identity that
	// Authenticate returned; a GET over it is answered 429, as
	// HandlerOptions.MaxSessionsPerIdentity says. Zero means
	// DefaultMaxSessionsPerIdentity, a negative value no cap.
	MaxSessionsPerIdentity int

	// Logger receives what cannot be told to a client. Nil discards it.
	Logger *slog.Logger
}

// LegacySessionParam is the query parameter of the endpoint URL that
// names the session a POST belongs to.
const LegacySessionParam = "sessionId"

// LegacyHandler is the http.Handler of the HTTP+SSE transport of
// protocol version 2024-11-05, for clients that predate Streamable HTTP.
// A GET opens an SSE stream and with it a session: the first event,
// "endpoint", names the URL to POST messages to, and every message of
// the server follows as a "message" event. A POST carries one message
// (or batch) of the session its query names and is answered 202. The
// session ends when its stream closes.
//
// A LegacyHandler serves GET and POST on whatever paths it is mounted
// at; LegacyOptions.Endpoint tells clients which one takes the POSTs.
type LegacyHandler struct {
	srv      Server
	opts     LegacyOptions
	endpoint *url.URL
	log      *slog.Logger
	hosts    *Handler // holds AllowedHosts only, for its checkHost
	optsName string   // the options type the 403 message names
	ctx      context.Context
	cancel   context.CancelCauseFunc

	wg     sync.WaitGroup // Serve goroutines
	mu     sync.Mutex
	closed bool
	byID   map[string]*legacySession
	quota  quota // the sessions of byID, against the caps
	peak   int   // the most sessions byID held, for deleteShrink

	draining bool // Shutdown has begun: no new streams or requests; guarded by mu
}

// NewLegacyHandler returns a LegacyHandler serving srv's sessions. Nil
// opts are the zero LegacyOptions. It panics when opts.Endpoint is not a
// URL reference, a mistake of the program.
func NewLegacyHandler(srv Server, opts *LegacyOptions) *LegacyHandler {
	h := &LegacyHandler{srv: srv, byID: make(map[string]*legacySession), optsName: "LegacyOptions"}
	if opts != nil {
		h.opts = *opts
	}
	ep, err := url.Parse(h.opts.Endpoint)
	if err != nil {
		panic("streamable: LegacyOptions.Endpoint: " + err.Error())
	}
	h.endpoint = ep
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	h.log = h.opts.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.hosts = &Handler{opts: HandlerOptions{AllowedHosts: h.opts.AllowedHosts}}
	h.quota = newQuota(h.opts.MaxSessions, h.opts.MaxSessionsPerIdentity)
	h.ctx, h.cancel = context.WithCancelCause(context.Background())
	return h
}

// legacySession is one session of a LegacyHandler, and the
// jsonrpc.Transport its Serve runs over: Read returns what POSTs carry,
// Write hands frames to the GET that writes the stream out.
type legacySession struct {
	id     string
	owner  any           // the identity that opened the stream, if any
	in     chan []byte   // frames of POST bodies
	out    chan []byte   // frames for the SSE stream
	closed chan struct{} // closed when the session ends
	once   sync.Once

	mu      sync.Mutex
	pending map[jsonrpc.ID]*http.Request // the client's requests not yet answered, and the POSTs that carried them
	last    [][]byte                     // frames for the stream to write once closed
}

var _ jsonrpc.ConcurrentWriter = (*legacySession)(nil)

// legacySessionKey is the ctx key of the *legacySession that a Serve ctx,
// and every handler ctx derived from it, belongs to.
type legacySessionKey struct{}

// Read implements jsonrpc.Transport.
func (s *legacySession) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-s.in:
		return f, nil
	case <-s.closed:
		return nil, errSessionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements jsonrpc.Transport. It returns once the stream has
// taken the frame.
func (s *legacySession) Write(ctx context.Context, frame []byte) error {
	select {
	case s.out <- frame:
		s.answered(frame)
		return nil
	case <-s.closed:
		return errSessionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WritesConcurrently implements jsonrpc.ConcurrentWriter: each Write
// hands its frame whole to the stream, and waits for it with its own ctx.
// The stream writes straight to the HTTP response, so a client that does
// not read holds its writers back and nothing piles up.
func (s *legacySession) WritesConcurrently() {}

// Close implements jsonrpc.Transport; it ends the stream too.
func (s *legacySession) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// SessionCount returns how many sessions are running here.
func (h *LegacyHandler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byID)
}

// EndSessions ends the sessions whose owner, the identity that opened
// them (LegacyOptions.Authenticate), match reports true, and returns how
// many it ended: for an identity whose credentials were revoked.
func (h *LegacyHandler) EndSessions(match func(owner any) bool) int {
	h.mu.Lock()
	ended := owned(h.byID, func(s *legacySession) any { return s.owner }, match)
	h.mu.Unlock()
	for _, s := range ended {
		h.end(s)
	}
	return len(ended)
}

// end forgets a session and closes it. It may be called more than once.
func (h *LegacyHandler) end(s *legacySession) {
	h.mu.Lock()
	if h.byID[s.id] == s {
		h.byID = deleteShrink(h.byID, s.id, &h.peak)
		h.quota.give(s.owner)
	}
	h.mu.Unlock()
	s.Close()
}

// ServeHTTP implements http.Handler.
func (h *LegacyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, r = withDeadlines(w, r)
	if msg := h.hosts.checkHost(r.Host, r.Header.Get("Origin")); msg != "" {
		httpError(w, http.StatusForbidden, strings.Replace(msg, "HandlerOptions", h.optsName, 1))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		httpError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed; GET opens a stream, POST sends a message")
		return
	}
	h.mu.Lock()
	closed, draining := h.closed, h.draining
	h.mu.Unlock()
	if closed || draining && r.Method == http.MethodGet {
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
	if r.Method == http.MethodGet {
		h.stream(w, r, identity)
	} else {
		h.message(w, r, identity)
	}
}

// stream serves a GET: it starts a session of identity and writes its
// stream out until the client goes away or the session ends, then ends
// the session.
func (h *LegacyHandler) stream(w http.ResponseWriter, r *http.Request, identity any) {
	s := &legacySession{
		id:     newSessionID(),
		owner:  identity,
		in:     make(chan []byte),
		out:    make(chan []byte),
		closed: make(chan struct{}),
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	if err := h.quota.take(identity, h.optsName); err != nil {
		h.mu.Unlock()
		h.log.Debug("streamable: legacy session refused", "err", err)
		err.write(w, jsonrpc.ID{})
		return
	}
	h.byID[s.id] = s
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		ctx := server.WithPrincipal(context.WithValue(h.ctx, legacySessionKey{}, s), s.owner)
		if err := h.srv.Serve(ctx, s); err != nil {
			h.log.Warn("streamable: legacy session ended with an error", "session", s.id, "err", err)
		}
		h.end(s)
	}()
	defer h.end(s)

	rc := http.NewResponseController(w)
	startSSE(w)
	ev := append([]byte("event: endpoint\ndata: "), h.endpointFor(r, s.id)...)
	if _, err := w.Write(append(ev, "\n\n"...)); err != nil || rc.Flush() != nil {
		return
	}
	var buf []byte
	for {
		select {
		case f := <-s.out:
			buf = appendEvent(buf[:0], "", f)
			if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
				return
			}
		case <-s.closed:
			for _, f := range s.takeLast() {
				buf = appendEvent(buf[:0], "", f)
				if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
					return
				}
			}
			return
		case <-r.Context().Done():
			return
		}
	}
}

// endpointFor returns the URL the endpoint event names: Endpoint resolved
// against the path the client asked for, with the session id. The path
// is taken from RequestURI so that a handler mounted under
// http.StripPrefix names the path the client knows.
func (h *LegacyHandler) endpointFor(r *http.Request, id string) string {
	base := &url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath}
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
		base = &url.URL{Path: u.Path, RawPath: u.RawPath}
	}
	ep := base.ResolveReference(h.endpoint)
	q := ep.Query()
	q.Set(LegacySessionParam, id)
	ep.RawQuery = q.Encode()
	return ep.String()
}

// message serves a POST of identity: it hands its message to the
// session's engine. A session answers only the identity that opened it;
// to another it does not exist, so its id can be neither confirmed nor
// used.
func (h *LegacyHandler) message(w http.ResponseWriter, r *http.Request, identity any) {
	id := r.URL.Query().Get(LegacySessionParam)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing the "+LegacySessionParam+" query parameter: GET the SSE endpoint first, and POST to the URL of its endpoint event")
		return
	}
	h.mu.Lock()
	s := h.byID[id]
	h.mu.Unlock()
	if s == nil || !reflect.DeepEqual(s.owner, identity) {
		httpError(w, http.StatusNotFound, "unknown or ended session: open a new SSE stream")
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		httpError(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			httpError(w, http.StatusRequestEntityTooLarge, "the request body is larger than "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes, the limit set by streamable."+h.optsName+".MaxBodyBytes")
			return
		}
		httpError(w, http.StatusBadRequest, "cannot read the request body: "+err.Error())
		return
	}
	msgs, _, err := jsonrpc.DecodeBatch(data)
	if err != nil {
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
			writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, e))
			return
		}
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !h.expect(s, msgs, r) {
		refuseShuttingDown(w)
		return
	}
	select {
	case s.in <- data:
		w.WriteHeader(http.StatusAccepted)
		return
	case <-s.closed:
		httpError(w, http.StatusNotFound, "the session has ended: open a new SSE stream")
	case <-r.Context().Done():
	}
	s.forget(msgs)
}
