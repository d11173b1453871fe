package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The stateless era (2026-07-28) on this endpoint.
//
// A POST whose MCP-Protocol-Version header names a 2026-07-28-era version,
// or whose body's _meta carries that era's per-request fields, is one
// request served on its own: no session is looked up or created, and the
// engine's ServeCall runs on the HTTP request's own goroutine. Its answer
// is one application/json body unless it causes notifications first
// (progress, log messages, a subscription's changes), in which case the
// response becomes an SSE stream carrying them and then the response.
// Closing the stream cancels the request. Everything else on the endpoint
// is the legacy transport, as before.

// CallServer is a Server that also serves requests of the stateless era;
// *server.Server is one. A Handler over a Server that is not answers them
// with the unsupported-version error.
type CallServer interface {
	Server
	ServeCall(ctx context.Context, c *server.Call) ([]byte, error)
}

// DefaultKeepAlive is how often an SSE response of a 2026-07-28 request
// that has sent nothing for that long gets a comment line, so that proxies
// and clients do not take a quiet subscriptions/listen stream for a dead
// one; HandlerOptions.KeepAlive changes it.
const DefaultKeepAlive = 25 * time.Second

// modernHeader reports whether an MCP-Protocol-Version header names a
// version of the stateless era that this package knows.
func modernHeader(v string) bool {
	pv := mcp.ProtocolVersion(v)
	return v != "" && pv.Supported() && pv.Era() == mcp.EraModern
}

// callInfo is what HTTPRequestFromContext and IdentityFromContext give the
// handlers of a 2026-07-28 request.
type callInfo struct {
	req      *http.Request
	identity any
}

type callKey struct{}

// postCall serves one POST of the stateless era.
func (h *Handler) postCall(w http.ResponseWriter, r *http.Request, b *body, identity any) {
	cs, ok := h.srv.(CallServer)
	if !ok {
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, firstID(b), legacyOnly(b, r.Header.Get(headerVersion))))
		return
	}
	if b.batch {
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "a 2026-07-28 POST carries one JSON-RPC message, not a batch")))
		return
	}
	m := &b.msgs[0]
	switch m.Kind() {
	case jsonrpc.MessageNotification:
		// Cancellation on HTTP is closing the request's stream: there is
		// nothing a notification could still do.
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.MessageResponse:
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "a 2026-07-28 client sends no responses: the server asks for input in its results instead")))
		return
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	out := &callStream{w: w, rc: http.NewResponseController(w), keepAlive: h.opts.KeepAlive, log: h.log}
	// Close waits for the calls in progress as it does for sessions; none
	// starts once it has begun. Checked under h.mu with the count taken,
	// so that Shutdown's wait sees every call that was not refused; the
	// cancel noted, for Close to end the call with server.ErrShutdown.
	h.mu.Lock()
	if h.closed || h.draining {
		h.mu.Unlock()
		refuseShuttingDown(w)
		return
	}
	h.wg.Add(1)
	h.calls.Add(1)
	h.running[out] = cancel
	h.mu.Unlock()
	defer h.wg.Done()
	defer h.calls.Add(-1)
	ctx = server.WithPrincipal(context.WithValue(ctx, callKey{}, &callInfo{req: r, identity: identity}), identity)

	var notifier server.Notifier = out
	if h.opts.JSONResponse && m.Method != mcp.MethodSubscriptionsListen {
		notifier = nil // the reply is one JSON body: notifications have nowhere to go
	}
	result, err := serveCall(ctx, cs, &server.Call{ID: m.ID, Method: m.Method, Params: m.Params, Header: r.Header, Out: notifier}, h.log)
	h.mu.Lock()
	_, served := h.running[out] // stop removes the calls it ends
	h.running = deleteShrink(h.running, out, &h.runningPeak)
	h.mu.Unlock()
	if !served && m.Method != mcp.MethodSubscriptionsListen {
		// The shutdown ended the call; whatever its handler made of
		// that, the client is told the truth. A subscription's graceful
		// completion is the answer its spec gives for a shutdown.
		result, err = nil, errShuttingDown
	}
	out.finish(m.ID, result, err)
}

// serveCall runs ServeCall, turning a panic that escapes it (a
// CallServer that is not the engine, which recovers its own) into an
// internal error: the answer and the keep-alive's end must not be skipped.
func serveCall(ctx context.Context, cs CallServer, c *server.Call, log *slog.Logger) (result []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("streamable: ServeCall panicked", "method", c.Method, "panic", v, "stack", string(debug.Stack()))
			result, err = nil, jsonrpc.ErrInternal("internal error: serving "+c.Method+" panicked")
		}
	}()
	return cs.ServeCall(ctx, c)
}

// legacyOnly is the -32022 answer of a Handler whose Server serves only
// the legacy era, to a request of the stateless one.
func legacyOnly(b *body, header string) *jsonrpc.Error {
	d := mcp.UnsupportedProtocolVersionErrorErrorData{Supported: legacyVersions(), Requested: header}
	e := jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "this server speaks only "+strings.Join(d.Supported, ", ")+", with sessions that begin with initialize")
	if len(b.msgs) == 1 {
		if v, ok := metaVersion(b.msgs[0].Params); ok {
			d.Requested = v
		}
	}
	e.Data, _ = d.MarshalJSON() // strings only: it cannot fail
	return e
}

