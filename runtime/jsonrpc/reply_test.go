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
// only what is queued with push, and io.EOF once closed.
type replier struct {
	answer func(ctx context.Context, t jsonrpc.Transport, m *jsonrpc.Message) // on Write's goroutine

	mu      sync.Mutex
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
