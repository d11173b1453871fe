package jsonrpc_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// run starts c.Run and returns a function that closes c and reports what
// Run returned, after every handler has finished.
func run(t *testing.T, c *jsonrpc.Conn) (stop func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			c.Close()
			err = <-done
			c.Wait()
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

var echo = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	return req.Params, nil
})

// pair connects a client Conn to a server Conn running h.
func pair(t *testing.T, h jsonrpc.Handler, clientOpts, serverOpts jsonrpc.Options) (client, server *jsonrpc.Conn) {
	t.Helper()
	a, b := transport.NewPipe()
	client = jsonrpc.NewConn(a, nil, clientOpts)
	server = jsonrpc.NewConn(b, h, serverOpts)
	run(t, client)
	run(t, server)
	return client, server
}

// rawPeer is the far end of a pipe, driven by hand.
type rawPeer struct {
	t  *testing.T
	tr jsonrpc.Transport
}

func (p rawPeer) send(frame string) {
	p.t.Helper()
	if err := p.tr.Write(context.Background(), []byte(frame)); err != nil {
		p.t.Fatalf("raw peer write: %v", err)
	}
}

func (p rawPeer) recv() string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := p.tr.Read(ctx)
	if err != nil {
		p.t.Fatalf("raw peer read: %v", err)
	}
	return string(f)
}

// recvMessage reads one message that must be a single message.
func (p rawPeer) recvMessage() jsonrpc.Message {
	p.t.Helper()
	f := p.recv()
	m, err := jsonrpc.DecodeMessage([]byte(f))
	if err != nil {
		p.t.Fatalf("raw peer got %s: %v", f, err)
	}
	return m
}

// withRaw returns a Conn running h over a pipe whose other end the test
// drives.
func withRaw(t *testing.T, h jsonrpc.Handler, opts jsonrpc.Options) (*jsonrpc.Conn, rawPeer, func() error) {
	a, b := transport.NewPipe()
	c := jsonrpc.NewConn(a, h, opts)
	stop := run(t, c)
	return c, rawPeer{t, b}, stop
}

