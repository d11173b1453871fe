package streamable

import (
	"runtime"
	"testing"
)

// BenchmarkSessionMemory opens b.N sessions with initialize and
// notifications/initialized, leaves them idle, and reports what each
// holds: heap bytes (the engine, the session transport, its record and
// the initialize response kept for resumption), goroutine stack bytes,
// and goroutines.
func BenchmarkSessionMemory(b *testing.B) {
	h, ts := serve(b, nil)
	c := newClient(b, ts)
	c.initialize("2025-11-25", "") // warm up pools and the connection
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	b.ResetTimer()
	for range b.N {
		c.sid, c.version = "", ""
		c.initialize("2025-11-25", "")
	}
	b.StopTimer()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if h.SessionCount() != b.N+1 {
		b.Fatalf("%d sessions, want %d", h.SessionCount(), b.N+1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-B/session")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/n, "stack-B/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-g0)/n, "goroutines/session")
	c.hc.CloseIdleConnections()
}
