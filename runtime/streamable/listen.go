package streamable

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ServeOptions configure Serve. The zero ServeOptions are ready to use:
// each field left zero takes the default its comment gives.
//
// A Handler or LegacyHandler serving under these timeouts takes them per
// step, so that they never cut a long SSE stream or a slow call:
// ReadTimeout is lifted once the request's body is read, and
// WriteTimeout bounds each write rather than the whole response. The
// same holds under an http.Server of one's own with ReadTimeout and
// WriteTimeout set.
type ServeOptions struct {
	// ReadHeaderTimeout bounds reading a request's headers, counted for
	// a new connection from its accept and for a kept-alive one from
	// the first byte of its next request. Zero means
	// DefaultReadHeaderTimeout; negative means none.
	ReadHeaderTimeout time.Duration

	// ReadTimeout bounds reading a whole request, headers and body: a
	// client sending its body too slowly gets 400 and its connection
	// is closed. Zero means DefaultReadTimeout; negative means none.
	ReadTimeout time.Duration

	// WriteTimeout bounds each write of a response: a client that stops
	// reading for that long loses its connection. Zero means
	// DefaultWriteTimeout; negative means none.
	WriteTimeout time.Duration

	// IdleConnTimeout is how long a kept-alive connection may wait for its
	// next request before it is closed. Zero means
	// DefaultIdleConnTimeout; negative means none, which lets idle
	// connections hold every slot of MaxConns.
	IdleConnTimeout time.Duration

	// MaxConns bounds the connections open at once. At the bound, the
	// connection idle the longest between requests is closed to make
	// room (a client reconnects, as it does after an idle timeout), so
	// that parked keep-alive connections cannot starve new clients;
	// when none is idle, new connections wait, the first accepted and
	// the rest in the kernel's accept queue (the listen backlog, holding
	// no file descriptor of the process), until an open one closes: a
	// burst of clients is served
	// late rather than failed, and the timeouts above free the slots
	// of slow ones. Zero means DefaultMaxConns, lowered to leave 64 of
	// the process's file descriptors (RLIMIT_NOFILE) for the listener
	// and its files; negative means no bound.
	MaxConns int

	// ShutdownTimeout is the grace period of a shutdown: how long calls
	// in progress when ctx ends may take to finish. Zero means
	// DefaultShutdownTimeout; negative means none, so that the calls
	// still running are cancelled at once.
	ShutdownTimeout time.Duration

	// Shutdown lists what a shutdown ends gracefully, within
	// ShutdownTimeout, before the server stops: the *Handler,
	// *LegacyHandler or *Mux that h routes to, when h is a mux or
	// middleware of the user's that hides them. Empty means h itself
	// when it is a Shutdowner (else, when it is an io.Closer, it is
	// closed).
	Shutdown []Shutdowner
}

// Shutdowner is an http.Handler that shuts down gracefully: it stops
// taking work and waits, until ctx ends, for the work in progress.
// *Handler, *LegacyHandler and *Mux are Shutdowners.
type Shutdowner interface {
	Shutdown(ctx context.Context) error
}

// Defaults for ServeOptions left zero.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleConnTimeout   = time.Minute
	DefaultMaxConns          = 1024 // see ServeOptions.MaxConns
	DefaultShutdownTimeout   = 10 * time.Second
)

// flushTimeout bounds the wait, after the grace period, for responses
// still being written out when a shutdown ends.
const flushTimeout = 5 * time.Second

// ListenAndServe serves h on addr with the default ServeOptions until
// ctx ends, as Serve does. It listens as Listen does: an addr without a
// host, such as ":3000", binds 127.0.0.1 only.
func ListenAndServe(ctx context.Context, addr string, h http.Handler) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, h, nil)
}

// Listen listens on the TCP address addr, for Serve. An addr without a
// host, such as ":3000", binds 127.0.0.1 only: a local server is not
// exposed to the network unless asked to be, with "0.0.0.0:3000" (every
// IPv4 interface) or "[::]:3000" (every interface). The listener's Addr is
// the address bound, with the port chosen for ":0": the one to log.
func Listen(addr string) (net.Listener, error) {
	return net.Listen("tcp", listenAddr(addr))
}

