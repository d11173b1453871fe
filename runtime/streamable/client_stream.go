package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// maxIdleResumes bounds the reconnections in a row that bring no message
// before the transport gives up on a POST's stream.
const maxIdleResumes = 5

// maxBackoff bounds the wait between failed attempts to open the GET
// stream.
const maxBackoff = 30 * time.Second

// streamState is what a client keeps of an SSE stream to resume it.
type streamState struct {
	lastID string        // the last event id the server sent
	retry  time.Duration // the reconnection delay it asked for
}

// consume reads SSE events from body, handing their messages to Read,
// until the stream ends or, when x is not nil, every request of x has
// its response. It returns how many messages it delivered and how many
// it dropped for their size, and closes body.
func (t *ClientTransport) consume(body io.ReadCloser, st *streamState, x *exchange) (delivered, dropped int) {
	defer body.Close()
	sc := newEventScanner(body, t.max)
	for x == nil || t.left(x) > 0 {
		ev, err := sc.next()
		if err != nil {
			return delivered, dropped // the end, clean or not: either way the stream may resume
		}
		if ev.hasID {
			st.lastID = ev.id
		}
		if ev.hasRetry {
			st.retry = ev.retry
		}
		if ev.tooLarge {
			dropped++
			t.push(incomingFrame{err: fmt.Errorf("streamable: dropped an SSE event larger than %d bytes, the limit set by ClientOptions.MaxMessageSize: %w", t.max, jsonrpc.ErrMessageTooLarge)})
			continue
		}
		if len(ev.data) == 0 || (ev.kind != "" && ev.kind != "message") {
			continue // a priming event, or an event MCP does not define
		}
		t.deliver(ev.data, nil)
		delivered++
	}
	return delivered, dropped
}

// follow reads the SSE reply to the requests of x and, when it ends
// before their responses, resumes it with GET and Last-Event-ID after the
// server's retry interval, as often as the server keeps sending.
func (t *ClientTransport) follow(x *exchange, resp *http.Response) {
	st := streamState{retry: defaultRetry}
	idle := 0
	for {
		delivered, dropped := t.consume(resp.Body, &st, x)
		if x.call != nil {
			// 2026-07-28 streams do not resume: the request is lost.
			if t.left(x) > 0 && x.call.ctx.Err() == nil {
				t.fail(x, jsonrpc.CodeInternalError, "streamable: the server ended the response stream before the response; the request is lost and may be sent again", nil)
			}
			return
		}
		if delivered > 0 {
			idle = 0
		} else {
			idle++
		}
		if t.left(x) == 0 || t.ctx.Err() != nil {
			return
		}
		if dropped > 0 {
			// The response was most likely the message dropped.
			t.fail(x, jsonrpc.CodeInternalError, fmt.Sprintf("streamable: the SSE stream ended without the response after a message larger than %d bytes, the limit set by ClientOptions.MaxMessageSize, was dropped", t.max), nil)
			return
		}
		if st.lastID == "" {
			t.fail(x, jsonrpc.CodeInternalError, "streamable: the server ended the SSE stream before the response, with no event id to resume it from", nil)
			return
		}
		for {
			if idle >= maxIdleResumes {
				t.fail(x, jsonrpc.CodeInternalError, fmt.Sprintf("streamable: gave up resuming the SSE stream after event %q: %d reconnections brought nothing", st.lastID, idle), nil)
				return
			}
			if !sleep(t.ctx, st.retry) {
				return
			}
			var err error
			resp, err = t.get(t.ctx, st.lastID)
			if err == nil {
				break
			}
			if t.ctx.Err() != nil {
				return
			}
			idle++
			t.log.Debug("streamable: cannot resume an SSE stream", "lastEventID", st.lastID, "err", err)
		}
		if resp.StatusCode/100 != 2 || !isEventStream(resp) {
			e := t.statusError(http.MethodGet, resp)
			resp.Body.Close()
			msg := "streamable: cannot resume the SSE stream after event " + quote(st.lastID) + ": "
			if e.StatusCode/100 == 2 {
				msg += "the server answered GET with Content-Type " + quote(resp.Header.Get("Content-Type"))
			} else {
				msg += e.Error()
			}
			t.fail(x, jsonrpc.CodeInternalError, msg, nil)
			return
		}
	}
}

// get opens an SSE stream of the session: the standalone one when
// lastEventID is "", else the one that event belongs to.
func (t *ClientTransport) get(ctx context.Context, lastEventID string) (*http.Response, error) {
	sid, version, _ := t.state()
	req, err := t.request(ctx, http.MethodGet, nil, sid, version, lastEventID)
	if err != nil {
		return nil, err
	}
	resp, err := t.do(req)
	if err != nil {
		return nil, fmt.Errorf("streamable: GET %s: %w", t.shown, err)
	}
	return resp, nil
}

func isEventStream(resp *http.Response) bool {
	t, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return t == "text/event-stream"
}

