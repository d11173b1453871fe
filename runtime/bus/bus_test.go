package bus

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemoryDeliversToEverySubscriberOfTheTopic(t *testing.T) {
	m := NewMemory(0)
	defer m.Close()
	ctx := t.Context()
	got := make(chan string, 8)
	for _, name := range []string{"a", "b"} {
		stop, err := m.Subscribe(ctx, "t", func(msg []byte) { got <- name + ":" + string(msg) })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
	}
	other, err := m.Subscribe(ctx, "other", func(msg []byte) { got <- "other:" + string(msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer other()
	if n, err := m.PublishCount(ctx, "t", []byte("1")); err != nil || n != 2 {
		t.Fatalf("PublishCount: %d, %v; want the 2 subscribers of the topic", n, err)
	}
	seen := map[string]bool{}
	for range 2 {
		select {
		case s := <-got:
			seen[s] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("only %v delivered", seen)
		}
	}
	if !seen["a:1"] || !seen["b:1"] {
		t.Fatalf("delivered %v, want a:1 and b:1", seen)
	}
	select {
	case s := <-got:
		t.Fatalf("delivered %q too", s)
	case <-time.After(20 * time.Millisecond):
	}
}

func TestMemoryStopEndsDelivery(t *testing.T) {
	m := NewMemory(0)
	defer m.Close()
	calls := 0
	stop, err := m.Subscribe(t.Context(), "t", func([]byte) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // a second stop is harmless
	m.Publish(t.Context(), "t", []byte("x"))
	if calls != 0 {
		t.Fatalf("deliver called %d times after stop", calls)
	}
	m.mu.Lock()
	n := len(m.topics)
	m.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d topics left after the last subscriber stopped", n)
	}
}

func TestMemoryDropsForASlowSubscriber(t *testing.T) {
	m := NewMemory(2)
	defer m.Close()
	release := make(chan struct{})
	stop, err := m.Subscribe(t.Context(), "t", func([]byte) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	took := 0
	for range 10 {
		n, err := m.PublishCount(t.Context(), "t", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		took += n
	}
	// One message is being delivered, two wait, the rest are dropped;
	// the count says so.
	if d := m.Dropped(); d < 7 || d > 8 || took+d != 10 {
		t.Fatalf("dropped %d of 10 with a queue of 2 and counted %d taken, want 7 or 8 dropped and the rest taken", d, took)
	}
	close(release)
	stop()
}

func TestMemoryClosed(t *testing.T) {
	m := NewMemory(0)
	stopped := make(chan struct{})
	if _, err := m.Subscribe(context.Background(), "t", func([]byte) {}); err != nil {
		t.Fatal(err)
	}
	go func() { m.Close(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop the subscription")
	}
	if err := m.Publish(context.Background(), "t", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Subscribe(context.Background(), "t", func([]byte) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close: %v, want ErrClosed", err)
	}
}
