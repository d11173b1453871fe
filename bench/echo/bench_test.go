package echo

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// entries are the rows every benchmark measures: each server in each era.
var entries = Entries(Servers, Eras)

// BenchmarkStdio measures each server as a subprocess over stdio, with 1
// and 32 requests in flight, in each era. Besides ns/op (the inverse of
// throughput) it reports calls/s, the server's CPU µs per call and its
// peak RSS.
func BenchmarkStdio(b *testing.B) {
	for _, w := range []int{1, 32} {
		for _, e := range entries {
			b.Run(fmt.Sprintf("W=%d/%s", w, e), func(b *testing.B) {
				p, err := Start(bins[e.Name], e.Era)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := p.Close(); err != nil {
						b.Error(err)
					}
				}()
				if e.Era == Legacy {
					if _, err := p.Initialize(); err != nil {
						b.Fatal(err)
					}
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

// BenchmarkStart spawns each server's program once per iteration and
// waits for its answer to initialize; ns/op is the start time, also
// reported as start-ms with its 90th percentile.
func BenchmarkStart(b *testing.B) {
	for _, s := range Servers {
		b.Run(s.Name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for b.Loop() {
				d, err := StartOnce(bins[s.Name])
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, d)
			}
			b.ReportMetric(float64(Median(times))/float64(time.Millisecond), "start-ms")
			b.ReportMetric(float64(Quantile(times, 0.9))/float64(time.Millisecond), "p90-ms")
		})
	}
}

// BenchmarkHTTP measures each server as a subprocess serving Streamable
// HTTP in JSON-response mode on loopback, with 1 and 16 concurrent
// clients, each with one call in flight over its own keep-alive
// connection, in each era. Besides ns/op (the inverse of throughput) it
// reports calls/s, the server's CPU µs per call and its peak RSS.
func BenchmarkHTTP(b *testing.B) {
	for _, c := range []int{1, 16} {
		for _, e := range entries {
			b.Run(fmt.Sprintf("C=%d/%s", c, e), func(b *testing.B) {
				p, err := StartHTTP(bins[e.Name], e.httpArgs()...)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := p.Close(); err != nil {
						b.Error(err)
					}
				}()
				l, err := NewHTTPLoad(p.URL, c, e.Era)
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

// BenchmarkClients has 2,000 clients of each entry come to its server in
// this process over Streamable HTTP, make three calls each and leave
// without DELETE, and reports what the server still holds per client.
// One iteration takes seconds; the time per op is of no interest.
func BenchmarkClients(b *testing.B) {
	const clients = 2000
	for _, e := range entries {
		b.Run(e.String(), func(b *testing.B) {
			var r ClientsResult
			for b.Loop() {
				var err error
				if r, err = Clients(b.Context(), e, clients, 3, 8); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.HeapPerClient, "heap-B/client")
			b.ReportMetric(r.StackPerClient, "stack-B/client")
			b.ReportMetric(r.GoroutinesPerClient, "goroutines/client")
			b.ReportMetric(float64(r.Sessions), "sessions-left")
		})
	}
}

// BenchmarkInProcess measures one tools/call round trip through net.Pipe
// with client and server in this process, in each era. The allocations
// include the shared raw client's, which are the same for every server
// and nothing per call. cpu-ns/op is the process's user+system CPU time
// per call, both ends of the pipe.
func BenchmarkInProcess(b *testing.B) {
	for _, e := range entries {
		if e.Serve == nil {
			continue
		}
		b.Run(e.String(), func(b *testing.B) {
			c, err := Pipe(context.Background(), e.Server, e.Era)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := c.Close(); err != nil {
					b.Error(err)
				}
			}()
			if e.Era == Legacy {
				if _, err := c.Initialize(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			cpu := startCPU(b)
			for b.Loop() {
				if _, err := c.Echo(1, 1, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report()
		})
	}
}

// BenchmarkHandler measures one tools/call served by each server's
// Streamable HTTP handler called directly in this process ([Direct]): no
// network, no HTTP server or client, so ns/op, cpu-ns/op and allocs/op
// are the handler's alone (the client allocates nothing per call). It is
// the cost the two eras' paths through a library differ by, without the
// noise of loopback TCP.
func BenchmarkHandler(b *testing.B) {
	for _, e := range entries {
		b.Run(e.String(), func(b *testing.B) {
			s, err := directSession(e)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := startCPU(b)
			for b.Loop() {
				if err := s.Echo(); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report()
		})
	}
}

// directSession returns a client of e's era for e's handler called in
// this process, initialized when legacy.
func directSession(e Entry) (*HTTPSession, error) {
	h, err := e.Handler()
	if err != nil {
		return nil, err
	}
	s, err := NewEraHTTPSession(NewDirect(h), "http://localhost/mcp", e.Era, "echo-bench")
	if err != nil {
		return nil, err
	}
	if e.Era == Legacy {
		if _, err := s.Initialize(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// cpuClock measures the process's CPU time over a benchmark's loop.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) cpuClock { return cpuClock{b, processCPU(b)} }

// report adds cpu-ns/op, the process's user+system CPU time per
// iteration; it may exceed ns/op when more than one goroutine runs.
func (c cpuClock) report() {
	if n := c.b.N; n > 0 {
		c.b.ReportMetric(float64(processCPU(c.b)-c.start)/float64(n), "cpu-ns/op")
	}
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
