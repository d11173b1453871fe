package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// LegacyClientOptions configure the client side of the HTTP+SSE
// transport. The zero LegacyClientOptions are ready to use.
type LegacyClientOptions struct {
	// HTTPClient sends the requests; nil means http.DefaultClient. Its
	// Timeout, if any, must outlast the session: it bounds the stream.
	HTTPClient *http.Client

	// Header is added to every request, for credentials and the like.
	Header http.Header

	// MaxMessageBytes bounds one event of the stream; a larger message is
	// skipped, and Read reports it with an error wrapping
	// jsonrpc.ErrMessageTooLarge. Zero means DefaultMaxBodyBytes.
	MaxMessageBytes int64
}

// NewLegacyClientTransport returns the client side of the HTTP+SSE
// transport of 2024-11-05 for the server whose SSE endpoint is sseURL.
// It connects on its first Read or Write: it GETs sseURL and waits for
// the endpoint event, whose URL, resolved against sseURL, must have the
// same origin. Then each Write POSTs one frame to that URL, and Read
// returns the "message" events of the stream. Close closes the stream.
func NewLegacyClientTransport(sseURL string, opts *LegacyClientOptions) jsonrpc.Transport {
	return newLegacyClient(sseURL, opts)
}

// legacyClient is the transport NewLegacyClientTransport returns. Its one
// goroutine reads the stream; it starts with the first Read or Write and
// ends with the stream, which Close cuts.
type legacyClient struct {
	url   string
	shown string // url with any password in it hidden, for messages
	opts  LegacyClientOptions
	hc    *http.Client

	ctx    context.Context // the stream's; ends on Close
	cancel context.CancelFunc
	start  sync.Once
	done   chan struct{} // closed when the reading goroutine returns

	ready    chan struct{} // closed once endpoint is set, or the stream failed first
	endpoint *url.URL
	in       chan legacyIncoming // what Read returns
	err      error               // why the stream ended; set before done closes
}

// legacyIncoming is a frame of the stream, or a message skipped for size.
type legacyIncoming struct {
	frame []byte
	err   error
}

func newLegacyClient(sseURL string, opts *LegacyClientOptions) *legacyClient {
	c := &legacyClient{
		url:   sseURL,
		shown: redactURL(sseURL),
		done:  make(chan struct{}),
		ready: make(chan struct{}),
		in:    make(chan legacyIncoming),
	}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxMessageBytes <= 0 {
		c.opts.MaxMessageBytes = DefaultMaxBodyBytes
	}
	c.hc = c.opts.HTTPClient
	if c.hc == nil {
		c.hc = http.DefaultClient
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// connect starts the reading goroutine, once.
func (c *legacyClient) connect() {
	c.start.Do(func() { go c.run() })
}

// awaitEndpoint waits until the endpoint event has arrived and returns
// its URL.
func (c *legacyClient) awaitEndpoint(ctx context.Context) (*url.URL, error) {
	c.connect()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.endpoint == nil {
		<-c.done
		return nil, c.err
	}
	return c.endpoint, nil
}

// Read implements jsonrpc.Transport.
func (c *legacyClient) Read(ctx context.Context) ([]byte, error) {
	c.connect()
	select {
	case m := <-c.in:
		return m.frame, m.err
	case <-c.done:
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements jsonrpc.Transport: it POSTs the frame to the endpoint
// and fails unless the server accepts it.
func (c *legacyClient) Write(ctx context.Context, frame []byte) error {
	ep, err := c.awaitEndpoint(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel) // Close aborts the POST
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.String(), bytes.NewReader(frame))
	if err != nil {
		return err
	}
	c.setHeader(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return jsonrpc.ErrClosed
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return newLegacyStatusError("POST", resp)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // let the connection be reused
	return nil
}

// Close implements jsonrpc.Transport. It closes the stream and waits for
// the reading goroutine to return.
func (c *legacyClient) Close() error {
	c.cancel()
	c.start.Do(func() { // never connected: nothing to wait for
		c.err = jsonrpc.ErrClosed
		close(c.ready)
		close(c.done)
	})
	<-c.done
	return nil
}

func (c *legacyClient) setHeader(req *http.Request) {
	for k, vs := range c.opts.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
}

// run reads the stream until it ends, setting c.err to why.
func (c *legacyClient) run() {
	err := c.read()
	if c.ctx.Err() != nil {
		err = jsonrpc.ErrClosed
	}
	c.err = err
	if c.endpoint == nil {
		close(c.ready)
	}
	close(c.done)
}

func (c *legacyClient) read() error {
	base, err := url.Parse(c.url)
	if err != nil {
		return fmt.Errorf("legacy SSE URL: %w", err)
	}
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return err
	}
	c.setHeader(req)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return newLegacyStatusError("GET", resp)
	}
	if t, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); t != "text/event-stream" {
		return fmt.Errorf("GET %s: the response is %q, not an SSE stream", c.shown, resp.Header.Get("Content-Type"))
	}
	events := newEventScanner(resp.Body, int(c.opts.MaxMessageBytes))
	for {
		ev, err := events.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			if c.endpoint == nil {
				return fmt.Errorf("GET %s: the stream ended without an endpoint event", c.shown)
			}
			return io.EOF
		}
		if ev.data == nil && !ev.tooLarge {
			continue // no data: nothing to dispatch
		}
		name := ev.kind
		if name == "" {
			name = "message"
		}
		if c.endpoint == nil {
			if ev.tooLarge || name != "endpoint" {
				return fmt.Errorf("GET %s: the first event is %q, not endpoint: not an MCP HTTP+SSE server", c.shown, name)
			}
			ep, err := legacyEndpoint(base, string(ev.data))
			if err != nil {
				return err
			}
			c.endpoint = ep
			close(c.ready)
			continue
		}
		if name != "message" {
			continue // another endpoint event, or one MCP does not define
		}
		m := legacyIncoming{frame: ev.data}
		if ev.tooLarge {
			m = legacyIncoming{err: fmt.Errorf("an SSE event over %d bytes, the limit set by LegacyClientOptions.MaxMessageBytes: %w", c.opts.MaxMessageBytes, jsonrpc.ErrMessageTooLarge)}
		}
		select {
		case c.in <- m:
		case <-c.ctx.Done():
			return nil
		}
	}
}

// legacyEndpoint resolves the data of an endpoint event against the SSE
// URL. A server may not send the client's messages, with whatever
// credentials Header holds, to another origin.
func legacyEndpoint(base *url.URL, data string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("the endpoint event holds no URL: %w", err)
	}
	ep := base.ResolveReference(ref)
	if !strings.EqualFold(ep.Scheme, base.Scheme) || !strings.EqualFold(ep.Host, base.Host) {
		return nil, fmt.Errorf("the endpoint event names %s, whose origin differs from the SSE URL's", ep.Redacted())
	}
	return ep, nil
}

// legacyStatusError is the error of a request the server refused.
type legacyStatusError struct {
	method string
	code   int
	msg    string
}

func newLegacyStatusError(method string, resp *http.Response) *legacyStatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &legacyStatusError{method: method, code: resp.StatusCode, msg: strings.TrimSpace(string(body))}
}

func (e *legacyStatusError) Error() string {
	s := e.method + ": " + http.StatusText(e.code) + " (" + fmt.Sprint(e.code) + ")"
	if e.msg != "" {
		s += ": " + e.msg
	}
	return s
}