// firstID is the id of a body's first request, zero when it has none.
func firstID(b *body) jsonrpc.ID {
	for i := range b.msgs {
		if b.msgs[i].Kind() == jsonrpc.MessageRequest {
			return b.msgs[i].ID
		}
	}
	return jsonrpc.ID{}
}

// callStatus is the HTTP status of a 2026-07-28 error response: the spec
// has a 404 for methods the server lacks and a 400 for requests it
// refuses as malformed, mismatched or unsupported; a rate limit's refusal
// is a 429.
func callStatus(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case server.CodeRateLimited:
		return http.StatusTooManyRequests // with Retry-After: see ratelimit.go
	}
	return http.StatusOK
}

// errStreamDone is the error of a notification sent after its request was
// answered.
var errStreamDone = errors.New("streamable: the request has been answered")

// callStream is the response of one 2026-07-28 request, and the Notifier
// its handlers send through. It stays an undecided response until the
// first notification, which makes it an SSE stream; the answer then goes
// last on the stream, or alone as JSON. Writes are serialized: a handler
// may notify from several goroutines.
type callStream struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	log       *slog.Logger

	mu   sync.Mutex
	sse  bool  // the SSE stream has started
	done bool  // the answer is written, or being written: no more notifications
	err  error // the first failed write: the client has gone
	stop chan struct{}
	idle chan struct{} // closed when the keep-alive goroutine has returned
	last time.Time     // when the stream last carried anything
}

// Notify implements server.Notifier.
func (cs *callStream) Notify(ctx context.Context, method string, params []byte) error {
	frame := jsonrpc.AppendNotification(nil, method, params)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.done {
		return errStreamDone
	}
	if cs.err != nil {
		return cs.err
	}
	if !cs.sse {
		cs.startLocked()
	}
	return cs.writeLocked(appendEvent(nil, "", frame))
}

// startLocked turns the response into an SSE stream. cs.mu is held.
func (cs *callStream) startLocked() {
	cs.sse = true
	cs.w.Header().Set("X-Accel-Buffering", "no") // proxies must not hold events back
	startSSE(cs.w)
	cs.last = time.Now()
	every := cs.keepAlive
	if every == 0 {
		every = DefaultKeepAlive
	}
	if every < 0 {
		return
	}
	cs.stop, cs.idle = make(chan struct{}), make(chan struct{})
	go cs.keepAliveLoop(every)
}

// writeLocked writes and flushes. cs.mu is held.
func (cs *callStream) writeLocked(b []byte) error {
	if _, err := cs.w.Write(b); err != nil {
		cs.err = err
		return err
	}
	if err := cs.rc.Flush(); err != nil {
		cs.err = err
		return err
	}
	cs.last = time.Now()
	return nil
}

// keepAliveLoop writes a comment line whenever the stream has been quiet
// for every, until finish stops it. It wakes when the quiet would reach
// every, counted from the last write, so no silence is longer.
func (cs *callStream) keepAliveLoop(every time.Duration) {
	defer close(cs.idle)
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-cs.stop:
			return
		case now := <-t.C:
			cs.mu.Lock()
			if cs.done || cs.err != nil {
				cs.mu.Unlock()
				return // the answer is being written, or nothing more can be
			}
			wait := every - now.Sub(cs.last)
			if wait <= 0 {
				cs.writeLocked([]byte(":\n\n"))
				wait = every
			}
			cs.mu.Unlock()
			t.Reset(max(wait, time.Millisecond))
		}
	}
}

// finish writes the answer: last on the SSE stream when one started, else
// as one JSON body with the status its error calls for.
func (cs *callStream) finish(id jsonrpc.ID, result []byte, err error) {
	cs.mu.Lock()
	cs.done = true
	stop, idle := cs.stop, cs.idle
	cs.mu.Unlock()
	if stop != nil {
		close(stop)
		<-idle // nothing writes to w once ServeHTTP has returned
	}
	var frame []byte
	status := http.StatusOK
	if err != nil {
		e := jsonrpc.AsError(err)
		status = callStatus(e.Code)
		frame = jsonrpc.AppendError(nil, id, e)
	} else {
		frame = jsonrpc.AppendResult(make([]byte, 0, len(result)+48), id, result)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !cs.sse {
		setRetryAfter(cs.w.Header(), err)
		writeJSON(cs.w, status, frame)
		return
	}
	if cs.err != nil {
		cs.log.Debug("streamable: response dropped: the client closed the stream", "id", id)
		return
	}
	// Not flushed: the response ends next, and net/http sends the event
	// with the end of the body in one write.
	_, _ = cs.w.Write(appendEvent(nil, "", frame))
}

// metaVersion reads the protocol version a request's _meta names.
func metaVersion(params []byte) (string, bool) {
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta.Version == "" {
		return "", false
	}
	return p.Meta.Version, true
}