func TestCall(t *testing.T) {
	testutil.NoLeak(t)
	client, _ := pair(t, echo, jsonrpc.Options{}, jsonrpc.Options{})
	ctx := context.Background()
	for _, params := range []string{`{"a":1}`, `[1,2,3]`, `{"s":"line\nbreak é"}`} {
		got, err := client.Call(ctx, "echo", []byte(params))
		if err != nil || string(got) != params {
			t.Errorf("Call(echo, %s) = %s, %v", params, got, err)
		}
	}
	got, err := client.Call(ctx, "echo", nil)
	if err != nil || string(got) != "null" {
		t.Errorf("Call(echo, nil) = %s, %v; want null", got, err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	testutil.NoLeak(t)
	slowEcho := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Params[len(req.Params)-2]%3 == 0 {
			runtime.Gosched() // let some finish out of order
		}
		return req.Params, nil
	})
	client, _ := pair(t, slowEcho, jsonrpc.Options{}, jsonrpc.Options{MaxInFlight: 8})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 32 {
		wg.Go(func() {
			for i := range 50 {
				params := fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)
				got, err := client.Call(context.Background(), "echo", []byte(params))
				if err != nil || string(got) != params {
					errs <- fmt.Errorf("Call(%s) = %s, %v", params, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOutOfOrderResponses(t *testing.T) {
	testutil.NoLeak(t)
	client, peer, _ := withRaw(t, nil, jsonrpc.Options{})
	type result struct {
		method string
		got    []byte
		err    error
	}
	results := make(chan result, 3)
	for _, m := range []string{"a", "b", "c"} {
		go func() {
			got, err := client.Call(context.Background(), m, nil)
			results <- result{m, got, err}
		}()
	}
	var reqs []jsonrpc.Message
	for range 3 {
		reqs = append(reqs, peer.recvMessage())
	}
	// Answer in reverse order, each with its method's name.
	for i := len(reqs) - 1; i >= 0; i-- {
		peer.send(string(jsonrpc.AppendResult(nil, reqs[i].ID, []byte(`"`+reqs[i].Method+`"`))))
	}
	for range 3 {
		r := <-results
		if r.err != nil || string(r.got) != `"`+r.method+`"` {
			t.Errorf("Call(%s) = %s, %v", r.method, r.got, r.err)
		}
	}
}

func TestHandlerErrors(t *testing.T) {
	testutil.NoLeak(t)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		switch req.Method {
		case "rpcError":
			return nil, &jsonrpc.Error{Code: -32001, Message: "custom", Data: []byte(`{"why":"because"}`)}
		case "wrapped":
			return nil, fmt.Errorf("while doing it: %w", jsonrpc.ErrInvalidParams("bad a"))
		case "plain":
			return nil, errors.New("disk full")
		case "panic":
			panic("boom")
		case "nilPanic":
			var m map[string]int
			m["x"] = 1
		}
		return nil, jsonrpc.ErrMethodNotFound(req.Method)
	})
	client, _ := pair(t, h, jsonrpc.Options{}, jsonrpc.Options{})
	tests := []struct {
		method  string
		code    int64
		message string
		data    string
	}{
		{"rpcError", -32001, "custom", `{"why":"because"}`},
		{"wrapped", jsonrpc.CodeInvalidParams, "bad a", ""},
		{"plain", jsonrpc.CodeInternalError, "disk full", ""},
		{"panic", jsonrpc.CodeInternalError, "internal error: the handler for panic panicked", ""},
		{"nilPanic", jsonrpc.CodeInternalError, "internal error: the handler for nilPanic panicked", ""},
		{"other", jsonrpc.CodeMethodNotFound, "method not found: other", ""},
	}
	for _, tt := range tests {
		got, err := client.Call(context.Background(), tt.method, nil)
		e, ok := errors.AsType[*jsonrpc.Error](err)
		if !ok || e.Code != tt.code || e.Message != tt.message || string(e.Data) != tt.data {
			t.Errorf("Call(%s) = %s, %#v; want code %d %q data %s", tt.method, got, err, tt.code, tt.message, tt.data)
		}
	}
	// The server survived the panics.
	if _, err := client.Call(context.Background(), "plain", nil); code(err) != jsonrpc.CodeInternalError {
		t.Errorf("after panics: %v", err)
	}
}

func TestNilHandler(t *testing.T) {
	testutil.NoLeak(t)
	client, _ := pair(t, nil, jsonrpc.Options{}, jsonrpc.Options{})
	_, err := client.Call(context.Background(), "x", nil)
	if code(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("Call against a nil handler: %v", err)
	}
	if err := client.Notify(context.Background(), "x", nil); err != nil {
		t.Errorf("Notify: %v", err)
	}
}

func code(err error) int64 {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return e.Code
	}
	return 0
}

func TestCallCancel(t *testing.T) {
	testutil.NoLeak(t)
	var cancelled []jsonrpc.ID
	var mu sync.Mutex
	client, peer, _ := withRaw(t, nil, jsonrpc.Options{OnCancel: func(id jsonrpc.ID) {
		mu.Lock()
		cancelled = append(cancelled, id)
		mu.Unlock()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := client.Call(ctx, "slow", nil)
		errc <- err
	}()
	req := peer.recvMessage()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Call = %v, want context.Canceled", err)
	}
	mu.Lock()
	if len(cancelled) != 1 || cancelled[0] != req.ID {
		t.Errorf("OnCancel got %v, want [%v]", cancelled, req.ID)
	}
	mu.Unlock()

	// The late response is dropped, and the Conn carries on.
	peer.send(string(jsonrpc.AppendResult(nil, req.ID, []byte(`"late"`))))
	peer.send(`{"jsonrpc":"2.0","id":"never-sent","result":1}`)
	peer.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"peer could not parse"}}`)
	go func() {
		got, err := client.Call(context.Background(), "next", nil)
		if err != nil || string(got) != `"on time"` {
			errc <- fmt.Errorf("Call(next) = %s, %v", got, err)
			return
		}
		errc <- nil
	}()
	next := peer.recvMessage()
	if next.Method != "next" || next.ID == req.ID {
		t.Fatalf("next request = %+v", next)
	}
	peer.send(string(jsonrpc.AppendResult(nil, next.ID, []byte(`"on time"`))))
	if err := <-errc; err != nil {
		t.Error(err)
	}

	// A ctx that has already ended sends nothing and calls no hook.
	if _, err := client.Call(ctx, "dead", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with a dead ctx = %v", err)
	}
	mu.Lock()
	if len(cancelled) != 1 {
		t.Errorf("OnCancel called for a request never sent: %v", cancelled)
	}
	mu.Unlock()
}

func TestCancelIncoming(t *testing.T) {
	testutil.NoLeak(t)
	started := make(chan struct{})
	ended := make(chan error, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		switch req.Method {
		case "slow":
			close(started)
			<-ctx.Done()
			ended <- ctx.Err()
			return []byte(`"should not be sent"`), nil
		case "cancel": // what the MCP layer does on notifications/cancelled
			id, err := jsonrpc.ParseID(req.Params[len(`{"requestId":`) : len(req.Params)-1])
			if err != nil {
				return nil, err
			}
			req.Conn.CancelIncoming(id)
			return nil, nil
		}
		return []byte(`"fast"`), nil
	})
	_, peer, _ := withRaw(t, h, jsonrpc.Options{})
	peer.send(`{"jsonrpc":"2.0","id":"r1","method":"slow"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"cancel","params":{"requestId":"r1"}}`)
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx = %v, want context.Canceled", err)
	}
	peer.send(`{"jsonrpc":"2.0","id":"r2","method":"fast"}`)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":"r2","result":"fast"}` {
		t.Errorf("after cancelling r1, the peer got %s", got)
	}
}

func TestBatchIncoming(t *testing.T) {
	testutil.NoLeak(t)
	var notes atomic.Int32
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.ID.IsZero() {
			notes.Add(1)
			return nil, nil
		}
		if req.Method == "fail" {
			return nil, jsonrpc.ErrInvalidParams("no")
		}
		return req.Params, nil
	})
	_, peer, _ := withRaw(t, h, jsonrpc.Options{})
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},` +
		`{"jsonrpc":"2.0","method":"note"},` +
		`{"jsonrpc":"2.0","id":"two","method":"fail"},` +
		`7,` +
		`{"jsonrpc":"2.0","id":3,"method":""}]`)
	got := peer.recv()
	msgs, isBatch, err := jsonrpc.DecodeBatch([]byte(got))
	if err != nil || !isBatch {
		t.Fatalf("batch response %s: %v, %v", got, isBatch, err)
	}
	want := map[string]string{
		`1`:     `{"jsonrpc":"2.0","id":1,"result":[1]}`,
		`"two"`: `{"jsonrpc":"2.0","id":"two","error":{"code":-32602,"message":"no"}}`,
		`null`:  `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message must be an object, not number"}}`,
		`3`:     `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: \"method\" must not be empty"}}`,
	}
	if len(msgs) != len(want) {
		t.Fatalf("batch response has %d elements, want %d: %s", len(msgs), len(want), got)
	}
	for _, m := range msgs {
		if enc := string(jsonrpc.AppendMessage(nil, &m)); enc != want[m.ID.String()] {
			t.Errorf("batch response element %s, want %s", enc, want[m.ID.String()])
		}
	}
	if notes.Load() != 1 {
		t.Errorf("%d notifications handled, want 1", notes.Load())
	}

	// A batch of notifications gets no response: the next frame answers
	// the next request.
	peer.send(`[{"jsonrpc":"2.0","method":"n1"},{"jsonrpc":"2.0","method":"n2"}]`)
	peer.send(`{"jsonrpc":"2.0","id":9,"method":"echo"}`)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":9,"result":null}` {
		t.Errorf("after a batch of notifications, got %s", got)
	}

	// Whole-batch errors, in order on the one connection (the raw peer
	// fails the parent test, so these are not subtests).
	for _, tt := range []struct{ name, in, want string }{
		{"empty batch", `[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: empty batch"}}`},
		{"truncated batch", `[1,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: json: unexpected end of input at offset 3"}}`},
	} {
		peer.send(tt.in)
		if got := peer.recv(); got != tt.want {
			t.Errorf("%s: answer to %s = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestRejectBatches(t *testing.T) {
	testutil.NoLeak(t)
	_, peer, _ := withRaw(t, echo, jsonrpc.Options{RejectBatches: true})
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batches are not supported"}}`
	if got := peer.recv(); got != want {
		t.Errorf("batch answered with %s, want %s", got, want)
	}
}

func TestBatchedResponses(t *testing.T) {
	testutil.NoLeak(t)
	client, peer, _ := withRaw(t, nil, jsonrpc.Options{})
	results := make(chan string, 2)
	for _, m := range []string{"a", "b"} {
		go func() {
			got, err := client.Call(context.Background(), m, nil)
			results <- fmt.Sprintf("%s=%s/%v", m, got, err)
		}()
	}
	r1, r2 := peer.recvMessage(), peer.recvMessage()
	peer.send("[" + string(jsonrpc.AppendResult(nil, r1.ID, []byte(`"`+r1.Method+`"`))) + "," +
		string(jsonrpc.AppendError(nil, r2.ID, jsonrpc.NewError(-1, r2.Method))) + "]")
	got := []string{<-results, <-results}
	wantOK := fmt.Sprintf(`%s="%s"/<nil>`, r1.Method, r1.Method)
	wantErr := fmt.Sprintf(`%s=/jsonrpc: %s (code -1)`, r2.Method, r2.Method)
	if !(got[0] == wantOK && got[1] == wantErr || got[1] == wantOK && got[0] == wantErr) {
		t.Errorf("results %q, want %q and %q", got, wantOK, wantErr)
	}
}

func TestInvalidIncoming(t *testing.T) {
	testutil.NoLeak(t)
	_, peer, _ := withRaw(t, echo, jsonrpc.Options{})
	tests := []struct{ in, want string }{
		{`{bad`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: json: invalid character 'b' looking for object key at offset 1"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: \"method\" must not be empty"}}`},
		{`{"jsonrpc":"1.0","id":"q","method":"echo"}`, `{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
	}
	for _, tt := range tests {
		peer.send(tt.in)
		if got := peer.recv(); got != tt.want {
			t.Errorf("answer to %s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestDuplicateIncomingID(t *testing.T) {
	testutil.NoLeak(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		started <- struct{}{}
		<-release
		return []byte(`1`), nil
	})
	_, peer, _ := withRaw(t, h, jsonrpc.Options{})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: request id 1 is already in use"}}`; got != want {
		t.Errorf("duplicate id answered with %s, want %s", got, want)
	}
	close(release)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":1,"result":1}` {
		t.Errorf("first request answered with %s", got)
	}
}

func TestMaxInFlight(t *testing.T) {
	testutil.NoLeak(t)
	var running, peak atomic.Int32
	release := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		running.Add(-1)
		return req.Params, nil
	})
	c, peer, _ := withRaw(t, h, jsonrpc.Options{MaxInFlight: 2})
	for i := range 5 {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":[%d]}`, i, i))
	}
	// Once the last is read, the others wait for room: none can start.
	waitRead(t, c, jsonrpc.IntID(4))
	for running.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrent handlers = %d, want 2", p)
	}
	close(release)
	seen := map[string]bool{}
	for range 5 {
		seen[peer.recv()] = true
	}
	for i := range 5 {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[%d]}`, i, i); !seen[want] {
			t.Errorf("missing response %s; got %v", want, seen)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrent handlers = %d, want 2", p)
	}
}

func TestNotificationsInOrder(t *testing.T) {
	testutil.NoLeak(t)
	var mu sync.Mutex
	var got []string
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.ID.IsZero() {
			mu.Lock()
			got = append(got, string(req.Params))
			mu.Unlock()
			if len(req.Params) == 4 {
				panic("a notification handler panics") // recovered, logged, nothing sent
			}
			return []byte(`"ignored"`), errors.New("ignored too")
		}
		mu.Lock()
		defer mu.Unlock()
		return []byte(fmt.Sprint(len(got))), nil
	})
	client, _ := pair(t, h, jsonrpc.Options{}, jsonrpc.Options{})
	ctx := context.Background()
	var want []string
	for i := range 100 {
		p := fmt.Sprintf("[%d]", i)
		want = append(want, p)
		if err := client.Notify(ctx, "n", []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	// Notifications are handled before a request sent after them.
	if n, err := client.Call(ctx, "count", nil); err != nil || string(n) != "100" {
		t.Errorf("count = %s, %v; want 100", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("notifications handled in order %v", got)
	}
}

func TestRunEndsOnTransportClose(t *testing.T) {
	testutil.NoLeak(t)
	a, b := transport.NewPipe()
	client := jsonrpc.NewConn(a, nil, jsonrpc.Options{})
	runErr := make(chan error, 1)
	go func() { runErr <- client.Run(context.Background()) }()
	peer := rawPeer{t, b}

	callErr := make(chan error, 1)
	go func() {
		_, err := client.Call(context.Background(), "never answered", nil)
		callErr <- err
	}()
	peer.recv()
	b.Close()
	if err := <-runErr; err != nil {
		t.Errorf("Run after the peer closed = %v, want nil", err)
	}
	err := <-callErr
	if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
		t.Errorf("pending Call = %v, want ErrClosed and io.EOF", err)
	}
	if _, err := client.Call(context.Background(), "after", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call after shutdown = %v, want ErrClosed", err)
	}
	if err := client.Notify(context.Background(), "after", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Notify after shutdown = %v, want ErrClosed", err)
	}
	client.Wait()
	if err := client.Close(); err != nil {
		t.Errorf("Close after shutdown = %v", err)
	}
}

func TestCloseBeforeRun(t *testing.T) {
	testutil.NoLeak(t)
	a, b := transport.NewPipe()
	defer b.Close()
	c := jsonrpc.NewConn(a, nil, jsonrpc.Options{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if err := c.Run(context.Background()); err != nil {
		t.Errorf("Run after Close = %v, want nil", err)
	}
	if _, err := c.Call(context.Background(), "x", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call after Close = %v, want ErrClosed", err)
	}
	if err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("second Run = %v", err)
	}
}

func TestCloseWhileRunning(t *testing.T) {
	testutil.NoLeak(t)
	client, peer, stop := withRaw(t, nil, jsonrpc.Options{})
	callErr := make(chan error, 1)
	go func() {
		_, err := client.Call(context.Background(), "x", nil)
		callErr <- err
	}()
	peer.recv()
	if err := stop(); err != nil {
		t.Errorf("Run after Close = %v, want nil", err)
	}
	if err := <-callErr; !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("pending Call after Close = %v", err)
	}
}

// TestOverStream runs a Conn over newline-delimited streams, including a
// message over the size limit, which is answered and skipped.
func TestOverStream(t *testing.T) {
	testutil.NoLeak(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := jsonrpc.NewConn(transport.NewStream(inR, outW, transport.StreamOptions{MaxMessageSize: 100}), echo, jsonrpc.Options{})
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(context.Background()) }()

	go func() {
		fmt.Fprintf(inW, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"e\",\"params\":[%q]}\r\n", strings.Repeat("x", 200))
		fmt.Fprintf(inW, "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"e\",\"params\":[2]}\n")
	}()
	// The input stays open until the answers are in: at its end the Conn
	// shuts down and drops answers still being prepared.
	out := bufio.NewReader(outR)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: transport: message longer than the MaxMessageSize of 100 bytes, skipped: message too large"}}`,
		`{"jsonrpc":"2.0","id":2,"result":[2]}`,
	} {
		line, err := out.ReadString('\n')
		if err != nil || line != want+"\n" {
			t.Errorf("server wrote %q, %v; want %s", line, err, want)
		}
	}
	inW.Close()
	if err := <-runErr; err != nil {
		t.Errorf("Run = %v", err)
	}
	server.Wait()
}

