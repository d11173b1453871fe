package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// ClientOptions configure a ClientTransport. The zero ClientOptions are
// ready to use.
type ClientOptions struct {
	// HTTPClient sends the requests. Nil means a client of the
	// transport's own, whose idle connections Close closes. It should
	// have no Timeout: SSE streams last as long as the session.
	HTTPClient *http.Client

	// Header is added to every request, say for Authorization.
	Header http.Header

	// Logger receives what the transport cannot report through Read or
	// Write: a GET stream that failed, a DELETE refused. Nil discards it.
	Logger *slog.Logger

	// MaxMessageSize bounds an incoming message, in bytes. Zero means
	// DefaultClientMaxMessageSize.
	MaxMessageSize int
}

// DefaultClientMaxMessageSize bounds an incoming message when
// ClientOptions.MaxMessageSize is zero: 16 MiB.
const DefaultClientMaxMessageSize = 16 << 20

// ErrClientClosed is returned by the Reads and Writes of a closed
// ClientTransport.
var ErrClientClosed = errors.New("streamable: client transport closed")

// defaultRetry is the reconnection delay of an SSE stream whose server
// sent no retry field.
const defaultRetry = time.Second

// ClientTransport is the client side of the Streamable HTTP transport: a
// jsonrpc.Transport that POSTs each frame to the MCP endpoint and hands
// Read every message the server sends back, in JSON replies, on the SSE
// stream of a POST, or on the session's GET stream.
//
// It follows the session: it remembers the Mcp-Session-Id given with the
// initialize response and the protocol version in its result, and sends
// both with every later request. When a request with the session id gets
// 404 (the server forgot the session), it starts a new session by
// replaying the initialize request and notifications/initialized, and
// sends the request again, once. After notifications/initialized it opens
// the GET stream, unless the server answers 405.
//
// SSE streams resume: when a POST's stream ends before the responses it
// owes, or the GET stream ends, the transport waits for the server's retry
// interval and GETs the stream again with Last-Event-ID.
//
// A request the server refuses (a status other than 2xx) is answered to
// Read with a JSON-RPC error response carrying the server's message, so
// that the caller waiting for it learns why.
type ClientTransport struct {
	url   string
	shown string // url with any password in it hidden, for messages
	hc    *http.Client
	// rt is hc's transport when hc is the transport's own, which has no
	// timeout, cookie jar or redirect policy: do sends on it directly,
	// and Close drops its idle connections. Nil for a given client.
	rt  http.RoundTripper
	hdr http.Header
	log *slog.Logger
	max int

	ctx    context.Context // ends on Close; bounds every request
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine of the transport
	frames chan incomingFrame

	reinitMu sync.Mutex // one re-initialization at a time

	mu        sync.Mutex
	closed    bool
	closeOnce sync.Once
	sessionID string
	version   string
	initFrame []byte               // the initialize request, for a new session
	initID    string               // its id, as JSON text
	gen       uint64               // counts sessions: bumped by re-initialization
	listening bool                 // the GET stream runs, or is being opened
	endListen context.CancelFunc   // stops the GET stream's goroutine
	waiting   map[string]*exchange // requests without a response yet, by id
}

// incomingFrame is what Read returns next.
type incomingFrame struct {
	data []byte
	err  error
}

// NewClientTransport returns a transport to the MCP endpoint at url. Nil
// opts are the zero ClientOptions. Nothing is sent before the first Write.
func NewClientTransport(url string, opts *ClientOptions) *ClientTransport {
	t := &ClientTransport{url: url, shown: redactURL(url), frames: make(chan incomingFrame), waiting: make(map[string]*exchange)}
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	t.hc = o.HTTPClient
	if t.hc == nil {
		// Every call in flight has a connection of its own, and all go to
		// one host: keep as many idle as DefaultTransport keeps for all
		// hosts, rather than its two per host, which closes the rest after
		// each call and dials again for the next.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = tr.MaxIdleConns
		t.hc = &http.Client{Transport: tr}
		t.rt = tr
	}
	t.hdr = o.Header.Clone()
	t.log = o.Logger
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	t.max = o.MaxMessageSize
	if t.max <= 0 {
		t.max = DefaultClientMaxMessageSize
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	return t
}

// ServerKey names the endpoint, for a client to remember the era its
// server speaks.
func (t *ClientTransport) ServerKey() string { return "http:" + t.url }

// SessionID returns the Mcp-Session-Id the server gave, or "" before
// initialize or when the server keeps no sessions.
func (t *ClientTransport) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// ProtocolVersion returns the protocol version of the initialize result
// that passed through, or "" before it.
func (t *ClientTransport) ProtocolVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version
}

