package jsonrpc

import (
	"cmp"
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
// Conn shuts down. At most Options.MaxInFlight run at once; the requests
// read beyond that wait, in the order they came, in a queue of
// Options.MaxQueued, and the read loop reads on, so that responses to the
// Conn's own Calls and cancellations are never held up by busy handlers.
//
// Notifications (req.ID zero) are handled one at a time, in the order they
// arrive, on the Conn's read loop (or, behind an Options.Barrier request,
// once it is answered), so that a notification is never overtaken by a
// message sent after it; what Handle returns is dropped. A notification
// handler must therefore return quickly and must not wait for a Call on
// the same Conn, whose response the blocked read loop would never read: it
// should start its own goroutine for longer work.
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
	// MaxInFlight bounds the incoming requests handled at once. Zero or
	// less means DefaultMaxInFlight.
	MaxInFlight int

	// MaxQueued bounds the incoming requests that wait, read but not yet
	// started, for a handler to finish (or for a Barrier request). A
	// request beyond it is answered at once with a -32603 error saying
	// the server is busy. Zero or less means DefaultMaxQueued.
	MaxQueued int

	// MaxQueuedBytes bounds the params the waiting requests hold: a
	// request that would go beyond it is refused as busy, though one
	// alone always fits (the transport bounds each message). Zero or
	// less means DefaultMaxQueuedBytes.
	MaxQueuedBytes int

	// Barrier, when set, names the methods whose requests the Conn
	// handles before anything read after them: requests and notifications
	// that arrive while such a request waits or runs are held, in order,
	// until it has been answered. MCP makes initialize one, so that a
	// client that writes its first requests without waiting for the
	// initialize result has them served once it completes.
	Barrier func(method string) bool

	// Urgent, when set, names cheap methods whose requests, when
	// MaxInFlight handlers are running, still start at once (up to 16
	// beside the bound) instead of waiting behind the queue: MCP makes
	// ping one, so that a liveness check is answered while long calls
	// fill every slot.
	Urgent func(method string) bool

	// RejectBatches makes the Conn answer an incoming batch with one
	// -32600 error instead of handling it, for protocol versions that
	// forbid batches. By default batches are served: a batch of requests
	// gets a batch of responses, in the order the handlers finish.
	RejectBatches bool

	// FirstID is the id before the first request Call sends: they are
	// numbered FirstID+1, FirstID+2, and so on. Replicas that serve one
	// session each send requests to the same client, so each starts from
	// a base of its own for no two to send the same id.
	FirstID int64

	// Logger receives what the Conn cannot tell its peer: handler panics,
	// failed writes, responses nobody waits for. Nil discards it.
	Logger *slog.Logger

	// DrainTimeout bounds a graceful shutdown: how long Run waits, once
	// the peer has finished sending or Run's ctx has ended, for the
	// requests already read to be answered (queued ones are still started)
	// before it shuts down. Meanwhile the Conn reads on when it can, so
	// that the peer's answers to the handlers' own Calls arrive, and
	// answers requests read after the shutdown began with a -32603 error.
	// The requests still unanswered when it is over get a -32603 error
	// saying the server shut down, and their handlers' ctx is cancelled.
	// Zero means DefaultDrainTimeout; a negative value does not wait.
	DrainTimeout time.Duration

	// OnDrain, when set, is called once a graceful shutdown begins, before
	// the wait: for handlers that would otherwise run until cancelled (MCP
	// ends its subscriptions there).
	OnDrain func()

	// OnCancel, when set, is called by Call, on the caller's goroutine,
	// after ctx ended while the peer had the request, with the id the
	// request went out with. The MCP layer sends notifications/cancelled
	// from it.
	OnCancel func(id ID)
}

// DefaultDrainTimeout is the grace period of a graceful shutdown when
// Options.DrainTimeout is zero.
const DefaultDrainTimeout = 10 * time.Second

// DefaultMaxInFlight is the bound on concurrent incoming requests when
// Options.MaxInFlight is zero.
const DefaultMaxInFlight = 256

// DefaultMaxQueued is the bound on incoming requests waiting to start when
// Options.MaxQueued is zero.
const DefaultMaxQueued = 1024