// Serve serves h on the connections ln accepts until ctx ends, then shuts
// down gracefully within ShutdownTimeout. A handler with a Shutdown
// method, as *Handler and *LegacyHandler have, is shut down first while
// the connections stay open, so that the calls in progress can finish
// and the client's answers to the server's own requests still arrive;
// the connections then get up to five more seconds to write their last
// responses. A handler that is only an io.Closer is closed, and any
// other handler's requests get the grace period to finish. Connections
// still open after that are closed. Serve closes ln. Nil opts are the
// zero ServeOptions. It returns nil after ctx ended and the connections
// closed in time, and the error otherwise.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	srv := o.server(h)
	if o.MaxConns >= 0 {
		l := limitListener(ln, or(o.MaxConns, defaultMaxConns()))
		srv.ConnState = l.ConnState
		ln = l
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	ends := o.Shutdown
	if sh, ok := h.(Shutdowner); ok && len(ends) == 0 {
		ends = []Shutdowner{sh}
	}
	err := shutdown(srv, h, ends, max(or(o.ShutdownTimeout, DefaultShutdownTimeout), 0))
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// shutdown ends what ends lists (else closes h, when it is an io.Closer),
// then srv, as Serve's doc says, within grace.
func shutdown(srv *http.Server, h http.Handler, ends []Shutdowner, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if len(ends) > 0 {
		var wg sync.WaitGroup
		for _, e := range ends {
			// Calls it had to cancel were answered: not a failure of Serve.
			wg.Go(func() { e.Shutdown(ctx) })
		}
		wg.Wait()
		var cancelFlush context.CancelFunc
		ctx, cancelFlush = context.WithTimeout(context.Background(), flushTimeout)
		defer cancelFlush()
	} else if c, ok := h.(io.Closer); ok {
		c.Close()
	}
	err := srv.Shutdown(ctx)
	if err != nil {
		srv.Close() // cut the connections still busy
	}
	return err
}

// server returns the http.Server of h under the options.
func (o *ServeOptions) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: or(o.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       or(o.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      or(o.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       or(o.IdleConnTimeout, DefaultIdleConnTimeout),
	}
}

// or returns v, or def when v is zero. A negative v stays: net/http takes
// a negative timeout as none.
func or[T time.Duration | int](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// listenAddr puts 127.0.0.1 in an address without a host.
func listenAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// limitListener returns ln handing out at most n connections open at
// once. A connection accepted at the bound makes Accept close the one
// idle between requests the longest, if any, or else wait for one to
// close before it returns the new one: a
// client that parks keep-alive connections cannot hold every slot. The
// http.Server must report connection states to ConnState.
func limitListener(ln net.Listener, n int) *limited {
	return &limited{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}), idle: map[*slotConn]time.Time{}, idled: make(chan struct{}, 1)}
}

type limited struct {
	net.Listener
	slots chan struct{} // a token per open connection
	done  chan struct{} // closed by Close
	once  sync.Once

	mu    sync.Mutex
	idle  map[*slotConn]time.Time // kept-alive connections between requests, and since when
	idled chan struct{}           // signalled when a connection turns idle
}

func (l *limited) Accept() (net.Conn, error) {
	// Accept first: only a client that has come may push an idle one
	// out. This one connection waits for its slot beyond the bound.
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for taken := false; !taken; {
		if len(l.slots) == cap(l.slots) {
			if old := l.oldestIdle(); old != nil {
				old.Close() // frees its slot
			}
		}
		select {
		case l.slots <- struct{}{}:
			taken = true
		case <-l.idled: // look again
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
	sc := &slotConn{Conn: c}
	sc.release = func() {
		l.setIdle(sc, false)
		<-l.slots
	}
	return sc, nil
}

// ConnState is the http.Server's ConnState hook: it tracks which
// connections are idle.
func (l *limited) ConnState(c net.Conn, st http.ConnState) {
	if sc, ok := c.(*slotConn); ok {
		l.setIdle(sc, st == http.StateIdle)
	}
}

func (l *limited) setIdle(c *slotConn, idle bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if idle {
		l.idle[c] = time.Now()
		select {
		case l.idled <- struct{}{}:
		default:
		}
	} else {
		delete(l.idle, c)
	}
}

// oldestIdle returns the connection idle the longest, or nil.
func (l *limited) oldestIdle() *slotConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var oldest *slotConn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	delete(l.idle, oldest)
	return oldest
}

func (l *limited) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn is a connection holding a slot of a limited listener until it
// is closed.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite lets net/http half-close a TCP connection after an error
// response, so that the client reads the response before the reset.
func (c *slotConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// defaultMaxConns is DefaultMaxConns, lowered to leave 64 file
// descriptors of the process's limit to the listener and its files: a
// server that runs out of them cannot even accept to turn clients away.
func defaultMaxConns() int {
	if n := fdLimit(); n > 0 {
		return max(min(DefaultMaxConns, n-64), 1)
	}
	return DefaultMaxConns
}
