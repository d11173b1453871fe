package tasks

import (
	"context"
	"runtime"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// tasksPerServer is how many tasks a benchmark runs on one server before
// replacing it, off the clock: the tasks one requestor may hold in
// mcpgen's default store, finished ones included, until their TTL (an
// hour). mcp-go keeps a task that has no TTL for as long as the server
// lives. Every server so holds between 0 and tasksPerServer tasks while
// it is measured.
const tasksPerServer = tasks.DefaultMaxPerOwner

// manyTasks is how many tasks BenchmarkMany has a server hold at once:
// mcpgen's default bound per requestor, which its default bound on
// running handlers (server.DefaultMaxRunningTasks) equals.
const manyTasks = tasks.DefaultMaxPerOwner

// manyWindow is how many requests BenchmarkMany keeps in flight: within
// what every server accepts without pushing back (mcp-go queues 100 tool
// calls for its workers, mcpgen handles 256 requests at once), and
// BenchmarkMany's goroutines for 2026-07-28.
const manyWindow = 64

// BenchmarkTask measures one task's whole life, the client's round trips
// included. In 2025-11-25, over net.Pipe with the raw client: tools/call
// with "task":{}, answered with the task, then tasks/result. In 2026-07-28
// (mcpgen alone), through Server.ServeCall: tools/call declaring the
// extension, then tasks/get until completed; gets/task is how many that
// took. The allocations include the client's, which allocates nothing per
// task. In 2025-11-25 notes/task counts the notifications the server sent
// (notifications/tasks/status), read and skipped by the client.
func BenchmarkTask(b *testing.B) {
	for _, s := range Servers {
		b.Run(LegacyVersion+"/"+s.Name, func(b *testing.B) {
			c := openSession(b, s)
			held, notes := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				if held == tasksPerServer {
					b.StopTimer()
					notes += closeSession(b, c)
					c, held = openSession(b, s), 0
					b.StartTimer()
				}
				if err := c.Task(); err != nil {
					b.Fatal(err)
				}
				held++
			}
			notes += closeSession(b, c)
			b.ReportMetric(float64(notes)/float64(b.N), "notes/task")
		})
	}
	b.Run(ModernVersion+"/mcpgen", func(b *testing.B) {
		ctx := context.Background()
		m := newModern(b)
		held, gets := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			if held == tasksPerServer {
				b.StopTimer()
				closeModern(b, m)
				m, held = newModern(b), 0
				b.StartTimer()
			}
			k, err := m.Task(ctx)
			if err != nil {
				b.Fatal(err)
			}
			held++
			gets += k
		}
		closeModern(b, m)
		b.ReportMetric(float64(gets)/float64(b.N), "gets/task")
	})
}

// BenchmarkMany has a fresh server start manyTasks tasks, manyWindow
// requests in flight, then fetch all their results the same way; one op
// is all of them, the server replaced between ops off the clock. Besides
// ns/task it reports, per task, what the heap held after a GC once all the
// tasks had finished and been fetched, which the server keeps until their
// TTL (heap-B/task), and the bytes and objects allocated meanwhile
// (alloc-B/task, allocs/task). The heap's transient peak, garbage
// included, is not measured.
func BenchmarkMany(b *testing.B) {
	for _, s := range Servers {
		b.Run(LegacyVersion+"/"+s.Name, func(b *testing.B) {
			var mem memory
			for b.Loop() {
				b.StopTimer()
				c := openSession(b, s)
				c.Reserve(manyTasks)
				mem.before()
				b.StartTimer()
				if err := c.Many(manyTasks, manyWindow); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				mem.after()
				closeSession(b, c)
				b.StartTimer()
			}
			mem.report(b, manyTasks)
		})
	}
	b.Run(ModernVersion+"/mcpgen", func(b *testing.B) {
		ctx := context.Background()
		var mem memory
		gets := 0
		for b.Loop() {
			b.StopTimer()
			m := newModern(b)
			m.Reserve(manyTasks)
			mem.before()
			b.StartTimer()
			k, err := m.Many(ctx, manyTasks, manyWindow)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			mem.after()
			closeModern(b, m)
			b.StartTimer()
			gets += k
		}
		mem.report(b, manyTasks)
		b.ReportMetric(float64(gets)/float64(b.N*manyTasks), "gets/task")
	})
}

// memory sums what the process's heap did over the measured parts of a
// benchmark's ops.
type memory struct {
	start        runtime.MemStats
	ops          int
	live         int64  // growth of the heap's live bytes after a GC
	bytes, count uint64 // allocated
}

// before starts measuring an op: a GC, then the heap's state.
func (m *memory) before() {
	runtime.GC()
	runtime.ReadMemStats(&m.start)
}

// after ends measuring an op: a GC, then what changed since before.
func (m *memory) after() {
	runtime.GC()
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	m.ops++
	m.live += int64(end.HeapAlloc) - int64(m.start.HeapAlloc)
	m.bytes += end.TotalAlloc - m.start.TotalAlloc
	m.count += end.Mallocs - m.start.Mallocs
}

// report adds the per-task metrics and ns/task, for ops of n tasks each.
func (m *memory) report(b *testing.B, n int) {
	if m.ops == 0 {
		return
	}
	tasks := float64(m.ops * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/tasks, "ns/task")
	b.ReportMetric(float64(m.live)/tasks, "heap-B/task")
	b.ReportMetric(float64(m.bytes)/tasks, "alloc-B/task")
	b.ReportMetric(float64(m.count)/tasks, "allocs/task")
}

func openSession(b *testing.B, s Server) *Session {
	b.Helper()
	c, err := Open(context.Background(), s)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// closeSession closes c and returns how many notifications the server
// sent it.
func closeSession(b *testing.B, c *Session) int {
	b.Helper()
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	return c.Notes()
}

func newModern(b *testing.B) *Modern {
	b.Helper()
	m, err := NewModern()
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func closeModern(b *testing.B, m *Modern) {
	b.Helper()
	if err := m.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}