// WritesConcurrently implements jsonrpc.ConcurrentWriter: each Write is a
// POST of its own, and a 2026-07-28 request's Write lasts until its reply
// begins, so a Conn that sent one frame at a time would send one call at a
// time.
func (t *ClientTransport) WritesConcurrently() {}

var _ jsonrpc.ConcurrentWriter = (*ClientTransport)(nil)

// RepliesDirectly marks the transport as a jsonrpc.DirectReplier: a
// 2026-07-28 request written by a Call gets its reply on the Call's own
// goroutine (see writeCall).
func (t *ClientTransport) RepliesDirectly() {}

var _ jsonrpc.DirectReplier = (*ClientTransport)(nil)

// Read returns the next message the server sent.
func (t *ClientTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-t.frames:
		return f.data, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, ErrClientClosed
	}
}

// Write sends one frame in a POST. A frame holding requests returns once
// it is sent: the responses come to Read, from the reply or from a stream
// that replaces it. Any other frame returns when the server has accepted
// it, or with the error that the server or the network gave.
func (t *ClientTransport) Write(ctx context.Context, frame []byte) error {
	if t.ctx.Err() != nil {
		return ErrClientClosed
	}
	msgs, batch, err := jsonrpc.DecodeBatch(frame)
	if err != nil {
		return fmt.Errorf("streamable: cannot send an invalid frame: %w", err)
	}
	if !batch {
		m := &msgs[0]
		if c, ok := modernCall(ctx, m); ok {
			return t.writeCall(ctx, frame, m.ID, c)
		}
		if m.Method == mcp.MethodCancelledNotification && t.cancelCall(m.Params) {
			return nil // the request's stream is closed: that is its cancellation
		}
	}
	x := &exchange{frame: frame, sent: make(chan struct{})}
	initialized := false
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind() {
		case jsonrpc.MessageRequest:
			x.ids = append(x.ids, m.ID)
			if m.Method == mcp.MethodInitialize {
				x.init = true
				t.mu.Lock()
				t.initFrame, t.initID = frame, m.ID.String()
				t.mu.Unlock()
			}
		case jsonrpc.MessageNotification:
			initialized = initialized || m.Method == mcp.MethodInitializedNotification
		}
	}
	if len(x.ids) == 0 {
		if err := t.send(ctx, frame); err != nil {
			return err
		}
		if initialized {
			t.listen(ctx)
		}
		return nil
	}
	return t.start(ctx, x, t.run)
}

// start registers the exchange's requests and hands it to run on a
// goroutine of the transport, returning once its frame is sent.
func (t *ClientTransport) start(ctx context.Context, x *exchange, run func(*exchange)) error {
	if !t.enter(x) {
		return ErrClientClosed
	}
	go func() {
		defer t.wg.Done()
		run(x)
	}()
	select {
	case <-x.sent:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.ctx.Done():
		return ErrClientClosed
	}
}

// enter registers the exchange's requests as waiting and counts the
// exchange in t.wg, which Close waits for, unless Close has begun.
func (t *ClientTransport) enter(x *exchange) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	for _, id := range x.ids {
		t.waiting[id.String()] = x
	}
	t.wg.Add(1)
	return true
}

// forget removes those of x's requests that still wait for their
// response, reporting whether there were any: the caller gave up on
// them.
func (t *ClientTransport) forget(x *exchange) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, id := range x.ids {
		if t.waiting[id.String()] == x {
			delete(t.waiting, id.String())
			n++
		}
	}
	return n > 0
}

