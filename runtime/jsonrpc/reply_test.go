package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// replier is a DirectReplier that answers each request within its Write,
// as an HTTP transport reads the reply to its POST. Its Read returns
// what is sent on frames, and io.EOF once closed.
type replier struct {
	answer func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message) // on Write's goroutine

	frames  chan []byte
	closed  chan struct{}
	closing sync.Once
}

func newReplier(answer func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message)) *replier {
	return &replier{answer: answer, frames: make(chan []byte, 8), closed: make(chan struct{})}
}

func (r *replier) Read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-r.frames:
		return f, nil
	case <-r.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *replier) Write(ctx context.Context, frame []byte) error {
	m, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		return err
	}
	if m.Kind() == jsonrpc.MessageRequest {
		r.answer(ctx, r, &m)
	}
	return nil
}

func (r *replier) Close() error {
	r.closing.Do(func() { close(r.closed) })
	return nil
}

func (r *replier) WritesConcurrently() {}
func (r *replier) RepliesDirectly()    {}

// result is the response to m whose result is m's method.
func result(m *jsonrpc.Message) *jsonrpc.Message {
	return &jsonrpc.Message{ID: m.ID, Result: []byte(strconv.Quote(m.Method))}
}

func TestCallTakesDirectReply(t *testing.T) {
	var replied, refused int
	var mu sync.Mutex
	tr := newReplier(func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message) {
		ok := jsonrpc.Replies(ctx, t) && jsonrpc.Reply(ctx, t, result(m))
		mu.Lock()
		defer mu.Unlock()
		if ok {
			replied++
		} else {
			refused++
		}
	})
	c := jsonrpc.NewConn(tr, nil, jsonrpc.Options{})
	stop := run(t, c)
	defer stop()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			method := "m" + strconv.Itoa(i)
			got, err := c.Call(context.Background(), method, nil)
			if err != nil || string(got) != strconv.Quote(method) {
				t.Errorf("Call(%s) = %s, %v", method, got, err)
			}
		})
	}
	wg.Wait()
	if replied != 8 || refused != 0 {
		t.Errorf("%d replies taken, %d refused; want 8 and 0", replied, refused)
	}
}

func TestReplyRefusesOtherWriters(t *testing.T) {
	// A ctx that no Call made, or one made by a Conn over another
	// transport (a wrapper passing its Writes on), is refused: the reply
	// then goes through Read.
	other := newReplier(nil)
	c := jsonrpc.NewConn(other, nil, jsonrpc.Options{})
	var seen context.Context
	other.answer = func(ctx context.Context, _ jsonrpc.Transport, m *jsonrpc.Message) {
		seen = ctx
		if !jsonrpc.Reply(ctx, other, result(m)) {
			t.Error("the Conn's own transport was refused")
		}
	}
	stop := run(t, c)
	defer stop()
	if _, err := c.Call(context.Background(), "probe", nil); err != nil {
		t.Fatal(err)
	}
	inner := newReplier(nil)
	m := &jsonrpc.Message{ID: jsonrpc.IntID(1), Result: []byte(`1`)}
	for name, ctx := range map[string]context.Context{"no Call": context.Background(), "another transport's Call": seen} {
		if jsonrpc.Replies(ctx, inner) || jsonrpc.Reply(ctx, inner, m) {
			t.Errorf("%s: reply taken", name)
		}
	}
	// Nor is a message that is not a response.
	if jsonrpc.Reply(seen, other, &jsonrpc.Message{Method: "notify"}) {
		t.Error("a notification was taken as a reply")
	}
}

func TestDirectReplyAfterCancel(t *testing.T) {
	// A reply that comes after its Call gave up is dropped, and the next
	// Call is not answered with it.
	release := make(chan struct{})
	var late sync.WaitGroup
	tr := newReplier(nil)
	tr.answer = func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message) {
		if m.Method == "slow" {
			late.Go(func() {
				<-release
				jsonrpc.Reply(ctx, t, result(m))
			})
			return
		}
		jsonrpc.Reply(ctx, t, result(m))
	}
	c := jsonrpc.NewConn(tr, nil, jsonrpc.Options{})
	stop := run(t, c)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "slow", nil)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Call: %v", err)
	}
	close(release)
	late.Wait()
	got, err := c.Call(context.Background(), "fast", nil)
	if err != nil || string(got) != `"fast"` {
		t.Errorf("next Call = %s, %v", got, err)
	}
}

// wrapper is a DirectReplier that hands its Writes on to inner, as a
// transport chosen after a probe is, passing replies through with
// ReplyThrough when through is set.
type wrapper struct {
	inner   *replier
	through bool
}

func (w *wrapper) Read(ctx context.Context) ([]byte, error) { return w.inner.Read(ctx) }
func (w *wrapper) Close() error                             { return w.inner.Close() }
func (w *wrapper) WritesConcurrently()                      {}
func (w *wrapper) RepliesDirectly()                         {}

func (w *wrapper) Write(ctx context.Context, frame []byte) error {
	if w.through {
		ctx = jsonrpc.ReplyThrough(ctx, w, w.inner)
	}
	return w.inner.Write(ctx, frame)
}

func TestReplyThrough(t *testing.T) {
	for _, through := range []bool{true, false} {
		var direct, read int
		var mu sync.Mutex
		inner := newReplier(nil)
		inner.answer = func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message) {
			mu.Lock()
			defer mu.Unlock()
			if jsonrpc.Replies(ctx, t) && jsonrpc.Reply(ctx, t, result(m)) {
				direct++
				return
			}
			// Not taken: the reply goes through Read, as without Reply.
			read++
			inner.frames <- jsonrpc.AppendResult(nil, m.ID, result(m).Result)
		}
		c := jsonrpc.NewConn(&wrapper{inner: inner, through: through}, nil, jsonrpc.Options{})
		stop := run(t, c)
		for i := range 3 {
			if got, err := c.Call(context.Background(), "m", nil); err != nil || string(got) != `"m"` {
				t.Fatalf("through=%v, call %d: %s %v", through, i, got, err)
			}
		}
		stop()
		if want := map[bool][2]int{true: {3, 0}, false: {0, 3}}[through]; direct != want[0] || read != want[1] {
			t.Errorf("through=%v: %d replies taken directly, %d read; want %v", through, direct, read, want)
		}
	}
}
