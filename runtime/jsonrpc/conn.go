package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Handler answers the requests and notifications that a Conn receives.
//
// For a request, Handle returns the raw JSON result, or an error: an *Error
// (found with errors.As) is sent to the peer as it is, any other error as a
// -32603 internal error carrying its text. A nil result is sent as null. A
// panic is recovered, logged and answered with -32603; it never ends the
// Conn. The result must be one valid JSON value and is sent unchecked.
//
// Requests are handled concurrently, each on its own goroutine, with a ctx
// that ends when the peer cancels the request (Conn.CancelIncoming) or the
// Conn shuts down.
//
// Notifications (req.ID zero) are handled one at a time, in the order they
// arrive, on the Conn's read loop, so that a notification is never
// overtaken by a message sent after it; what Handle returns is dropped. A
// notification handler must therefore return quickly and must not wait for
// a Call on the same Conn, whose response the blocked read loop would never
// read: it should start its own goroutine for longer work.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result []byte, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (result []byte, err error)

// Handle calls f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) ([]byte, error) {
	return f(ctx, req)
}

// Request is an incoming request or notification, as a Handler sees it.
type Request struct {
	ID     ID     // zero for a notification
	Method string // never empty
	// Params is the raw JSON object or array of params, or nil when there
	// were none. It is a slice of the frame the message arrived in, which
	// nothing else uses or modifies, so the handler may keep it; it must
	// not modify it, as a batch shares one frame among its requests.
	Params []byte
	Conn   *Conn // the Conn that received the request, to call the peer back
}

// Options tune a Conn. The zero Options are ready to use.
type Options struct {
	// MaxInFlight bounds the incoming requests handled at once. At the
	// bound, the read loop waits for a handler to finish before it reads
	// on. Zero or less means DefaultMaxInFlight.
	MaxInFlight int

	// RejectBatches makes the Conn answer an incoming batch with one
	// -32600 error instead of handling it, for protocol versions that
	// forbid batches. By default batches are served: a batch of requests
	// gets a batch of responses, in the order the handlers finish.
	RejectBatches bool

	// Logger receives what the Conn cannot tell its peer: handler panics,
	// failed writes, responses nobody waits for. Nil discards it.
	Logger *slog.Logger

	// DrainTimeout bounds how long Run waits, once the peer has finished
	// sending, for running handlers to answer before it shuts down. Zero
	// means DefaultDrainTimeout; a negative value does not wait.
	DrainTimeout time.Duration

	// OnCancel, when set, is called by Call, on the caller's goroutine,
	// after ctx ended while the peer had the request, with the id the
	// request went out with. The MCP layer sends notifications/cancelled
	// from it.
	OnCancel func(id ID)
}

// DefaultDrainTimeout is the wait for running handlers after the peer has
// finished sending, when Options.DrainTimeout is zero.
const DefaultDrainTimeout = 5 * time.Second

// DefaultMaxInFlight is the bound on concurrent incoming requests when
// Options.MaxInFlight is zero.
const DefaultMaxInFlight = 256

// ErrClosed is wrapped by the errors of Calls that cannot complete because
// the Conn has shut down, and of Calls made afterwards.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Conn is one JSON-RPC 2.0 peer over a Transport, serving both directions:
// it answers the peer's requests through a Handler and sends its own with
// Call and Notify. Its methods may be called from any goroutine.
//
// The Conn owns the transport and closes it when it shuts down: when Run
// returns or Close is called, whichever comes first. Shutting down fails
// every pending Call with an error wrapping ErrClosed and cancels every
// handler's ctx.
type Conn struct {
	t       Transport
	handler Handler
	opts    Options
	log     *slog.Logger
	sem     chan struct{} // a token per request being handled
	nextID  atomic.Int64
	// rejectBatches starts as Options.RejectBatches; SetRejectBatches
	// changes it, for protocols that negotiate batch support.
	rejectBatches atomic.Bool
	closed        atomic.Bool
	writeMu       sync.Mutex // keeps frames whole, unless t is a ConcurrentWriter
	runCtx        context.Context
	done          chan struct{} // closed when Run has finished, or was never started before Close
	handlers      sync.WaitGroup

	mu       sync.Mutex
	pending  map[int64]*call    // outgoing requests by id
	incoming map[ID]*inflight   // incoming requests being handled
	closeErr error              // why the Conn shut down, once it has
	running  bool               // Run has been called
	cancel   context.CancelFunc // ends Run's ctx
}

