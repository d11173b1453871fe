package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// DialOptions configure DialClientTransport. The zero DialOptions are
// ready to use.
type DialOptions struct {
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client

	// Header is added to every request, for credentials and the like.
	Header http.Header

	// MaxMessageBytes bounds one incoming message. Zero means
	// DefaultMaxBodyBytes.
	MaxMessageBytes int64
}

// DialClientTransport returns a client transport for an MCP server URL
// that may speak Streamable HTTP or the HTTP+SSE transport of 2024-11-05,
// telling them apart as the 2025-03-26 specification's backwards
// compatibility rule says. The first Write, which is the initialize
// request when the transport is given to client.Connect, is POSTed to
// url as Streamable HTTP. When the server refuses it with 400, 404 or
// 405, the transport GETs url instead, expects the endpoint event of an
// HTTP+SSE server, POSTs the initialize there and speaks HTTP+SSE from
// then on. Other refusals, such as 401, reach the caller as the Streamable
// HTTP transport reports them: no GET is tried.
//
// ctx bounds the probe, besides the first Write's own ctx; the session
// that follows does not depend on it.
func DialClientTransport(ctx context.Context, rawURL string, opts *DialOptions) (jsonrpc.Transport, error) {
	return dial(ctx, rawURL, opts, nil)
}

func dial(ctx context.Context, rawURL string, opts *DialOptions, streamable func(string, *DialOptions) jsonrpc.Transport) (jsonrpc.Transport, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("dial MCP server: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("dial MCP server %s: the scheme must be http or https", u.Redacted())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if streamable == nil {
		streamable = streamableClient
	}
	p := &probe{url: rawURL, streamable: streamable, chosen: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(ctx)
	if opts != nil {
		p.opts = *opts
	}
	return p, nil
}

// probe is the transport DialClientTransport returns: it picks the
// transport the server speaks on the first Write and hands everything to
// it from then on.
type probe struct {
	url        string
	opts       DialOptions
	ctx        context.Context // bounds the probe: from the dial's ctx, ended by Close
	cancel     context.CancelFunc
	streamable func(string, *DialOptions) jsonrpc.Transport

	writeMu  sync.Mutex    // held by the Write that probes
	serialMu sync.Mutex    // held by a Write to a chosen transport that is no ConcurrentWriter
	chosen   chan struct{} // closed once t or err is set
	mu       sync.Mutex
	t        jsonrpc.Transport
	read     [][]byte // frames t returned during the probe, for Read
	err      error    // why there is no transport
}

// settled returns the chosen transport, or why there is none, or nils
// while the probe has not run.
func (p *probe) settled() (jsonrpc.Transport, error) {
	select {
	case <-p.chosen:
		return p.t, p.err
	default:
		return nil, nil
	}
}

// settle records the outcome of the probe and reports true, unless Close
// came first: then it closes t and reports false.
func (p *probe) settle(t jsonrpc.Transport, read [][]byte, err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.chosen:
		if t != nil {
			t.Close()
		}
		return false
	default:
	}
	p.t, p.read, p.err = t, read, err
	close(p.chosen)
	return true
}

// Read implements jsonrpc.Transport. Until the first Write has chosen
// the transport, it waits.
func (p *probe) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-p.chosen:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.t == nil {
		return nil, p.err
	}
	p.mu.Lock()
	if len(p.read) > 0 {
		f := p.read[0]
		p.read = p.read[1:]
		p.mu.Unlock()
		return f, nil
	}
	p.mu.Unlock()
	return p.t.Read(ctx)
}

