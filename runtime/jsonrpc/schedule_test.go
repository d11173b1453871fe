package jsonrpc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// waitRead waits until c has read the request with the given id: the
// read loop registers a request before it reads the next message.
func waitRead(t *testing.T, c *jsonrpc.Conn, id jsonrpc.ID) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, ok := c.IncomingMethod(id); ok {
			return
		}
	}
	t.Fatalf("request %v was never read", id)
}

// Handlers at the in-flight bound that call the peer back still get their
// answers: the read loop reads on while requests wait for room.
func TestCallbacksAtInFlightBound(t *testing.T) {
	testutil.NoLeak(t)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		return req.Conn.Call(ctx, "sample", req.Params)
	})
	client, _ := pairWith(t, h, jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		return req.Params, nil
	}), jsonrpc.Options{MaxInFlight: 4})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			want := fmt.Sprintf("[%d]", i)
			got, err := client.Call(context.Background(), "call back", []byte(want))
			if err == nil && string(got) != want {
				err = fmt.Errorf("got %s, want %s", got, want)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// pairWith connects a client Conn answering with ch to a server Conn
// running sh.
func pairWith(t *testing.T, sh, ch jsonrpc.Handler, serverOpts jsonrpc.Options) (client, server *jsonrpc.Conn) {
	t.Helper()
	a, b := transport.NewPipe()
	client = jsonrpc.NewConn(a, ch, jsonrpc.Options{})
	server = jsonrpc.NewConn(b, sh, serverOpts)
	run(t, client)
	run(t, server)
	return client, server
}

// blocker is a handler whose requests block until released, counting
// those that started.
type blocker struct {
	started chan string // the params of each request as its handler starts
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 100), release: make(chan struct{})}
}

func (b *blocker) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		if req.Method == "cancel" {
			req.Conn.CancelIncoming(jsonrpc.IntID(int64(req.Params[1] - '0')))
		}
		return nil, nil
	}
	b.started <- string(req.Params)
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return req.Params, nil
}

// A request beyond the queue is refused at once; the queued ones run in
// order as room frees, and a queued request cancelled never runs.
func TestQueueBound(t *testing.T) {
	testutil.NoLeak(t)
	b := newBlocker()
	c, peer, _ := withRaw(t, b, jsonrpc.Options{MaxInFlight: 1, MaxQueued: 3})
	for i := 1; i <= 4; i++ {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":[%d]}`, i, i))
	}
	if got := <-b.started; got != "[1]" {
		t.Fatalf("first handler started with %s", got)
	}
	waitRead(t, c, jsonrpc.IntID(4))
	peer.send(`{"jsonrpc":"2.0","id":5,"method":"m","params":[5]}`)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"the server is busy: too many requests are waiting to be handled; retry later"}}`; got != want {
		t.Errorf("request over the queue answered with %s, want %s", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","method":"cancel","params":[3]}`)
	// The refusal of a request sent after the cancellation shows it was
	// handled: the cancelled request keeps its place until its turn.
	peer.send(`{"jsonrpc":"2.0","id":6,"method":"m","params":[6]}`)
	if got := peer.recv(); !strings.Contains(got, `"id":6,"error"`) {
		t.Errorf("request over the queue answered with %s", got)
	}
	close(b.release)
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":[1]}`, `{"jsonrpc":"2.0","id":2,"result":[2]}`, `{"jsonrpc":"2.0","id":4,"result":[4]}`} {
		if got := peer.recv(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	close(b.started)
	var ran []string
	for p := range b.started {
		ran = append(ran, p)
	}
	if strings.Join(ran, " ") != "[2] [4]" {
		t.Errorf("queued handlers ran for %v, want [2] [4] in order", ran)
	}
}