// NewConn returns a Conn over t that hands incoming messages to h. A nil h
// answers every request with -32601 and ignores notifications. Call Run to
// start reading.
func NewConn(t Transport, h Handler, opts Options) *Conn {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{
		t:       t,
		handler: h,
		opts:    opts,
		log:     log,
		sem:     make(chan struct{}, opts.MaxInFlight),
		done:    make(chan struct{}),
	}
	c.rejectBatches.Store(opts.RejectBatches)
	return c
}

// Run reads and dispatches messages until the transport reaches its end,
// ctx ends, a read fails or Close is called; then it shuts the Conn down
// and returns. It returns nil after the peer closed the transport or Close
// was called (also before Run), ctx.Err() when ctx ended, and the read
// error otherwise.
// Handlers may still be running when Run returns; Wait waits for them.
// Run may be called once.
func (c *Conn) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		return errors.New("jsonrpc: Run called twice")
	}
	c.running = true
	if c.closeErr != nil {
		c.mu.Unlock()
		return nil // Close came first
	}
	ctx, c.cancel = context.WithCancel(ctx)
	c.runCtx = ctx
	c.mu.Unlock()
	defer close(c.done)

	err := c.readLoop(ctx)
	cause := err
	switch {
	case c.closed.Load():
		err = nil // Close was called: the read failed because of it
	case errors.Is(err, io.EOF):
		err = nil
		c.drain(ctx)
	case ctx.Err() != nil:
		err = ctx.Err()
		cause = err
	default:
		err = fmt.Errorf("jsonrpc: read: %w", err)
	}
	c.shutdown(cause)
	return err
}