// listen opens the session's GET stream on a goroutine, if it is not
// open, and waits (for a moment at most) until the server has answered
// the GET, so that what the client sends next finds the stream in place.
func (t *ClientTransport) listen(ctx context.Context) {
	t.mu.Lock()
	if t.listening || t.closed {
		t.mu.Unlock()
		return
	}
	t.listening = true
	gen := t.gen
	var lctx context.Context
	lctx, t.endListen = context.WithCancel(t.ctx)
	t.mu.Unlock()
	ready := make(chan struct{})
	if !t.spawn(func() { t.standalone(lctx, gen, ready) }) {
		return
	}
	timer := time.NewTimer(2 * time.Second)
	defer timer.Stop()
	select {
	case <-ready:
	case <-ctx.Done():
	case <-timer.C:
	case <-t.ctx.Done():
	}
}

// standalone keeps the GET stream of session generation gen open,
// reconnecting with Last-Event-ID after the server's retry interval when
// it ends, until the server refuses it, the session changes or the
// transport closes. ready is closed once the first GET is answered.
func (t *ClientTransport) standalone(ctx context.Context, gen uint64, ready chan struct{}) {
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	defer signal()
	defer func() {
		t.mu.Lock()
		if t.gen == gen {
			t.listening = false
		}
		t.mu.Unlock()
	}()
	st := streamState{retry: defaultRetry}
	failures := 0
	for {
		if _, _, g := t.state(); g != gen {
			return
		}
		resp, err := t.get(ctx, st.lastID)
		signal()
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			t.log.Debug("streamable: cannot open the GET stream", "err", err)
		case resp.StatusCode == http.StatusConflict:
			// The server has not yet noticed that the last connection
			// went: try again.
			resp.Body.Close()
		case resp.StatusCode/100 != 2:
			e := t.statusError(http.MethodGet, resp)
			resp.Body.Close()
			if resp.StatusCode == http.StatusMethodNotAllowed {
				t.log.Debug("streamable: the server offers no GET stream")
			} else {
				t.log.Warn("streamable: the server refused the GET stream", "err", e)
			}
			return
		case !isEventStream(resp):
			resp.Body.Close()
			t.log.Warn("streamable: the server answered GET with Content-Type " + quote(resp.Header.Get("Content-Type")) + ", not text/event-stream")
			return
		default:
			failures = -1
			t.consume(resp.Body, &st, nil)
		}
		failures++
		wait := st.retry
		for i := 1; i < failures && wait < maxBackoff; i++ {
			wait *= 2
		}
		if !sleep(ctx, min(wait, maxBackoff)) {
			return
		}
	}
}

// reinitialize starts a new session after the server answered 404 to a
// request that carried stale: it replays the initialize request and
// notifications/initialized, and opens the new session's GET stream. When
// another request has done so meanwhile, it returns at once.
func (t *ClientTransport) reinitialize(ctx context.Context, stale string) error {
	t.reinitMu.Lock()
	defer t.reinitMu.Unlock()
	t.mu.Lock()
	frame, initID, current := t.initFrame, t.initID, t.sessionID
	t.mu.Unlock()
	if current != stale {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("streamable: the server no longer knows session %s (404), and starting a new one failed: %w", stale, err)
	}
	if frame == nil {
		return fail(errors.New("no initialize request was sent through this transport"))
	}
	req, err := t.request(ctx, http.MethodPost, frame, "", "", "")
	if err != nil {
		return fail(err)
	}
	resp, err := t.do(req)
	if err != nil {
		return fail(err)
	}
	version, err := t.initResult(resp, initID)
	resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	sid := resp.Header.Get(headerSessionID)
	req, err = t.request(ctx, http.MethodPost, jsonrpc.AppendNotification(nil, mcp.MethodInitializedNotification, nil), sid, version, "")
	if err != nil {
		return fail(err)
	}
	resp, err = t.do(req)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode/100 != 2 {
		err = t.statusError(http.MethodPost, resp)
	}
	resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	t.mu.Lock()
	t.sessionID, t.version = sid, version
	t.gen++
	t.listening = false
	if t.endListen != nil {
		t.endListen()
	}
	t.mu.Unlock()
	t.log.Info("streamable: the server forgot the session; started a new one", "old", stale, "new", sid)
	t.listen(ctx)
	return nil
}

// initResult reads the reply to a replayed initialize request and returns
// the protocol version of its result.
func (t *ClientTransport) initResult(resp *http.Response, initID string) (string, error) {
	if resp.StatusCode/100 != 2 {
		return "", t.statusError(http.MethodPost, resp)
	}
	check := func(data []byte) (string, bool, error) {
		msgs, _, _ := jsonrpc.DecodeBatch(data)
		for i := range msgs {
			m := &msgs[i]
			if m.Kind() != jsonrpc.MessageResponse || m.ID.String() != initID {
				continue
			}
			if m.Error != nil {
				return "", true, m.Error
			}
			var r mcp.InitializeResult
			if err := r.UnmarshalJSON(m.Result); err != nil {
				return "", true, fmt.Errorf("initialize result: %w", err)
			}
			return r.ProtocolVersion, true, nil
		}
		return "", false, nil
	}
	if isEventStream(resp) {
		sc := newEventScanner(resp.Body, t.max)
		for {
			ev, err := sc.next()
			if err != nil {
				return "", fmt.Errorf("the SSE reply to initialize ended without its response: %w", err)
			}
			if len(ev.data) == 0 {
				continue
			}
			if v, ok, err := check(ev.data); ok {
				return v, err
			}
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.max)))
	if err != nil {
		return "", err
	}
	if v, ok, err := check(body); ok {
		return v, err
	}
	return "", errors.New("the reply to initialize held no response to it")
}