// DefaultMaxQueuedBytes is the bound on the params of the requests waiting
// to start when Options.MaxQueuedBytes is zero.
const DefaultMaxQueuedBytes = 64 << 20

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
	nextID  atomic.Int64
	// rejectBatches starts as Options.RejectBatches; SetRejectBatches
	// changes it, for protocols that negotiate batch support.
	rejectBatches atomic.Bool
	closed        atomic.Bool
	concurrent    bool            // t is a ConcurrentWriter
	direct        *replyTo        // for the Writes of Call, when t is a DirectReplier
	writeMu       sync.Mutex      // keeps frames whole, unless t is a ConcurrentWriter
	runCtx        context.Context // the read loop's and handlers': Run's ctx's values, ended by shutdown
	runParent     context.Context // Run's ctx: once it ends, new requests are refused
	done          chan struct{}   // closed when Run has finished, or was never started before Close
	stop          chan struct{}   // closed when the Conn shuts down
	// idle hands a request to a handler goroutine waiting for one
	// (launch); idleWorkers counts those waiting.
	idle        chan *inflight
	idleWorkers atomic.Int32
	drainOnce   sync.Once
	handlers    sync.WaitGroup // a count per request read and not yet answered or dropped

	mu       sync.Mutex
	pending  map[int64]chan response // outgoing requests by id; each channel gets one response
	incoming map[ID]*inflight        // incoming requests read and not yet answered
	closeErr error                   // why the Conn shut down, once it has
	running  bool                    // Run has been called
	cancel   context.CancelFunc      // ends Run's ctx
	eof      error                   // set once the peer has finished sending: Calls cannot be answered
	// unanswered counts the requests read whose answer has not been sent
	// (incoming forgets a request before its answer is written); quiet is
	// closed when it reaches zero, for a drain waiting on it, nil unless
	// one waits.
	unanswered int
	quiet      chan struct{}

	// The schedule of incoming requests, guarded by mu: see admit.
	active      int         // handler goroutines
	waiting     []*inflight // requests read while active was at MaxInFlight, oldest first
	held        []*inflight // what was read while a barrier was pending, oldest first; notifications have a zero id
	barrier     bool        // a Barrier request waits or runs
	urgent      int         // Urgent requests running beside the in-flight bound
	replaying   bool        // held is being dispatched
	queuedBytes int         // the params of waiting and held, which MaxQueuedBytes bounds
}

// NewConn returns a Conn over t that hands incoming messages to h. A nil h
// answers every request with -32601 and ignores notifications. Call Run to
// start reading.
func NewConn(t Transport, h Handler, opts Options) *Conn {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	if opts.MaxQueuedBytes <= 0 {
		opts.MaxQueuedBytes = DefaultMaxQueuedBytes
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
		done:    make(chan struct{}),
		stop:    make(chan struct{}),
		idle:    make(chan *inflight),
	}
	_, c.concurrent = t.(ConcurrentWriter)
	if _, ok := t.(DirectReplier); ok {
		c.direct = &replyTo{c: c, t: t}
	}
	c.rejectBatches.Store(opts.RejectBatches)
	c.nextID.Store(opts.FirstID)
	return c
}

// Run reads and dispatches messages until the transport reaches its end,
// ctx ends, a read fails or Close is called; then it shuts the Conn down
// and returns. The peer finishing sending and ctx ending begin a graceful
// shutdown (see Options.DrainTimeout): the requests already read are
// still answered. Run returns nil after the peer closed the transport or
// Close was called (also before Run), ctx.Err() when ctx ended, and the
// read error otherwise. The handlers' ctx carries ctx's values.
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
	// The read loop and the handlers outlive ctx by the grace period.
	c.runCtx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.runParent = ctx
	c.mu.Unlock()
	defer close(c.done)
	stop := context.AfterFunc(ctx, func() {
		c.drain()
		c.shutdown(context.Cause(ctx))
	})
	defer stop()

	err := c.readLoop(c.runCtx)
	switch {
	case c.closed.Load(): // Close or the shutdown on ctx made the read fail
		err = ctx.Err()
	case errors.Is(err, ErrClosed): // the transport was closed on this side
		c.shutdown(nil)
		err = ctx.Err()
	case errors.Is(err, io.EOF):
		c.peerDone(err)
		c.drain()
		c.shutdown(err)
		err = nil
	default:
		c.shutdown(err)
		err = fmt.Errorf("jsonrpc: read: %w", err)
	}
	if stop() {
		return err
	}
	// ctx ended meanwhile: its drain may still run; wait for it so that
	// Run returns after the shutdown.
	<-c.stop
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// peerDone notes that the peer has finished sending: the Calls waiting
// for its answers fail now, and later ones at once.
func (c *Conn) peerDone(cause error) {
	c.mu.Lock()
	c.eof = fmt.Errorf("%w: the peer has stopped sending: %w", ErrClosed, cause)
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, p := range pending {
		p <- response{err: c.eof}
	}
}

