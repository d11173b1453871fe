package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gateway/heapfloor"
)

// TestMain doubles as the upstream server, as main does.
func TestMain(m *testing.M) {
	if mode := os.Getenv(upstreamEnv); mode != "" {
		if err := serveUpstream(mode); err != nil {
			fmt.Fprintln(os.Stderr, "upstream:", err)
			os.Exit(1)
		}
		return
	}
	// Built with -race, each process this one starts would sleep a
	// second on exit (the race detector's atexit_sleep_ms), and the
	// gateway process, which waits for its upstream's, would outlast the
	// grace period its client gives it.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

// TestPaths checks that every path the benchmarks measure works: each
// tool, both eras, directly and through the gateway, over both
// transports, with two clients at once; and that the memory measure
// runs. It is quick: a few calls each.
func TestPaths(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tr := range transports {
		r, err := newRig(ctx, tr)
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		t.Cleanup(func() {
			if err := r.close(); err != nil {
				t.Errorf("%s: close: %v", tr, err)
			}
		})
		for _, e := range eras {
			for _, via := range ways(tr, e) {
				for _, tool := range []string{toolEcho, toolWork} {
					cs, done, err := r.callers(ctx, via, e, tool, 2)
					if err != nil {
						t.Fatalf("%s %s %s %s: %v", tr, via, e, tool, err)
					}
					s, err := load(ctx, cs, 0, 6)
					done()
					if err != nil {
						t.Fatalf("%s %s %s %s: %v", tr, via, e, tool, err)
					}
					if s.calls != 6 {
						t.Errorf("%s %s %s %s: %d calls timed, want 6", tr, via, e, tool, s.calls)
					}
				}
			}
		}
	}
}

// TestCallerChecksResult makes sure a wrong answer fails a call rather
// than being timed: a tool the upstream does not have.
func TestCallerChecksResult(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := newRig(ctx, overHTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, e := range eras {
		c, err := newHTTPCaller(ctx, r.hc, r.gwURL, e, "missing")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.call(ctx); err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("%s: calling a missing tool: err = %v, want one naming it", e, err)
		}
	}
}

// TestSessionMemory runs the memory measure on a few sessions; the
// figure itself is the benchmark's.
func TestSessionMemory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ds, err := startDirectServer()
	if err != nil {
		t.Fatal(err)
	}
	defer ds.close()
	for _, e := range eras {
		if _, err := sessionMemory(ctx, newHTTPClient(2), ds.url, e, 5); err != nil {
			t.Errorf("%s: %v", e, err)
		}
	}
}

// BenchmarkGateway makes b.N tool calls, split among C clients, directly
// and through the gateway, for each transport, tool and era:
//
//	go test -run '^$' -bench BenchmarkGateway -benchmem ./gateway/
//
// Besides ns/op (wall time per call, so its inverse is the throughput
// with C clients), each reports p50-µs, p99-µs, calls/s and cpu-µs/op,
// the processor time of this process per call (the callers', and the
// gateway's through it); comparing a /gateway result with its /direct
// sibling gives what the gateway adds. The allocations are this
// process's too: the callers' alone directly.
func BenchmarkGateway(b *testing.B) {
	undo, _ := heapfloor.Keep(os.Getenv) // as mcpgen-gateway, and main here, run
	defer undo()
	ctx := context.Background()
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			r, err := newRig(ctx, tr)
			if err != nil {
				b.Fatal(err)
			}
			defer r.close()
			for _, tool := range []string{toolEcho, toolWork} {
				for _, e := range eras {
					for _, c := range []int{1, 16} {
						for _, via := range ways(tr, e) {
							name := fmt.Sprintf("%s/%s/C=%d/%s", tool, eraName(e), c, via)
							b.Run(name, func(b *testing.B) { benchCalls(b, r, via, e, tool, c) })
						}
					}
				}
			}
		})
	}
}

func eraName(e era) string {
	if e == legacy {
		return "legacy"
	}
	return "modern"
}

func benchCalls(b *testing.B, r *rig, via string, e era, tool string, clients int) {
	ctx := context.Background()
	cs, done, err := r.callers(ctx, via, e, tool, clients)
	if err != nil {
		b.Fatal(err)
	}
	defer done()
	if _, err := load(ctx, cs, 0, int64(2*clients)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	s, err := load(ctx, cs, 0, int64(b.N))
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(s.p50)/1e3, "p50-µs")
	b.ReportMetric(float64(s.p99)/1e3, "p99-µs")
	b.ReportMetric(s.perSec(), "calls/s")
	b.ReportMetric(float64(s.cpuPerCall())/1e3, "cpu-µs/op")
}

// BenchmarkGatewaySessionMemory opens b.N downstream clients of each era,
// directly to the upstream's handler and through the gateway, both in
// this process, and reports the heap growth per client (B/session): for
// legacy, sessions left open; for 2026-07-28, clients that made one call.
// Sessions are opened 2000 at a time, well under the handler's cap.
func BenchmarkGatewaySessionMemory(b *testing.B) {
	ctx := context.Background()
	ds, err := startDirectServer()
	if err != nil {
		b.Fatal(err)
	}
	defer ds.close()
	r, err := newRig(ctx, overHTTP)
	if err != nil {
		b.Fatal(err)
	}
	defer r.close()
	for _, e := range eras {
		for _, via := range []string{viaDirect, viaGateway} {
			url := ds.url
			if via == viaGateway {
				url = r.gwURL
			}
			b.Run(eraName(e)+"/"+via, func(b *testing.B) {
				var bytes float64
				for left := b.N; left > 0; {
					n := min(left, 2000)
					per, err := sessionMemory(ctx, r.hc, url, e, n)
					if err != nil {
						b.Fatal(err)
					}
					bytes += per * float64(n)
					left -= n
				}
				b.ReportMetric(bytes/float64(b.N), "B/session")
			})
		}
	}
}
