package redis

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// receiver collects what a subscription delivers.
func receiver() (chan string, func([]byte)) {
	got := make(chan string, 64)
	return got, func(msg []byte) { got <- string(msg) }
}

// expect waits for msg on got.
func expect(t *testing.T, got chan string, msg string) {
	t.Helper()
	select {
	case m := <-got:
		if m != msg {
			t.Fatalf("delivered %q, want %q", m, msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%q was not delivered", msg)
	}
}

// nothing fails when got receives anything within a short while.
func nothing(t *testing.T, got chan string) {
	t.Helper()
	select {
	case m := <-got:
		t.Fatalf("delivered %q too", m)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestBusDelivers(t *testing.T) {
	client := shared.newClient(t)
	prefix := testPrefix(t)
	b := NewBus(client, BusOptions{Prefix: prefix})
	ctx := t.Context()
	gotA, deliverA := receiver()
	gotB, deliverB := receiver()
	gotOther, deliverOther := receiver()
	for _, deliver := range []func([]byte){deliverA, deliverB} {
		stop, err := b.Subscribe(ctx, "t", deliver)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
	}
	stop, err := b.Subscribe(ctx, "other", deliverOther)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// Another replica's Bus on its own client, and a plain PUBLISH on the
	// prefixed channel, reach the subscribers too.
	// PublishCount counts each subscription to the topic, one connection
	// each.
	other := NewBus(shared.newClient(t), BusOptions{Prefix: prefix})
	if n, err := other.PublishCount(ctx, "t", []byte("1")); err != nil || n != 2 {
		t.Fatalf("PublishCount: %d, %v; want the 2 subscriptions of the topic", n, err)
	}
	if err := client.Publish(ctx, prefix+"t", "2").Err(); err != nil {
		t.Fatal(err)
	}
	for _, got := range []chan string{gotA, gotB} {
		expect(t, got, "1")
		expect(t, got, "2")
	}
	nothing(t, gotOther)
	// Another prefix is another bus.
	if err := NewBus(client, BusOptions{}).Publish(ctx, "t", []byte("3")); err != nil {
		t.Fatal(err)
	}
	nothing(t, gotA)
}

func TestBusStop(t *testing.T) {
	client := shared.newClient(t)
	b := NewBus(client, BusOptions{Prefix: testPrefix(t)})
	client.Ping(t.Context()) // the pool's connection exists before counting
	before := runtime.NumGoroutine()
	got, deliver := receiver()
	stop, err := b.Subscribe(t.Context(), "t", deliver)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // a second stop is harmless
	if err := b.Publish(t.Context(), "t", []byte("x")); err != nil {
		t.Fatal(err)
	}
	nothing(t, got)

	// A subscription also ends with its ctx.
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := b.Subscribe(ctx, "t", deliver); err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after the subscriptions ended, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBusClientClosed checks that a subscription whose client is closed
// under it delivers nothing more and still stops.
func TestBusClientClosed(t *testing.T) {
	client := shared.newClient(t)
	b := NewBus(client, BusOptions{Prefix: testPrefix(t)})
	got, deliver := receiver()
	stop, err := b.Subscribe(t.Context(), "t", deliver)
	if err != nil {
		t.Fatal(err)
	}
	client.Close()
	nothing(t, got)
	stop()
}

func TestBusDropsForASlowSubscriber(t *testing.T) {
	b := NewBus(shared.newClient(t), BusOptions{Prefix: testPrefix(t), Queue: 2})
	release := make(chan struct{})
	stop, err := b.Subscribe(t.Context(), "t", func([]byte) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := b.Publish(t.Context(), "t", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	// One message is being delivered, two wait, the rest are dropped.
	deadline := time.Now().Add(5 * time.Second)
	for b.Dropped() < 7 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if d := b.Dropped(); d < 7 || d > 8 {
		t.Fatalf("dropped %d of 10 with a queue of 2, want 7 or 8", d)
	}
	close(release)
	stop()
}

// TestBusRedisDown stops the test's own redis-server under a live
// subscription: Publish fails quickly with the client's error, and once
// Redis is back on the same address the subscription delivers again by
// itself.
func TestBusRedisDown(t *testing.T) {
	srv, err := startServer(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.stop() })
	b := NewBus(srv.newClient(t), BusOptions{})
	ctx := context.Background()
	got, deliver := receiver()
	stop, err := b.Subscribe(ctx, "t", deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := b.Publish(ctx, "t", []byte("before")); err != nil {
		t.Fatal(err)
	}
	expect(t, got, "before")

	srv.stop()
	start := time.Now()
	err = b.Publish(ctx, "t", []byte("lost"))
	if took := time.Since(start); err == nil || took > 5*time.Second {
		t.Fatalf("Publish with Redis down = %v after %v; want an error within 5s", err, took)
	}
	if !strings.Contains(err.Error(), "redis") || errors.Unwrap(err) == nil {
		t.Errorf("Publish with Redis down: %v; want the client's error wrapped", err)
	}
	t.Logf("Publish with Redis down, after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if _, err := b.Subscribe(ctx, "t", deliver); err == nil {
		t.Error("Subscribe with Redis down succeeded")
	}

	srv2, err := startServer(srv.dir, srv.addr)
	if err != nil {
		t.Fatalf("restart redis-server on %s: %v", srv.addr, err)
	}
	t.Cleanup(func() { srv2.stop() })
	// The subscription resubscribes on its own; until it has, what is
	// published reaches nobody.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if err := b.Publish(ctx, "t", []byte("after")); err != nil && time.Now().After(deadline) {
			t.Fatalf("Publish after Redis returned: %v", err)
		}
		select {
		case m := <-got:
			if m != "after" {
				t.Fatalf("delivered %q after Redis returned, want after", m)
			}
			t.Logf("delivering again %v after the restart", time.Since(deadline.Add(-15*time.Second)).Round(time.Millisecond))
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription did not deliver within 15s of Redis returning")
		}
	}
}