// drain waits, up to Options.DrainTimeout, for the requests read so far to
// be answered, then tells the peer of those still unanswered.
func (c *Conn) drain() {
	c.drainOnce.Do(func() {
		if c.opts.OnDrain != nil {
			c.opts.OnDrain()
		}
	})
	d := c.opts.DrainTimeout
	if d == 0 {
		d = DefaultDrainTimeout
	}
	if d > 0 {
		// Not c.handlers.Wait: the read loop may go on adding to it.
		c.mu.Lock()
		quiet := c.quietLocked()
		c.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-quiet:
		case <-t.C:
		case <-c.stop:
		}
		t.Stop()
	}
	c.farewell()
}

// quietLocked returns a channel closed once the answer of every request
// read has been sent (or dropped), which answer closes. c.mu is held.
func (c *Conn) quietLocked() <-chan struct{} {
	if c.unanswered == 0 {
		return closedChan
	}
	if c.quiet == nil {
		c.quiet = make(chan struct{})
	}
	return c.quiet
}

var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// errShutDown answers the requests a shutting-down Conn does not serve.
var errShutDown = ErrInternal("the server is shutting down: the request was not completed")

// farewell answers every request still unanswered with errShutDown; their
// handlers' answers, should they come, are dropped.
func (c *Conn) farewell() {
	c.mu.Lock()
	var ids []ID
	for id, inf := range c.incoming {
		if !inf.dropped && inf.batch == nil {
			inf.dropped = true
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.send(c.runCtx, AppendError(nil, id, errShutDown))
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
	close(c.stop)
	// What never started is dropped: its handler will not run.
	unstarted := append(c.waiting, c.held...)
	c.waiting, c.held, c.queuedBytes = nil, nil, 0
	for _, inf := range unstarted {
		if !inf.req.ID.IsZero() {
			delete(c.incoming, inf.req.ID)
			c.unanswered--
		}
	}
	c.mu.Unlock()

	if cancel != nil {
		cancel() // ends the read and every handler's ctx
	}
	for _, inf := range unstarted {
		if inf.cancel != nil {
			inf.cancel()
			c.handlers.Done()
		}
	}
	err := c.t.Close()
	for _, p := range pending {
		p <- response{err: c.closeErr}
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
	p := make(chan response, 1)
	c.mu.Lock()
	if err := cmp.Or(c.closeErr, c.eof); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if c.pending == nil { // made on first use: a Conn that never calls has none
		c.pending = make(map[int64]chan response)
	}
	c.pending[n] = p
	c.mu.Unlock()

	frame := AppendRequest(make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"method":"","params":}`)+20+len(method)+len(params)), IntID(n), method, params)
	wctx := ctx
	if c.direct != nil {
		wctx = context.WithValue(ctx, replyKey{}, c.direct)
	}
	if err := c.write(wctx, frame); err != nil {
		if !c.forget(n) {
			<-p // shut down meanwhile: take the error it sent
		}
		return nil, err
	}
	select {
	case r := <-p:
		return r.result, r.err
	case <-ctx.Done():
	}
	if !c.forget(n) {
		// The response, or the shutdown, won the race: use it.
		r := <-p
		return r.result, r.err
	}
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
// peer has said it no longer wants it. A request still waiting to start
// never starts. The MCP layer calls it on notifications/cancelled.
// Unknown ids are ignored.
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
// id until it has been answered (while it waits to start, too), and false
// afterwards or for an id the Conn has not received. A request is known
// from the moment the read loop has read it, so a notification read after
// it always finds it.
func (c *Conn) IncomingMethod(id ID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if inf := c.incoming[id]; inf != nil {
		return inf.req.Method, true
	}
	return "", false
}

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
	if !c.concurrent {
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
			if c.failSkippedResponse(err) {
				c.log.Warn("jsonrpc: a response skipped for its size; its call fails", "err", err)
				continue
			}
			// The transport skipped it; say so, though without an id.
			c.log.Warn("jsonrpc: incoming message skipped", "err", err)
			c.send(ctx, AppendError(nil, ID{}, invalidRequest(err.Error())))
			continue
		}
		c.dispatch(ctx, &d, frame)
		d.s.Reset(nil) // hold no frame while waiting for the next
	}
}

// dispatch handles one frame.
func (c *Conn) dispatch(ctx context.Context, d *decoder, frame []byte) {
	d.s.Reset(frame)
	if d.s.Peek() == KindArray {
		c.dispatchBatch(ctx, d)
		return
	}
	m, err := d.message()
	if err != nil {
		c.send(ctx, AppendError(nil, m.ID, err))
		return
	}
	c.dispatchMessage(ctx, &m, nil)
}

func (c *Conn) dispatchMessage(ctx context.Context, m *Message, b *batch) {
	switch m.Kind() {
	case MessageRequest:
		c.start(ctx, m, b)
	case MessageNotification:
		c.notification(ctx, &Request{Method: m.Method, Params: m.Params, Conn: c})
	case MessageResponse:
		c.deliver(m)
	}
}

func (c *Conn) dispatchBatch(ctx context.Context, d *decoder) {
	msgs, invalid, err := d.batch()
	if err != nil {
		c.send(ctx, AppendError(nil, ID{}, err))
		return
	}
	if c.rejectBatches.Load() {
		c.send(ctx, AppendError(nil, ID{}, invalidRequest("batches are not supported")))
		return
	}
	b := &batch{open: 1, out: []byte{'['}} // the read loop holds one count until it is done
	for _, e := range invalid {
		b.add(e.ID, nil, e.Err, false)
	}
	for i := range msgs {
		c.dispatchMessage(ctx, &msgs[i], b)
	}
	b.finish(c, ctx)
}

// inflight is an incoming request read and not yet answered, or a
// notification held behind a barrier (its id is zero, its cancel nil).
type inflight struct {
	req     Request
	ctx     context.Context // the handler's
	cancel  context.CancelFunc
	batch   *batch // the batch the request came in, or nil
	barrier bool   // Options.Barrier names its method
	urgent  bool   // Options.Urgent names its method
	beside  bool   // it runs beside the in-flight bound, as urgent
	dropped bool   // the peer cancelled it, or the Conn answered it: send no response; guarded by Conn.mu
}

// Why a request is answered without being handled.
var (
	errBusy     = ErrInternal("the server is busy: too many requests are waiting to be handled; retry later")
	errDraining = ErrInternal("the server is shutting down: it takes no new requests")
)

// start schedules the handler of a request: at once, or after the
// requests and barrier ahead of it. The read loop never waits here.
func (c *Conn) start(ctx context.Context, m *Message, b *batch) {
	inf := &inflight{req: Request{ID: m.ID, Method: m.Method, Params: m.Params, Conn: c}, batch: b}
	inf.barrier = c.opts.Barrier != nil && c.opts.Barrier(m.Method)
	inf.urgent = c.opts.Urgent != nil && c.opts.Urgent(m.Method)
	c.mu.Lock()
	var refuse *Error
	switch {
	case c.incoming[m.ID] != nil:
		refuse = invalidRequest("request id " + m.ID.String() + " is already in use")
	case c.closeErr != nil || c.runParent.Err() != nil: // shut down, or draining since Run's ctx ended
		refuse = errDraining
	case c.mustWait() && c.queueFull(len(m.Params)):
		refuse = errBusy
	}
	if refuse != nil {
		c.mu.Unlock()
		if b != nil {
			b.add(m.ID, nil, refuse, false)
		} else {
			c.send(ctx, AppendError(nil, m.ID, refuse))
		}
		return
	}
	if c.incoming == nil { // made on first use
		c.incoming = make(map[ID]*inflight)
	}
	c.incoming[m.ID] = inf
	c.unanswered++
	inf.ctx, inf.cancel = context.WithCancel(context.WithValue(ctx, requestKey{}, &inf.req))
	c.handlers.Add(1)
	if b != nil {
		b.mu.Lock()
		b.open++
		b.mu.Unlock()
	}
	launch := c.admit(inf)
	c.mu.Unlock()
	if launch {
		c.launch(inf)
	}
}

// queueFull reports whether a message of n bytes of params finds no room
// among those waiting: Options.MaxQueued of them, or MaxQueuedBytes,
// though one alone always fits. c.mu is held.
func (c *Conn) queueFull(n int) bool {
	return len(c.waiting)+len(c.held) >= c.opts.MaxQueued ||
		c.queuedBytes > 0 && c.queuedBytes+n > c.opts.MaxQueuedBytes
}

// mustWait reports whether what is read now cannot be dispatched at once:
// a barrier is pending, or what it held is being dispatched. c.mu is held.
func (c *Conn) mustWait() bool {
	return c.barrier || c.replaying || c.active >= c.opts.MaxInFlight || len(c.waiting) > 0
}

// admit places a registered request in the schedule: it reports whether
// the caller must start its handler goroutine now; otherwise the request
// waits, behind a barrier in held or for room in waiting, and a handler
// goroutine that finishes starts it. c.mu is held.
func (c *Conn) admit(inf *inflight) (launch bool) {
	if c.barrier || c.replaying {
		c.held = append(c.held, inf)
		c.queuedBytes += len(inf.req.Params)
		return false
	}
	if inf.barrier {
		c.barrier = true
	}
	if c.active < c.opts.MaxInFlight && len(c.waiting) == 0 {
		c.active++
		return true
	}
	if inf.urgent && c.urgent < maxUrgent {
		c.urgent++
		inf.beside = true
		return true
	}
	c.waiting = append(c.waiting, inf)
	c.queuedBytes += len(inf.req.Params)
	return false
}

// maxUrgent bounds the Options.Urgent requests started beside the
// in-flight bound; beyond it they wait like any other.
const maxUrgent = 16

// notification handles a notification on the read loop, in order with
// everything read before it: after a pending barrier, with what it held.
func (c *Conn) notification(ctx context.Context, req *Request) {
	c.mu.Lock()
	if c.barrier || c.replaying {
		if c.queueFull(len(req.Params)) {
			c.mu.Unlock()
			c.log.Warn("jsonrpc: notification dropped: too many messages wait behind a barrier", "method", req.Method)
			return
		}
		c.held = append(c.held, &inflight{req: *req, ctx: ctx})
		c.queuedBytes += len(req.Params)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.handle(ctx, req)
}

// Handler goroutines outlive their request for a while, so that the
// next one starts on a stack already grown: an MCP handler's calls go
// deep, and a new goroutine per request would copy its stack to a larger
// one several times over for each. At most maxIdleWorkers wait at once,
// each for up to workerIdleTime.
const (
	maxIdleWorkers = 16
	workerIdleTime = time.Second
)

// launch runs inf's handler on a handler goroutine waiting for work, or
// on a new one when none waits.
func (c *Conn) launch(inf *inflight) {
	select {
	case c.idle <- inf:
	default:
		go c.work(inf)
	}
}

// work serves inf, then the requests launch hands it while it waits, if
// it may wait; it ends after workerIdleTime without one, or when the
// Conn shuts down.
func (c *Conn) work(inf *inflight) {
	c.serve(inf)
	var t *time.Timer
	for c.idleWorkers.Add(1) <= maxIdleWorkers {
		if t == nil {
			t = time.NewTimer(workerIdleTime)
			defer t.Stop()
		} else {
			t.Reset(workerIdleTime)
		}
		select {
		case inf = <-c.idle:
			c.idleWorkers.Add(-1)
			c.serve(inf)
			continue
		case <-t.C:
		case <-c.stop:
		}
		break
	}
	c.idleWorkers.Add(-1)
}

// serve runs handlers on one goroutine: inf's, then those of the requests
// waiting for room, while there are any.
func (c *Conn) serve(inf *inflight) {
	for inf != nil {
		c.answer(inf)
		inf = c.next(inf)
	}
}

// answer runs the handler of a request, unless it was cancelled while it
// waited, and sends its response.
func (c *Conn) answer(inf *inflight) {
	var result []byte
	var err error
	if inf.ctx.Err() == nil {
		result, err = c.handle(inf.ctx, &inf.req)
	}
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
	// Only now, the answer sent, may a drain waiting for quiet go on to
	// close the transport.
	c.mu.Lock()
	c.unanswered--
	if c.unanswered == 0 && c.quiet != nil {
		close(c.quiet)
		c.quiet = nil
	}
	c.mu.Unlock()
}

// next ends the schedule's part in done: a barrier's end releases what it
// held. It returns the request the calling goroutine handles next, or nil
// when none waits and the goroutine is to end.
func (c *Conn) next(done *inflight) *inflight {
	if done.barrier {
		c.mu.Lock()
		c.barrier = false
		c.replaying = len(c.held) > 0
		c.mu.Unlock()
		c.replay()
	}
	c.handlers.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if done.beside {
		c.urgent--
		return nil // it held no slot to hand on
	}
	if len(c.waiting) > 0 {
		inf := c.waiting[0]
		c.waiting[0] = nil
		c.queuedBytes -= len(inf.req.Params)
		c.waiting = c.waiting[1:]
		if len(c.waiting) == 0 {
			c.waiting = nil // drop the array, which may be large
		}
		return inf
	}
	c.active--
	return nil
}

// replay dispatches what a barrier held, in order, until it is all
// dispatched or a barrier among it holds the rest. Read-loop dispatch
// holds new messages meanwhile (c.replaying), so order is kept.
func (c *Conn) replay() {
	for {
		c.mu.Lock()
		if c.barrier || len(c.held) == 0 || c.closeErr != nil {
			c.replaying = false
			c.mu.Unlock()
			return
		}
		inf := c.held[0]
		c.held[0] = nil
		c.queuedBytes -= len(inf.req.Params)
		c.held = c.held[1:]
		if inf.req.ID.IsZero() {
			c.mu.Unlock()
			c.handle(inf.ctx, &inf.req)
			continue
		}
		c.replaying = false // admit must not hold it again
		launch := c.admit(inf)
		// A barrier holds the rest, and its end replays them: this
		// replay is over, lest two run at once.
		c.replaying = !inf.barrier
		c.mu.Unlock()
		if launch {
			c.launch(inf)
		}
		if inf.barrier {
			return
		}
	}
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

// failSkippedResponse fails the Call waiting for a response the
// transport skipped for its size, when the start it kept (a TooLargeError)
// shows one: an id, then a result or an error. It reports whether it did.
func (c *Conn) failSkippedResponse(err error) bool {
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		return false
	}
	var s Scanner
	s.Reset(tl.Head)
	if s.ObjectStart() != nil {
		return false
	}
	id, haveID := int64(0), false
	for {
		key, ok, kerr := s.NextKey()
		if kerr != nil || !ok {
			return false // cut before it showed what it is
		}
		switch string(key) {
		case "method":
			return false // a request or a notification
		case "id":
			n, ierr := s.Int64()
			if ierr != nil {
				return false // not an id of this Conn's calls
			}
			id, haveID = n, true
			continue
		case "result", "error":
			if !haveID {
				return false
			}
			c.mu.Lock()
			p := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if p == nil {
				return false
			}
			p <- response{err: fmt.Errorf("jsonrpc: the response was not read: %w", err)}
			return true
		}
		if s.Skip() != nil {
			return false
		}
	}
}

// deliver hands a response to the Call waiting for it.
func (c *Conn) deliver(m *Message) {
	n, ok := m.ID.Int()
	var p chan response
	if ok {
		c.mu.Lock()
		p = c.pending[n]
		delete(c.pending, n)
		c.mu.Unlock()
	}
	switch {
	case p != nil:
		if m.Error != nil {
			p <- response{err: m.Error}
		} else {
			p <- response{result: m.Result}
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