// Close stops every stream and goroutine of the transport, then ends the
// session with DELETE (a server answering 405 keeps it). It always
// returns nil; a refused DELETE is logged.
func (t *ClientTransport) Close() error {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		t.closed = true
		sid, version := t.sessionID, t.version
		// The 2026-07-28 requests read on their callers' goroutines
		// hang on their callers' ctx, not t.ctx: end them too.
		var calls []context.CancelFunc
		for _, x := range t.waiting {
			if x.call != nil {
				calls = append(calls, x.call.cancel)
			}
		}
		t.mu.Unlock()
		t.cancel()
		for _, cancel := range calls {
			cancel()
		}
		t.wg.Wait()
		if sid != "" {
			t.terminate(sid, version)
		}
		if t.rt != nil {
			t.hc.CloseIdleConnections()
		}
	})
	return nil
}

// terminate sends the DELETE that ends the session.
func (t *ClientTransport) terminate(sid, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := t.request(ctx, http.MethodDelete, nil, sid, version, "")
	if err != nil {
		return
	}
	resp, err := t.do(req)
	if err != nil {
		t.log.Warn("streamable: cannot end the session", "session", sid, "err", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
		t.log.Warn("streamable: the server refused to end the session", "session", sid, "err", t.statusError(http.MethodDelete, resp))
	}
}

// spawn runs f on a goroutine of the transport, unless it is closed.
func (t *ClientTransport) spawn(f func()) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.wg.Go(f)
	return true
}

// state returns what the next request sends.
func (t *ClientTransport) state() (sid, version string, gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID, t.version, t.gen
}

// The values of the headers every request has, shared by the requests
// rather than made for each: a slice whose length is its capacity cannot
// be changed through an append, and nothing on the way writes into one.
var (
	acceptPost  = []string{"application/json, text/event-stream"}
	acceptGet   = []string{"text/event-stream"}
	contentJSON = []string{"application/json"}
)

// request builds an HTTP request to the endpoint with the transport's
// headers.
func (t *ClientTransport) request(ctx context.Context, method string, body []byte, sid, version, lastEventID string) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, rd)
	if err != nil {
		return nil, fmt.Errorf("streamable: %w", err)
	}
	for k, vs := range t.hdr {
		req.Header[k] = append([]string(nil), vs...)
	}
	switch method {
	case http.MethodPost:
		req.Header["Accept"], req.Header["Content-Type"] = acceptPost, contentJSON
	case http.MethodGet:
		req.Header["Accept"] = acceptGet
	}
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if version != "" {
		req.Header.Set(headerVersion, version)
	}
	if lastEventID != "" {
		req.Header.Set(headerLastEventID, lastEventID)
	}
	return req, nil
}

// post sends frame with the current session's headers. sent, when not
// nil, is called once the request has been written out.
func (t *ClientTransport) post(ctx context.Context, frame []byte, sent func()) (resp *http.Response, sid string, err error) {
	sid, version, _ := t.state()
	if sent != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { sent() }})
	}
	req, err := t.request(ctx, http.MethodPost, frame, sid, version, "")
	if err != nil {
		return nil, sid, err
	}
	resp, err = t.do(req)
	if err != nil {
		return nil, sid, fmt.Errorf("streamable: POST %s: %w", t.shown, err)
	}
	return resp, sid, nil
}