// The request's frame stays the handler's: Params are not overwritten by
// later messages.
func TestParamsOwnership(t *testing.T) {
	testutil.NoLeak(t)
	kept := make(chan []byte, 10)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		kept <- req.Params
		return nil, nil
	})
	inR, inW := io.Pipe()
	server := jsonrpc.NewConn(transport.NewStream(inR, io.Discard, transport.StreamOptions{}), h, jsonrpc.Options{})
	go func() {
		for i := range 10 {
			fmt.Fprintf(inW, "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[%d]}\n", i)
		}
		inW.Close()
	}()
	if err := server.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	server.Wait()
	close(kept)
	i := 0
	for p := range kept {
		if want := fmt.Sprintf("[%d]", i); !bytes.Equal(p, []byte(want)) {
			t.Errorf("params %d = %s, want %s", i, p, want)
		}
		i++
	}
}

func BenchmarkConnRoundTrip(b *testing.B) {
	a, bt := transport.NewPipe()
	client := jsonrpc.NewConn(a, nil, jsonrpc.Options{})
	server := jsonrpc.NewConn(bt, echo, jsonrpc.Options{})
	go client.Run(context.Background())
	go server.Run(context.Background())
	defer func() {
		client.Close()
		server.Close()
		client.Wait()
		server.Wait()
	}()
	params := []byte(`{"name":"add","arguments":{"a":1,"b":2}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Call(ctx, "tools/call", params); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRequestFromContext(t *testing.T) {
	seen := make(chan *jsonrpc.Request, 1)
	a, b := transport.NewPipe()
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		seen <- jsonrpc.RequestFromContext(ctx)
		return []byte(`{}`), nil
	})
	server := jsonrpc.NewConn(a, h, jsonrpc.Options{})
	client := jsonrpc.NewConn(b, nil, jsonrpc.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go server.Run(ctx)
	go client.Run(ctx)
	defer server.Close()
	defer client.Close()
	if _, err := client.Call(ctx, "m", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	r := <-seen
	if r == nil || r.Method != "m" || r.ID.IsZero() {
		t.Fatalf("RequestFromContext = %+v", r)
	}
	if jsonrpc.RequestFromContext(context.Background()) != nil {
		t.Fatal("a ctx from elsewhere has a request")
	}
}

// A response too large for the transport fails its Call at once, with an
// error that says so, instead of leaving it to wait for an answer that
// will never come; a request that happens to carry the same id does not.
func TestSkippedResponseFailsItsCall(t *testing.T) {
	testutil.NoLeak(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := jsonrpc.NewConn(transport.NewStream(inR, outW, transport.StreamOptions{MaxMessageSize: 100}), nil, jsonrpc.Options{})
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(context.Background()) }()
	out := bufio.NewReader(outR)
	sentFirst := make(chan struct{})
	go func() {
		// The peer reads the two calls, then answers: first a request of
		// its own that reuses the first call's id and is too large too,
		// then the oversized response, then the second call's answer.
		for i := range 2 {
			if _, err := out.ReadString('\n'); err != nil {
				return
			}
			if i == 0 {
				close(sentFirst)
			}
		}
		go func() { _, _ = io.Copy(io.Discard, out) }() // what the Conn says of the skipped request
		big := strings.Repeat("x", 200)
		fmt.Fprintf(inW, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[%q]}\n", big)
		fmt.Fprintf(inW, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[%q]}\n", big)
		fmt.Fprintf(inW, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":[2]}\n")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "a", nil)
		first <- err
	}()
	<-sentFirst // the first call went out first, with id 1
	res, err := c.Call(ctx, "b", nil)
	if err != nil || string(res) != "[2]" {
		t.Fatalf("second call: %s, %v", res, err)
	}
	if err := <-first; !errors.Is(err, jsonrpc.ErrMessageTooLarge) || ctx.Err() != nil {
		t.Fatalf("first call: %v, want an error wrapping ErrMessageTooLarge before the deadline", err)
	}
	inW.Close()
	<-runErr
	outW.Close()
	c.Wait()
}