// Write implements jsonrpc.Transport.
func (p *probe) Write(ctx context.Context, frame []byte) error {
	if t, err := p.settled(); t != nil || err != nil {
		if t == nil {
			return err
		}
		return p.writeTo(ctx, t, frame)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if t, err := p.settled(); t != nil || err != nil { // another Write probed meanwhile
		if t == nil {
			return err
		}
		return p.writeTo(ctx, t, frame)
	}
	t, read, err := p.run(ctx, frame)
	p.cancel() // the probe is over either way
	if !p.settle(t, read, err) {
		return jsonrpc.ErrClosed
	}
	return err
}

// The probe lets its Conn write concurrently and take replies on the
// writing goroutine, as the Streamable HTTP transport it mostly picks
// does; writeTo keeps the HTTP+SSE one to a Write at a time.
func (p *probe) WritesConcurrently() {}
func (p *probe) RepliesDirectly()    {}

var _ jsonrpc.DirectReplier = (*probe)(nil)

// writeTo hands a Write on to t, the chosen transport: at once, with the
// replies its Write reads going to the Call that wrote, when t takes
// concurrent Writes, else one at a time.
func (p *probe) writeTo(ctx context.Context, t jsonrpc.Transport, frame []byte) error {
	if _, ok := t.(jsonrpc.ConcurrentWriter); !ok {
		p.serialMu.Lock()
		defer p.serialMu.Unlock()
		return t.Write(ctx, frame)
	}
	return t.Write(jsonrpc.ReplyThrough(ctx, p, t), frame)
}

// run sends the first frame Streamable-style, and over HTTP+SSE when the
// server refuses it as an HTTP+SSE server does. It returns the transport
// that carried it, and what that transport has read already.
func (p *probe) run(ctx context.Context, frame []byte) (jsonrpc.Transport, [][]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	st := p.streamable(p.url, &p.opts)
	streamErr := st.Write(ctx, frame)
	if streamErr != nil {
		st.Close()
		if code, ok := statusOf(streamErr); !ok || !legacyStatus(code) {
			return nil, nil, streamErr
		}
	} else if id, ok := firstRequestID(frame); !ok {
		return st, nil, nil // accepted
	} else {
		read, code, err := awaitResponse(ctx, st, id)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		if !legacyStatus(code) {
			return st, read, nil // a response, or a refusal Connect reports
		}
		st.Close()
		streamErr = fmt.Errorf("POST refused with %d %s", code, http.StatusText(code))
	}
	lt := newLegacyClient(p.url, &LegacyClientOptions{
		HTTPClient:      p.opts.HTTPClient,
		Header:          p.opts.Header,
		MaxMessageBytes: p.opts.MaxMessageBytes,
	})
	if err := lt.Write(ctx, frame); err != nil {
		lt.Close()
		return nil, nil, fmt.Errorf("MCP server %s speaks neither transport: Streamable HTTP: %v; HTTP+SSE: %w", p.url, streamErr, err)
	}
	return lt, nil, nil
}

// firstRequestID returns the id of the first request in a frame.
func firstRequestID(frame []byte) (jsonrpc.ID, bool) {
	msgs, _, _ := jsonrpc.DecodeBatch(frame)
	for i := range msgs {
		if msgs[i].Kind() == jsonrpc.MessageRequest {
			return msgs[i].ID, true
		}
	}
	return jsonrpc.ID{}, false
}

// awaitResponse reads t until the response to request id arrives, and
// returns what it read. When that response is the Streamable HTTP
// client's stand-in for a refused POST, code is the HTTP status, which
// it carries as data {"httpStatus": code}; otherwise code is 0.
func awaitResponse(ctx context.Context, t jsonrpc.Transport, id jsonrpc.ID) (read [][]byte, code int, err error) {
	for {
		f, err := t.Read(ctx)
		if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		read = append(read, f)
		msgs, _, _ := jsonrpc.DecodeBatch(f)
		for i := range msgs {
			m := &msgs[i]
			if m.Kind() != jsonrpc.MessageResponse || m.ID != id {
				continue
			}
			if m.Error != nil && m.Error.Data != nil {
				var d struct {
					HTTPStatus int `json:"httpStatus"`
				}
				if json.Unmarshal(m.Error.Data, &d) == nil {
					code = d.HTTPStatus
				}
			}
			return read, code, nil
		}
	}
}

// legacyStatus reports whether a Streamable HTTP POST refused with code
// may have reached an HTTP+SSE server: one that has no POST handler
// there (404, 405) or wants a session id in the query (400).
func legacyStatus(code int) bool {
	switch code {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// Close implements jsonrpc.Transport. A probe in progress fails.
func (p *probe) Close() error {
	p.cancel()
	p.mu.Lock()
	select {
	case <-p.chosen:
	default:
		p.err = jsonrpc.ErrClosed
		close(p.chosen)
	}
	t := p.t
	p.mu.Unlock()
	if t != nil {
		return t.Close()
	}
	return nil
}
