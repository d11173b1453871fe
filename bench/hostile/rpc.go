package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// message is any JSON-RPC message, decoded loosely: the harness reads
// what servers send, right or wrong.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// isRequest reports whether m is a request of the server to the client.
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// text returns the text of the first content block of a tools/call
// result, or "".
func (m *message) text() string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(m.Result, &r) != nil || len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// request encodes a JSON-RPC request; a nil id makes a notification.
func request(id any, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // the harness's own values always encode
	}
	return b
}

// The protocol version the harness speaks: the legacy era, with
// initialize.
const protocolVersion = "2025-11-25"

// initialize is the initialize request, declaring sampling.
func initialize(id any) []byte {
	return request(id, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{"sampling": map[string]any{}},
		"clientInfo":      map[string]any{"name": "hostile", "version": "1.0.0"},
	})
}

// initialized is the notifications/initialized notification.
func initialized() []byte { return request(nil, "notifications/initialized", nil) }

// call is a tools/call request of tool with args, and a progress token
// when progress is not "".
func call(id any, tool string, args map[string]any, progress string) []byte {
	if args == nil {
		args = map[string]any{}
	}
	p := map[string]any{"name": tool, "arguments": args}
	if progress != "" {
		p["_meta"] = map[string]any{"progressToken": progress}
	}
	return request(id, "tools/call", p)
}

// cancelled is a notifications/cancelled of request id.
func cancelled(id any) []byte {
	return request(nil, "notifications/cancelled", map[string]any{"requestId": id})
}

// answer is the client's reply to a request of the server: a sampling
// result for sampling/createMessage, an empty result for ping, and
// method-not-found otherwise.
func answer(req *message) []byte {
	reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	switch req.Method {
	case "sampling/createMessage":
		reply["result"] = map[string]any{
			"role": "assistant", "model": "hostile",
			"content": map[string]any{"type": "text", "text": "sampled"},
		}
	case "ping":
		reply["result"] = map[string]any{}
	default:
		reply["error"] = rpcError{Code: -32601, Message: "method not found"}
	}
	b, _ := json.Marshal(reply)
	return b
}

// gate holds the client's answers to sampling requests until n of them
// have arrived, or until patience has passed since the first: a client
// whose model takes its time, long enough that a flood of calls has all
// its handlers waiting on the client at once, whatever the timing of the
// run. A nil gate holds nothing.
type gate struct {
	n        int
	patience time.Duration
	mu       sync.Mutex
	seen     int
	open     chan struct{}
	once     sync.Once
}

// newGate returns a gate for n sampling requests.
func newGate(n int) *gate {
	return &gate{n: n, patience: 2 * time.Second, open: make(chan struct{})}
}

// think waits until the client may answer req.
func (g *gate) think(req *message) {
	if g == nil || req.Method != "sampling/createMessage" {
		return
	}
	release := func() { g.once.Do(func() { close(g.open) }) }
	g.mu.Lock()
	g.seen++
	if g.seen == 1 {
		time.AfterFunc(g.patience, release)
	}
	if g.seen >= g.n {
		release()
	}
	g.mu.Unlock()
	<-g.open
}

// peer is the client end of a newline-delimited JSON-RPC stream (a
// server's stdin and stdout). It answers the server's requests with
// answer, hands responses to the calls waiting for them, and counts the
// rest. Writes go through one goroutine in order, so that a server that
// stops reading never blocks the reading side.
type peer struct {
	mu      sync.Mutex
	nextID  int
	waiting map[string]chan *message
	notes   int // notifications read
	queue   [][]byte
	wake    chan struct{} // signalled when queue grows
	done    chan struct{} // closed when the read side ends
	readErr error
	w       io.WriteCloser
	gate    *gate // see hold
}

// newPeer starts a peer on a server's stdout (r) and stdin (w).
func newPeer(r io.Reader, w io.WriteCloser) *peer {
	p := &peer{waiting: make(map[string]chan *message), wake: make(chan struct{}, 1), done: make(chan struct{}), w: w, nextID: 1}
	go p.read(r)
	go p.write()
	return p
}

// read hands each message the server sends to whoever waits for it.
func (p *peer) read(r io.Reader) {
	defer close(p.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			p.dispatch(line)
		}
		if err != nil {
			p.mu.Lock()
			p.readErr = err
			p.mu.Unlock()
			return
		}
	}
}

func (p *peer) dispatch(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.isRequest():
		p.mu.Lock()
		g := p.gate
		p.mu.Unlock()
		go func() {
			g.think(&m)
			p.send(answer(&m))
		}()
	case m.Method != "":
		p.mu.Lock()
		p.notes++
		p.mu.Unlock()
	default:
		p.mu.Lock()
		ch := p.waiting[string(m.ID)]
		delete(p.waiting, string(m.ID))
		p.mu.Unlock()
		if ch != nil {
			ch <- &m
		}
	}
}

// write writes the queued frames in order until the stream breaks.
func (p *peer) write() {
	for {
		select {
		case <-p.wake:
		case <-p.done:
			return
		}
		p.mu.Lock()
		q := p.queue
		p.queue = nil
		p.mu.Unlock()
		for _, f := range q {
			if _, err := p.w.Write(append(f, '\n')); err != nil {
				return
			}
		}
	}
}

// send queues frame for writing.
func (p *peer) send(frame []byte) {
	p.mu.Lock()
	p.queue = append(p.queue, frame)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// request sends the request build makes with a fresh id and returns
// the channel its response arrives on.
func (p *peer) request(build func(id any) []byte) chan *message {
	p.mu.Lock()
	id := p.nextID
	p.nextID++
	ch := make(chan *message, 1)
	p.waiting[strconv.Itoa(id)] = ch
	p.mu.Unlock()
	p.send(build(id))
	return ch
}

// errClosed is returned when the server's stdout ended before its answer.
var errClosed = errors.New("the server closed its output")

// await waits for the response on ch.
func (p *peer) await(ctx context.Context, ch chan *message) (*message, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-p.done:
		select {
		case m := <-ch:
			return m, nil
		default:
			return nil, errClosed
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// call sends the request build makes with a fresh id and waits for its
// response. A JSON-RPC error comes back as an *rpcError.
func (p *peer) call(ctx context.Context, build func(id any) []byte) (*message, error) {
	m, err := p.await(ctx, p.request(build))
	if err == nil && m.Error != nil {
		return m, m.Error
	}
	return m, err
}

// handshake initializes the session.
func (p *peer) handshake(ctx context.Context) error {
	if _, err := p.call(ctx, initialize); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	p.send(initialized())
	return nil
}

// hold has the peer answer sampling requests as g lets it.
func (p *peer) hold(g *gate) {
	p.mu.Lock()
	p.gate = g
	p.mu.Unlock()
}

// closeInput closes the server's stdin.
func (p *peer) closeInput() error { return p.w.Close() }
