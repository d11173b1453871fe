package jsonrpc_test

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// goroutineID is the id of the calling goroutine, from its stack trace.
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf, _ = bytes.CutPrefix(buf, []byte("goroutine "))
	id, _ := strconv.Atoi(string(buf[:bytes.IndexByte(buf, ' ')]))
	return id
}

// workers counts the goroutines waiting in a Conn for a request.
func workers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("jsonrpc.(*Conn).work(")) && bytes.Contains(g, []byte(" [select")) {
			n++
		}
	}
	return n
}

// waitWorkers waits up to five seconds for the number of waiting workers
// to be within [lo, hi].
func waitWorkers(t *testing.T, lo, hi int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		n := workers()
		if lo <= n && n <= hi {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d handler goroutines wait, want %d to %d", n, lo, hi)
		}
	}
}

// TestHandlerGoroutineReused: requests one after another run on one
// goroutine, which waits between them rather than a new goroutine
// starting (and growing its stack) for each.
func TestHandlerGoroutineReused(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		mu.Lock()
		seen[goroutineID()]++
		mu.Unlock()
		return []byte("true"), nil
	})
	client, _ := pair(t, h, jsonrpc.Options{}, jsonrpc.Options{})
	for range 20 {
		if _, err := client.Call(context.Background(), "m", nil); err != nil {
			t.Fatal(err)
		}
		// The answer goes out before its goroutine waits for the next.
		waitWorkers(t, 1, 1)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("20 requests in turn ran on %d goroutines, want 1: %v", len(seen), seen)
	}
}

// TestIdleHandlerGoroutinesBounded: of many handlers that finish at once,
// at most 16 goroutines stay waiting for more, and they end when the Conn
// does.
func TestIdleHandlerGoroutinesBounded(t *testing.T) {
	const n = 40
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		started.Done()
		<-release
		return []byte("true"), nil
	})
	a, b := transport.NewPipe()
	client := jsonrpc.NewConn(a, nil, jsonrpc.Options{})
	server := jsonrpc.NewConn(b, h, jsonrpc.Options{})
	run(t, client)
	stop := run(t, server)
	var calls sync.WaitGroup
	for range n {
		calls.Go(func() {
			if _, err := client.Call(context.Background(), "m", nil); err != nil {
				t.Error(err)
			}
		})
	}
	started.Wait()
	close(release)
	calls.Wait()
	// The handlers finish one by one: some of them wait for the next
	// request, never more than 16.
	waitWorkers(t, 1, 16)
	time.Sleep(50 * time.Millisecond) // for any late one to go over the bound
	waitWorkers(t, 1, 16)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	waitWorkers(t, 0, 0)
}