// send POSTs a frame of notifications and responses, which the server
// should accept with 202.
func (t *ClientTransport) send(ctx context.Context, frame []byte) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(t.ctx, stop)()
	for retried := false; ; retried = true {
		resp, sid, err := t.post(ctx, frame, nil)
		if err != nil {
			if t.ctx.Err() != nil {
				return ErrClientClosed
			}
			return err
		}
		if resp.StatusCode == http.StatusNotFound && sid != "" && !retried {
			resp.Body.Close()
			if err := t.reinitialize(ctx, sid); err != nil {
				return err
			}
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return t.statusError(http.MethodPost, resp)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
}

// StatusError is a reply to an HTTP request of the transport with a status
// other than 2xx.
type StatusError struct {
	Method     string         // the HTTP method of the request
	StatusCode int            // the HTTP status
	Status     string         // the status line, "404 Not Found"
	RPC        *jsonrpc.Error // the JSON-RPC error of the body, if it held one
	Body       string         // the body otherwise, cut to 512 bytes
}

// Error names the status and the server's message.
func (e *StatusError) Error() string {
	msg := "streamable: the server answered " + e.Method + " with " + e.Status
	switch {
	case e.RPC != nil:
		msg += ": " + e.RPC.Message
	case e.Body != "":
		msg += ": " + e.Body
	}
	return msg
}

// statusError reads a refusal's body into a *StatusError.
func (t *ClientTransport) statusError(method string, resp *http.Response) *StatusError {
	e := &StatusError{Method: method, StatusCode: resp.StatusCode, Status: resp.Status}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if m, err := jsonrpc.DecodeMessage(body); err == nil && m.Error != nil {
		e.RPC = m.Error
		return e
	}
	body = bytes.TrimSpace(body)
	if len(body) > 512 {
		body = append(body[:512:512], "..."...)
	}
	e.Body = string(body)
	return e
}

// exchange is one POST of requests, followed until each has its response.
type exchange struct {
	frame    []byte
	ids      []jsonrpc.ID
	init     bool  // the frame is the initialize request
	call     *call // the 2026-07-28 request the frame is, or nil
	sent     chan struct{}
	sentOnce sync.Once
}

// markSent tells start that x's frame is sent. An exchange read on its
// writer's goroutine has no sent channel: nothing waits for it.
func (x *exchange) markSent() {
	if x.sent != nil {
		x.sentOnce.Do(func() { close(x.sent) })
	}
}

// left reports how many of x's requests still wait for their response.
func (t *ClientTransport) left(x *exchange) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, id := range x.ids {
		if t.waiting[id.String()] == x {
			n++
		}
	}
	return n
}

// run POSTs the requests of x and follows the reply until every one of
// them has its response.
func (t *ClientTransport) run(x *exchange) {
	defer x.markSent()
	for retried := false; ; retried = true {
		resp, sid, err := t.post(t.ctx, x.frame, x.markSent)
		if err != nil {
			if t.ctx.Err() == nil {
				t.fail(x, jsonrpc.CodeInternalError, err.Error(), nil)
			}
			return
		}
		x.markSent()
		if resp.StatusCode == http.StatusNotFound && sid != "" && !retried && !x.init {
			resp.Body.Close()
			if err := t.reinitialize(t.ctx, sid); err != nil {
				t.fail(x, jsonrpc.CodeInternalError, err.Error(), nil)
				return
			}
			continue
		}
		if x.init && resp.StatusCode/100 == 2 {
			t.mu.Lock()
			t.sessionID = resp.Header.Get(headerSessionID)
			t.mu.Unlock()
		}
		t.reply(x, resp)
		return
	}
}

// reply reads the server's reply to the requests of x.
func (t *ClientTransport) reply(x *exchange, resp *http.Response) {
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e := t.statusError(http.MethodPost, resp)
		code := int64(jsonrpc.CodeInternalError)
		if e.RPC != nil {
			code = e.RPC.Code
		}
		t.fail(x, code, e.Error(), append(strconv.AppendInt([]byte(`{"httpStatus":`), int64(e.StatusCode), 10), '}'))
		return
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mediaType == "text/event-stream":
		t.follow(x, resp)
	case mediaType == "application/json":
		body, err := readJSONReply(resp, t.max)
		switch {
		case err != nil:
			if t.ctx.Err() == nil {
				t.fail(x, jsonrpc.CodeInternalError, "streamable: reading the reply to POST: "+err.Error(), nil)
			}
		case len(body) > t.max:
			t.fail(x, jsonrpc.CodeInternalError, fmt.Sprintf("streamable: the reply is larger than %d bytes, the limit set by ClientOptions.MaxMessageSize", t.max), nil)
		default:
			t.deliver(body, x)
		}
		if t.left(x) > 0 && t.ctx.Err() == nil {
			t.fail(x, jsonrpc.CodeInternalError, "streamable: the server's JSON reply held no response to this request", nil)
		}
	default:
		t.fail(x, jsonrpc.CodeInternalError, fmt.Sprintf("streamable: the server answered a request with %s and Content-Type %q instead of a response", resp.Status, resp.Header.Get("Content-Type")), nil)
	}
}

