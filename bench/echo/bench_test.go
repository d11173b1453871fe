package echo

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkStdio measures each server as a subprocess over stdio, with 1
// and 32 requests in flight. Besides ns/op (the inverse of throughput) it
// reports calls/s, the server's CPU µs per call and its peak RSS.
func BenchmarkStdio(b *testing.B) {
	for _, w := range []int{1, 32} {
		for _, s := range Servers {
			b.Run(fmt.Sprintf("W=%d/%s", w, s.Name), func(b *testing.B) {
				p, err := Start(bins[s.Name])
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := p.Close(); err != nil {
						b.Error(err)
					}
				}()
				if _, err := p.Initialize(); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Echo(0, w, time.Now().Add(100*time.Millisecond)); err != nil {
					b.Fatal(err)
				}
				cpu0, err := p.CPU()
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				if _, err := p.Echo(b.N, w, time.Time{}); err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				b.StopTimer()
				cpu1, err := p.CPU()
				if err != nil {
					b.Fatal(err)
				}
				rss, err := p.PeakRSS()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
				b.ReportMetric(micros(cpu1-cpu0)/float64(b.N), "cpu-µs/call")
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
			})
		}
	}
}

// BenchmarkHTTP measures each server as a subprocess serving Streamable
// HTTP in JSON-response mode on loopback, with 1 and 16 concurrent
// sessions, each with one call in flight over its own keep-alive
// connection. Besides ns/op (the inverse of throughput) it reports
// calls/s, the server's CPU µs per call and its peak RSS.
func BenchmarkHTTP(b *testing.B) {
	for _, c := range []int{1, 16} {
		for _, s := range Servers {
			b.Run(fmt.Sprintf("C=%d/%s", c, s.Name), func(b *testing.B) {
				p, err := StartHTTP(bins[s.Name])
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := p.Close(); err != nil {
						b.Error(err)
					}
				}()
				l, err := NewHTTPLoad(p.URL, c)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := l.Close(); err != nil {
						b.Error(err)
					}
				}()
				if _, err := l.Echo(0, time.Now().Add(100*time.Millisecond)); err != nil {
					b.Fatal(err)
				}
				cpu0, err := p.CPU()
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				if _, err := l.Echo(b.N, time.Time{}); err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				b.StopTimer()
				cpu1, err := p.CPU()
				if err != nil {
					b.Fatal(err)
				}
				rss, err := p.PeakRSS()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
				b.ReportMetric(micros(cpu1-cpu0)/float64(b.N), "cpu-µs/call")
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
			})
		}
	}
}

// BenchmarkIdleSessions opens 10,000 idle mcpgen sessions over Streamable
// HTTP in this process, then deletes them, and reports the heap, stack
// and goroutines each held, and what was left after deleting them all.
// One iteration takes seconds; the time per op is of no interest.
func BenchmarkIdleSessions(b *testing.B) {
	const sessions = 10000
	var r IdleResult
	for b.Loop() {
		var err error
		if r, err = IdleSessions(b.Context(), sessions, 8); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.HeapPerSession, "heap-B/session")
	b.ReportMetric(r.StackPerSession, "stack-B/session")
	b.ReportMetric(r.GoroutinesPerSession, "goroutines/session")
	b.ReportMetric(float64(r.HeapAfter), "heap-B-left")
	b.ReportMetric(float64(r.GoroutinesAfter), "goroutines-left")
}

// BenchmarkInProcess measures one tools/call round trip through net.Pipe
// with client and server in this process. The allocations include the
// shared raw client's, which are the same for every server.
func BenchmarkInProcess(b *testing.B) {
	for _, s := range Servers {
		if s.Serve == nil {
			continue
		}
		b.Run(s.Name, func(b *testing.B) {
			c, err := Pipe(context.Background(), s)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := c.Close(); err != nil {
					b.Error(err)
				}
			}()
			if _, err := c.Initialize(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Echo(1, 1, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