// Requests and notifications read while a barrier request runs wait for
// its answer, then are served in order.
func TestBarrier(t *testing.T) {
	testutil.NoLeak(t)
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	started, release := make(chan struct{}), make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		note(req.Method)
		if req.Method == "init" {
			close(started)
			<-release
		}
		return []byte(`"` + req.Method + `"`), nil
	})
	c, peer, _ := withRaw(t, h, jsonrpc.Options{Barrier: func(m string) bool { return m == "init" }})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"init"}`)
	peer.send(`{"jsonrpc":"2.0","method":"initialized"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"list"}`)
	// Both later messages are read while init's handler runs: reading
	// never waits on the barrier, handling does.
	waitRead(t, c, jsonrpc.IntID(2))
	<-started
	mu.Lock()
	before := strings.Join(order, " ")
	mu.Unlock()
	if before != "init" {
		t.Errorf("handled %q while the barrier ran, want only init", before)
	}
	close(release)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":1,"result":"init"}` {
		t.Errorf("first answer %s, want init's", got)
	}
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":2,"result":"list"}` {
		t.Errorf("second answer %s, want list's", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(order, " "); got != "init initialized list" {
		t.Errorf("handled in order %q, want init initialized list", got)
	}
}

// When Run's ctx ends, requests already read are answered; requests read
// afterwards are refused; the peer's answers to the handlers' Calls are
// still read; Run returns once they are done.
func TestGracefulShutdownOnCtx(t *testing.T) {
	testutil.NoLeak(t)
	asked := make(chan struct{}, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		asked <- struct{}{}
		return req.Conn.Call(ctx, "question", nil)
	})
	a, b := transport.NewPipe()
	defer b.Close()
	server := jsonrpc.NewConn(a, h, jsonrpc.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(ctx) }()
	peer := rawPeer{t, b}
	peer.send(`{"jsonrpc":"2.0","id":"a","method":"ask"}`)
	<-asked
	q := peer.recvMessage()
	cancel()
	peer.send(`{"jsonrpc":"2.0","id":"late","method":"ask"}`)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":"late","error":{"code":-32603,"message":"the server is shutting down: it takes no new requests"}}`; got != want {
		t.Errorf("request after the shutdown began answered %s, want %s", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + q.ID.String() + `,"result":"answer"}`)
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":"a","result":"answer"}`; got != want {
		t.Errorf("request in flight answered %s, want %s", got, want)
	}
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	server.Wait()
}

// A request still running when the grace period ends is answered with an
// error and its handler's ctx is cancelled.
func TestRunEndsWithCtx(t *testing.T) {
	testutil.NoLeak(t)
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		close(started)
		<-ctx.Done()
		handlerErr <- ctx.Err()
		return nil, nil
	})
	a, b := transport.NewPipe()
	defer b.Close()
	server := jsonrpc.NewConn(a, h, jsonrpc.Options{DrainTimeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(ctx) }()
	peer := rawPeer{t, b}
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	cancel()
	if got, want := peer.recv(), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the server is shutting down: the request was not completed"}}`; got != want {
		t.Errorf("request cut short answered %s, want %s", got, want)
	}
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if err := <-handlerErr; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx = %v, want context.Canceled", err)
	}
	server.Wait()
	if _, err := server.Call(context.Background(), "x", nil); !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("Call after Run's ctx ended = %v", err)
	}
}

