package echo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"time"

	mcpgenecho "github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// IdleResult is what [IdleSessions] measured. Byte and goroutine counts
// are of the whole process, after garbage collection, relative to the
// baseline taken before the first session opened.
type IdleResult struct {
	Sessions int
	// HeapPerSession and StackPerSession are the heap bytes in use and
	// the goroutine stack bytes in use per open idle session.
	HeapPerSession, StackPerSession float64
	// GoroutinesPerSession is the goroutines per open idle session.
	GoroutinesPerSession float64
	// Open and Close are how long opening and deleting every session took.
	Open, Close time.Duration
	// HeapAfter, StackAfter and GoroutinesAfter are what is left, relative
	// to the baseline, once every session is deleted.
	HeapAfter, StackAfter int64
	GoroutinesAfter       int
	// SessionsAfter is what the handler still counts as running.
	SessionsAfter int
}

// IdleSessions serves the mcpgen echo server in this process with
// streamable.NewHandler in JSON-response mode on a loopback httptest
// server, opens n sessions (initialize and notifications/initialized),
// concurrency at a time, and measures the memory and goroutines they hold
// while idle. It then deletes every session with DELETE and measures what
// is left. Idle connections are closed before each measurement, so that
// neither the client's nor the server's connections count.
//
// The client keeps each session's id, 26 bytes in a 32-byte allocation,
// which the heap per session includes.
func IdleSessions(ctx context.Context, n, concurrency int) (res IdleResult, err error) {
	if n < 1 || concurrency < 1 {
		return res, errors.New("idle sessions: need at least one session and one worker")
	}
	srv, err := mcpgenecho.New()
	if err != nil {
		return res, err
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux) // listens on 127.0.0.1
	defer ts.Close()
	defer h.Close()
	hc := NewHTTPClient(concurrency)
	defer hc.CloseIdleConnections()
	url := ts.URL + "/mcp"

	workers := make([]*HTTPSession, concurrency)
	for i := range workers {
		if workers[i], err = NewHTTPSession(hc, url); err != nil {
			return res, err
		}
	}
	// Warm up: pools, the janitor, and the code paths of both phases.
	if _, err := workers[0].Initialize(); err != nil {
		return res, fmt.Errorf("warm up: %w", err)
	}
	if err := workers[0].Delete(); err != nil {
		return res, fmt.Errorf("warm up: %w", err)
	}
	ids := make([]string, n)

	base, err := settle(ctx, hc, -1)
	if err != nil {
		return res, err
	}
	start := time.Now()
	err = each(ctx, len(workers), n, func(w, i int) error {
		s := workers[w]
		if _, err := s.Initialize(); err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
		if s.SessionID() == "" {
			return fmt.Errorf("session %d: no Mcp-Session-Id", i)
		}
		ids[i] = s.forget()
		return nil
	})
	res.Open = time.Since(start)
	if err != nil {
		return res, err
	}
	open, err := settle(ctx, hc, -1)
	if err != nil {
		return res, err
	}
	res.Sessions = n
	res.HeapPerSession = float64(int64(open.heap)-int64(base.heap)) / float64(n)
	res.StackPerSession = float64(int64(open.stack)-int64(base.stack)) / float64(n)
	res.GoroutinesPerSession = float64(open.goroutines-base.goroutines) / float64(n)

	start = time.Now()
	err = each(ctx, len(workers), n, func(w, i int) error {
		s := workers[w]
		s.resume(ids[i])
		if err := s.Delete(); err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
		return nil
	})
	res.Close = time.Since(start)
	if err != nil {
		return res, err
	}
	clear(ids)
	// Sessions end after DELETE answers, as their goroutines return: wait
	// a while for the goroutines to come back to the baseline.
	after, err := settle(ctx, hc, base.goroutines)
	if err != nil {
		return res, err
	}
	res.HeapAfter = int64(after.heap) - int64(base.heap)
	res.StackAfter = int64(after.stack) - int64(base.stack)
	res.GoroutinesAfter = after.goroutines - base.goroutines
	res.SessionsAfter = h.SessionCount()
	runtime.KeepAlive(ids)
	return res, nil
}

// memory is the process's memory and goroutines at one moment.
type memory struct {
	heap, stack uint64
	goroutines  int
}

// settle closes hc's idle connections, if hc is not nil, waits up to five
// seconds for the number of goroutines to fall to goroutines (when not
// negative) or to stop falling, then collects garbage and reads the memory
// statistics.
func settle(ctx context.Context, hc *http.Client, goroutines int) (memory, error) {
	if hc != nil {
		hc.CloseIdleConnections()
	}
	deadline := time.Now().Add(5 * time.Second)
	last, still := runtime.NumGoroutine(), 0
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return memory{}, err
		}
		time.Sleep(10 * time.Millisecond)
		g := runtime.NumGoroutine()
		if goroutines >= 0 && g <= goroutines {
			break
		}
		if g == last {
			// Connection goroutines end within milliseconds of their
			// peers closing; 20 quiet polls mean nothing else is ending.
			if still++; still == 20 {
				break
			}
		} else {
			last, still = g, 0
		}
	}
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memory{heap: m.HeapAlloc, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}, nil
}

// each calls f(w, i) for 0 ≤ i < n from workers goroutines, each worker w
// taking the next i in turn, and stops at the first error.
func each(ctx context.Context, workers, n int, f func(w, i int) error) error {
	var (
		mu   sync.Mutex
		next int
		errs = make([]error, workers)
		wg   sync.WaitGroup
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if next >= n || ctx.Err() != nil {
			return -1
		}
		next++
		return next - 1
	}
	for w := range workers {
		wg.Go(func() {
			for i := take(); i >= 0; i = take() {
				if err := f(w, i); err != nil {
					errs[w] = err
					mu.Lock()
					next = n
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(append(errs, ctx.Err())...)
}

// WriteIdle writes what IdleSessions measured.
func WriteIdle(w io.Writer, r IdleResult) error {
	_, err := fmt.Fprintf(w, "mcpgen idle sessions (in process, streamable.Handler, JSON responses): %d\n"+
		"  per session: %.0f B heap + %.0f B stack = %.2f KiB, %.2f goroutines\n"+
		"  opened in %v, deleted in %v\n"+
		"  after DELETE and GC: heap %+d B, stack %+d B, goroutines %+d, sessions running %d (relative to before)\n",
		r.Sessions, r.HeapPerSession, r.StackPerSession, (r.HeapPerSession+r.StackPerSession)/1024,
		r.GoroutinesPerSession, r.Open.Round(time.Millisecond), r.Close.Round(time.Millisecond),
		r.HeapAfter, r.StackAfter, r.GoroutinesAfter, r.SessionsAfter)
	return err
}