// readJSONReply reads a JSON reply's body, up to max bytes and one more, to
// tell that it is too large: in one allocation of the body's size when
// the server gave its Content-Length and it is small, as most replies
// are. A larger one is read as it comes, so that a server announcing a
// large body it does not send costs no memory for it.
func readJSONReply(resp *http.Response, max int) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= int64(min(max, presizedReply)) {
		body := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
}

// presizedReply bounds the replies readJSONReply reads into a buffer of
// their announced size.
const presizedReply = 64 << 10

// fail answers every request of x still waiting with an error response.
func (t *ClientTransport) fail(x *exchange, code int64, msg string, data []byte) {
	t.mu.Lock()
	var ids []jsonrpc.ID
	for _, id := range x.ids {
		if t.waiting[id.String()] == x {
			delete(t.waiting, id.String())
			ids = append(ids, id)
		}
	}
	t.mu.Unlock()
	for _, id := range ids {
		e := jsonrpc.NewError(code, msg)
		e.Data = data
		t.push(incomingFrame{data: jsonrpc.AppendError(nil, id, e)})
	}
}

// deliver hands a frame the server sent to Read, noting the responses it
// holds and learning the protocol version from the initialize result. The
// reply to x, a 2026-07-28 request, goes straight to its Call instead
// when it is that one response.
func (t *ClientTransport) deliver(data []byte, x *exchange) {
	msgs, _, err := jsonrpc.DecodeBatch(data)
	if len(msgs) == 0 {
		t.log.Warn("streamable: dropped an invalid message from the server", "err", err)
		return
	}
	t.mu.Lock()
	for i := range msgs {
		m := &msgs[i]
		if m.Kind() != jsonrpc.MessageResponse {
			continue
		}
		id := m.ID.String()
		delete(t.waiting, id)
		if id == t.initID && m.Result != nil && t.version == "" {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Result, &r) == nil {
				t.version = r.ProtocolVersion
			}
		}
	}
	t.mu.Unlock()
	if x != nil && x.call != nil && len(msgs) == 1 && jsonrpc.Reply(x.call.ctx, t, &msgs[0]) {
		return
	}
	t.push(incomingFrame{data: data})
}

// push hands Read a frame, unless the transport closes first.
func (t *ClientTransport) push(f incomingFrame) {
	select {
	case t.frames <- f:
	case <-t.ctx.Done():
	}
}

// sleep waits for d, or returns false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// do sends req and returns the server's response. Through the
// transport's own HTTP client it goes to the connection pool directly,
// sparing the copies of the request's URL and headers that http.Client
// makes for each request in case it is redirected; a redirect, seldom
// met on an MCP endpoint, is then followed by the client, with the body
// sent again. A client given in ClientOptions is used as it is, with its
// own policies.
func (t *ClientTransport) do(req *http.Request) (*http.Response, error) {
	if t.rt == nil {
		return t.hc.Do(req)
	}
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, &url.Error{Op: urlErrorOp(req.Method), URL: req.URL.Redacted(), Err: err}
	}
	if !redirect(resp) || req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	resp.Body.Close()
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.hc.Do(again)
}

// redactURL returns rawURL with the password of its user information,
// if any, hidden, as http.Client shows URLs in its errors.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Redacted()
}

// redirect reports whether http.Client would follow resp.
func redirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// urlErrorOp is the Op of http.Client's errors: the method, capitalized
// as in "Post".
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}