// A peer that closes its end right after writing its requests gets every
// answer, the queued requests' too; a Call waiting for the peer fails at
// once, as nothing more can come from it.
func TestAnswersAfterPeerCloses(t *testing.T) {
	testutil.NoLeak(t)
	var calls atomic.Int32
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Method == "ask" {
			_, err := req.Conn.Call(ctx, "question", nil)
			if !errors.Is(err, jsonrpc.ErrClosed) {
				return nil, fmt.Errorf("Call after the peer closed = %v", err)
			}
			calls.Add(1)
		}
		return req.Params, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := jsonrpc.NewConn(transport.NewStream(inR, outW, transport.StreamOptions{}), h, jsonrpc.Options{MaxInFlight: 1})
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(context.Background()) }()
	go func() {
		fmt.Fprint(inW, `{"jsonrpc":"2.0","id":0,"method":"ask"}`+"\n")
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"e","params":[%d]}`+"\n", i, i)
		}
		inW.Close()
	}()
	out := bufio.NewReader(outR)
	seen := map[string]bool{}
	for len(seen) < 6 {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(seen), err)
		}
		if strings.Contains(line, `"method":"question"`) {
			continue
		}
		seen[strings.TrimSpace(line)] = true
	}
	if !seen[`{"jsonrpc":"2.0","id":0,"result":null}`] || !seen[`{"jsonrpc":"2.0","id":5,"result":[5]}`] {
		t.Errorf("answers %v", seen)
	}
	if err := <-runErr; err != nil {
		t.Errorf("Run = %v", err)
	}
	server.Wait()
	if calls.Load() != 1 {
		t.Error("the handler's Call did not fail once the peer closed")
	}
}

// localClose is a transport that its owner closes on this side: Read then
// fails with an error wrapping ErrClosed.
type localClose struct {
	jsonrpc.Transport
	closed chan struct{}
}

func (l *localClose) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-l.closed:
		return nil, fmt.Errorf("closed by its owner: %w", jsonrpc.ErrClosed)
	default:
	}
	return l.Transport.Read(ctx)
}

// A transport closed on this side stops the Conn at once, with no grace
// period: its owner has dealt with the requests in progress.
func TestLocalCloseStopsAtOnce(t *testing.T) {
	testutil.NoLeak(t)
	started := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	a, b := transport.NewPipe()
	defer b.Close()
	tr := &localClose{Transport: a, closed: make(chan struct{})}
	server := jsonrpc.NewConn(tr, h, jsonrpc.Options{DrainTimeout: time.Hour})
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(context.Background()) }()
	rawPeer{t, b}.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	close(tr.closed)
	rawPeer{t, b}.send(`{"jsonrpc":"2.0","method":"wake the read"}`)
	select {
	case err := <-runErr:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run waited for the handler")
	}
	server.Wait()
}

// An Urgent request is answered while every slot is taken and others
// wait; the others keep their order.
func TestUrgentBesideTheBound(t *testing.T) {
	testutil.NoLeak(t)
	b := newBlocker()
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Method == "ping" {
			return []byte(`{}`), nil
		}
		return b.Handle(ctx, req)
	})
	_, peer, _ := withRaw(t, h, jsonrpc.Options{MaxInFlight: 1, Urgent: func(m string) bool { return m == "ping" }})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`)
	<-b.started
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"m","params":[2]}`)
	peer.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if got := peer.recv(); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("first answer %s, want the ping's", got)
	}
	close(b.release)
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":[1]}`, `{"jsonrpc":"2.0","id":2,"result":[2]}`} {
		if got := peer.recv(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// The waiting requests' params are bounded too: one alone always fits,
// the next that would go beyond MaxQueuedBytes is refused.
func TestQueueByteBound(t *testing.T) {
	testutil.NoLeak(t)
	b := newBlocker()
	c, peer, _ := withRaw(t, b, jsonrpc.Options{MaxInFlight: 1, MaxQueuedBytes: 10})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`)
	<-b.started
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"m","params":["0123456789abc"]}`) // over the bound, alone
	waitRead(t, c, jsonrpc.IntID(2))
	peer.send(`{"jsonrpc":"2.0","id":3,"method":"m","params":[3]}`)
	if got := peer.recv(); !strings.Contains(got, `"id":3,"error"`) || !strings.Contains(got, "busy") {
		t.Errorf("a request over the byte bound answered %s", got)
	}
	close(b.release)
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":[1]}`, `{"jsonrpc":"2.0","id":2,"result":["0123456789abc"]}`} {
		if got := peer.recv(); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