// drain gives the handlers still running when the peer finished sending
// up to Options.DrainTimeout to answer: a client that closes its end of a
// stdio pipe right after its last request still gets the responses.
func (c *Conn) drain(ctx context.Context) {
	d := c.opts.DrainTimeout
	if d == 0 {
		d = DefaultDrainTimeout
	}
	if d < 0 {
		return
	}
	done := make(chan struct{})
	go func() { // ends when the handlers do; shutdown cancels them at the latest
		c.handlers.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

type requestKey struct{}

// RequestFromContext returns the incoming request whose handler ctx
// belongs to, or nil. A transport can use it to tell which request a
// frame written with that ctx answers or was caused by (Streamable HTTP
// sends them on that request's own stream).
func RequestFromContext(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// SetRejectBatches says whether batches arriving from now on are
// answered with one -32600 error instead of being handled.
func (c *Conn) SetRejectBatches(reject bool) { c.rejectBatches.Store(reject) }

// Close shuts the Conn down, closing the transport, and returns the
// transport's error. Run then returns nil. Close may be called more than
// once; later calls return nil.
func (c *Conn) Close() error {
	return c.shutdown(nil)
}

// Wait returns once Run has returned, or Close was called before Run
// started, and every handler goroutine has finished.
func (c *Conn) Wait() {
	<-c.done
	c.handlers.Wait()
}

// shutdown stops the Conn for the given reason, nil for Close.
func (c *Conn) shutdown(cause error) error {
	c.mu.Lock()
	if c.closeErr != nil {
		c.mu.Unlock()
		return nil
	}
	c.closed.Store(true)
	c.closeErr = ErrClosed
	if cause != nil {
		c.closeErr = fmt.Errorf("%w: %w", ErrClosed, cause)
	}
	pending := c.pending
	c.pending = nil
	cancel := c.cancel
	if !c.running {
		close(c.done) // Run will not get to close it
	}
	c.mu.Unlock()

	if cancel != nil {
		cancel() // ends the read and every handler's ctx
	}
	err := c.t.Close()
	for _, p := range pending {
		p.ch <- response{err: c.closeErr}
	}
	return err
}

// Call sends a request to the peer and waits for its response, returning
// the raw JSON result or the peer's *Error. The result is a slice of the
// frame the response arrived in, which nothing else uses; the caller owns
// it. params must be one JSON object or array, or nil for none.
//
// If ctx ends first, Call returns ctx.Err(), calls Options.OnCancel with
// the request's id, and drops the response if it comes later. Run must be
// running for a response to be read.
func (c *Conn) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := c.nextID.Add(1)
	if f, ok := ctx.Value(callIDKey{}).(func(ID)); ok {
		f(IntID(n))
	}
	p := callPool.Get().(*call)
	c.mu.Lock()
	if c.closeErr != nil {
		err := c.closeErr
		c.mu.Unlock()
		callPool.Put(p)
		return nil, err
	}
	if c.pending == nil { // made on first use: a Conn that never calls has none
		c.pending = make(map[int64]*call)
	}
	c.pending[n] = p
	c.mu.Unlock()

	frame := AppendRequest(make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"method":"","params":}`)+20+len(method)+len(params)), IntID(n), method, params)
	if err := c.write(ctx, frame); err != nil {
		if !c.forget(n) {
			<-p.ch // shut down meanwhile: take the error it sent
		}
		callPool.Put(p)
		return nil, err
	}
	select {
	case r := <-p.ch:
		callPool.Put(p)
		return r.result, r.err
	case <-ctx.Done():
	}
	if !c.forget(n) {
		// The response, or the shutdown, won the race: use it.
		r := <-p.ch
		callPool.Put(p)
		return r.result, r.err
	}
	callPool.Put(p)
	if c.opts.OnCancel != nil {
		c.opts.OnCancel(IntID(n))
	}
	return nil, ctx.Err()
}

type callIDKey struct{}

// WithCallID returns a copy of ctx with which Call tells f the id it gives
// its request, before the request is sent: for a caller that must tell
// apart what the peer sends about that request (MCP tags the notifications
// of a subscription with its request's id).
func WithCallID(ctx context.Context, f func(ID)) context.Context {
	return context.WithValue(ctx, callIDKey{}, f)
}

// Notify sends a notification to the peer. params must be one JSON object
// or array, or nil for none.
func (c *Conn) Notify(ctx context.Context, method string, params []byte) error {
	frame := AppendNotification(make([]byte, 0, len(`{"jsonrpc":"2.0","method":"","params":}`)+len(method)+len(params)), method, params)
	return c.write(ctx, frame)
}

// CancelIncoming cancels the ctx of the handler serving the peer's request
// with the given id, if it is still running, and drops its response: the
// peer has said it no longer wants it. The MCP layer calls it on
// notifications/cancelled. Unknown ids are ignored.
func (c *Conn) CancelIncoming(id ID) {
	c.mu.Lock()
	inf := c.incoming[id]
	if inf != nil {
		inf.dropped = true
	}
	c.mu.Unlock()
	if inf != nil {
		inf.cancel()
	}
}

// IncomingMethod returns the method of the peer's request with the given
// id while its handler runs, and false once it has answered or for an id
// the Conn has not received. A request is known from the moment the read
// loop has read it, so a notification read after it (handled on the read
// loop) always finds it.
func (c *Conn) IncomingMethod(id ID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if inf := c.incoming[id]; inf != nil {
		return inf.req.Method, true
	}
	return "", false
}

// call is an outgoing request waiting for its response. Calls are pooled:
// ch receives exactly one response per use.
type call struct {
	ch chan response
}

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan response, 1)} }}

// response is what a waiting Call receives.
type response struct {
	result []byte
	err    error
}

// forget removes the pending call with id n, reporting whether it was still
// there; if not, whoever removed it has sent it a response.
func (c *Conn) forget(n int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[n]; !ok {
		return false
	}
	delete(c.pending, n)
	return true
}

// write sends one frame, whole.
func (c *Conn) write(ctx context.Context, frame []byte) error {
	if _, ok := c.t.(ConcurrentWriter); !ok {
		c.writeMu.Lock()
		defer c.writeMu.Unlock()
	}
	if c.closed.Load() {
		return c.closeError()
	}
	if err := c.t.Write(ctx, frame); err != nil {
		if c.closed.Load() {
			return c.closeError()
		}
		return fmt.Errorf("jsonrpc: write: %w", err)
	}
	return nil
}

func (c *Conn) closeError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// readLoop reads frames and dispatches them until a read fails.
func (c *Conn) readLoop(ctx context.Context) error {
	var d decoder
	for n := 0; ; n++ {
		if n == 4 {
			// A peer that keeps talking gets its method names interned; an
			// idle one (most sessions, after initialize) costs no map.
			d.methods = make(map[string]string)
		}
		frame, err := c.t.Read(ctx)
		if err != nil {
			if !errors.Is(err, ErrMessageTooLarge) {
				return err
			}
			// The transport skipped it; say so, though without an id.
			c.log.Warn("jsonrpc: incoming message skipped", "err", err)
			c.send(ctx, AppendError(nil, ID{}, invalidRequest(err.Error())))
			continue
		}
		err = c.dispatch(ctx, &d, frame)
		d.s.Reset(nil) // hold no frame while waiting for the next
		if err != nil {
			return err
		}
	}
}

// dispatch handles one frame. It fails only when ctx ends while it waits
// for room to start a handler.
func (c *Conn) dispatch(ctx context.Context, d *decoder, frame []byte) error {
	d.s.Reset(frame)
	if d.s.Peek() == KindArray {
		return c.dispatchBatch(ctx, d)
	}
	m, err := d.message()
	if err != nil {
		c.send(ctx, AppendError(nil, m.ID, err))
		return nil
	}
	return c.dispatchMessage(ctx, &m, nil)
}

func (c *Conn) dispatchMessage(ctx context.Context, m *Message, b *batch) error {
	switch m.Kind() {
	case MessageRequest:
		return c.start(ctx, m, b)
	case MessageNotification:
		req := Request{Method: m.Method, Params: m.Params, Conn: c}
		c.handle(ctx, &req)
	case MessageResponse:
		c.deliver(m)
	}
	return nil
}

func (c *Conn) dispatchBatch(ctx context.Context, d *decoder) error {
	msgs, invalid, err := d.batch()
	if err != nil {
		c.send(ctx, AppendError(nil, ID{}, err))
		return nil
	}
	if c.rejectBatches.Load() {
		c.send(ctx, AppendError(nil, ID{}, invalidRequest("batches are not supported")))
		return nil
	}
	b := &batch{open: 1, out: []byte{'['}} // the read loop holds one count until it is done
	for _, e := range invalid {
		b.add(e.ID, nil, e.Err, false)
	}
	for i := range msgs {
		if err := c.dispatchMessage(ctx, &msgs[i], b); err != nil {
			return err
		}
	}
	b.finish(c, ctx)
	return nil
}

// inflight is an incoming request being handled.
type inflight struct {
	req     Request
	cancel  context.CancelFunc
	batch   *batch // the batch the request came in, or nil
	dropped bool   // the peer cancelled it: send no response; guarded by Conn.mu
}

// start starts a handler goroutine for a request, once there is room.
func (c *Conn) start(ctx context.Context, m *Message, b *batch) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	inf := &inflight{req: Request{ID: m.ID, Method: m.Method, Params: m.Params, Conn: c}, batch: b}
	c.mu.Lock()
	if _, dup := c.incoming[m.ID]; dup {
		c.mu.Unlock()
		<-c.sem
		e := invalidRequest("request id " + m.ID.String() + " is already in use")
		if b != nil {
			b.add(m.ID, nil, e, false)
		} else {
			c.send(ctx, AppendError(nil, m.ID, e))
		}
		return nil
	}
	if c.incoming == nil { // made on first use
		c.incoming = make(map[ID]*inflight)
	}
	c.incoming[m.ID] = inf
	c.mu.Unlock()
	if b != nil {
		b.mu.Lock()
		b.open++
		b.mu.Unlock()
	}
	hctx, cancel := context.WithCancel(context.WithValue(ctx, requestKey{}, &inf.req))
	inf.cancel = cancel
	c.handlers.Add(1)
	go c.serve(hctx, inf)
	return nil
}

// serve runs the handler for one request and sends its response.
func (c *Conn) serve(ctx context.Context, inf *inflight) {
	defer c.handlers.Done()
	result, err := c.handle(ctx, &inf.req)
	inf.cancel()
	id := inf.req.ID
	c.mu.Lock()
	delete(c.incoming, id)
	dropped := inf.dropped
	c.mu.Unlock()

	var e *Error
	if err != nil {
		e = AsError(err)
	}
	if inf.batch != nil {
		inf.batch.add(id, result, e, dropped)
		inf.batch.finish(c, c.runCtx)
	} else if !dropped {
		var frame []byte
		if e != nil {
			frame = AppendError(nil, id, e)
		} else {
			frame = AppendResult(make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+20+len(result)), id, result)
		}
		c.send(c.runCtx, frame)
	}
	<-c.sem
}

// handle calls the handler, turning a panic into an error.
func (c *Conn) handle(ctx context.Context, req *Request) (result []byte, err error) {
	if c.handler == nil {
		return nil, ErrMethodNotFound(req.Method)
	}
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("jsonrpc: handler panicked", "method", req.Method, "id", req.ID, "panic", v, "stack", string(debug.Stack()))
			result, err = nil, ErrInternal("internal error: the handler for "+req.Method+" panicked")
		}
	}()
	return c.handler.Handle(ctx, req)
}

// deliver hands a response to the Call waiting for it.
func (c *Conn) deliver(m *Message) {
	n, ok := m.ID.Int()
	var p *call
	if ok {
		c.mu.Lock()
		p = c.pending[n]
		delete(c.pending, n)
		c.mu.Unlock()
	}
	switch {
	case p != nil:
		if m.Error != nil {
			p.ch <- response{err: m.Error}
		} else {
			p.ch <- response{result: m.Result}
		}
	case m.ID.IsZero():
		c.log.Warn("jsonrpc: peer reported an error without an id", "code", m.Error.Code, "message", m.Error.Message)
	default:
		c.log.Debug("jsonrpc: response dropped: no call waits for it", "id", m.ID)
	}
}

// send writes a frame the Conn originates, logging a failure: there is
// nobody to return it to.
func (c *Conn) send(ctx context.Context, frame []byte) {
	if err := c.write(ctx, frame); err != nil && !c.closed.Load() {
		c.log.Warn("jsonrpc: cannot send", "err", err)
	}
}

// batch collects the responses to the requests of one incoming batch.
type batch struct {
	mu   sync.Mutex
	open int    // handlers still running, plus one while the read loop adds
	out  []byte // '[' and the responses so far, separated by commas
}

// add appends a response, unless skip.
func (b *batch) add(id ID, result []byte, e *Error, skip bool) {
	if skip {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.out) > 1 {
		b.out = append(b.out, ',')
	}
	if e != nil {
		b.out = AppendError(b.out, id, e)
	} else {
		b.out = AppendResult(b.out, id, result)
	}
}

// finish marks one handler, or the read loop, done, and sends the batch
// response once all are. A batch of notifications gets no response.
func (b *batch) finish(c *Conn, ctx context.Context) {
	b.mu.Lock()
	b.open--
	last := b.open == 0
	b.mu.Unlock()
	if last && len(b.out) > 1 {
		c.send(ctx, append(b.out, ']'))
	}
}
