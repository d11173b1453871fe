package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// ModernVersion is the protocol version of the requests Modern sends.
const ModernVersion = "2026-07-28"

// modernMeta is the _meta member of every request Modern sends: a client
// that declares the tasks extension, and so may be answered with a task.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion + `",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"tasks-bench","version":"0.0.0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"` + server.ExtensionTasks + `":{}}}}`

// modernCallParams are the params of the echo tools/call. The engine may
// hold them while the task runs, so they are never written to.
var modernCallParams = []byte(`{` + modernMeta + `,"name":"echo","arguments":{"text":"` + Text + `"}}`)

// Modern drives mcpgen's server in the 2026-07-28 era through
// Server.ServeCall, with no transport: each request is a Call carrying its
// own _meta, and belongs to no session.
//
// A Modern is not safe for concurrent use, except by Many.
type Modern struct {
	s    *server.Server
	next int64    // the next request id
	get  []byte   // the params of a tasks/get being written
	sc   scanner  // the reader of answers
	ids  [][]byte // for Many: each task's id, its buffer kept
}

// NewModern returns a Modern driving a new mcpgen server with the echo
// tool, which runs as a task whenever the client can take one.
func NewModern() (*Modern, error) {
	s, err := newMCPGen()
	if err != nil {
		return nil, err
	}
	return &Modern{s: s, next: 1}, nil
}

// Close closes the server, which ends its tasks' handlers and drops their
// records.
func (m *Modern) Close(ctx context.Context) error { return closeMCPGen(ctx, m.s) }

// Task runs one task's whole life: the echo tools/call, which must be
// answered with resultType "task", then tasks/get until the task has
// completed, whose answer must inline a result holding [Text]. It returns
// how many tasks/get it took. The client does not wait between polls
// beyond yielding the processor once, so the count shows how soon the
// task finished, not a polling interval.
func (m *Modern) Task(ctx context.Context) (gets int, err error) {
	id, err := m.start(ctx, &m.sc, &m.next)
	if err != nil {
		return 0, err
	}
	m.get = appendGet(m.get[:0], id)
	return m.await(ctx, &m.sc, m.get, &m.next)
}

// Many starts n tasks from workers goroutines, then, once every one of
// them has answered, polls each task with tasks/get until it has
// completed, from workers goroutines again. The server holds all n tasks
// at once: as records once their handlers return, until their TTL. It
// returns how many tasks/get it took in all.
func (m *Modern) Many(ctx context.Context, n, workers int) (gets int, err error) {
	if len(m.ids) < n {
		m.Reserve(n)
	}
	if _, err := m.each(n, workers, func(sc *scanner, _ *[]byte, next *int64, i int) (int, error) {
		id, err := m.start(ctx, sc, next)
		if err != nil {
			return 0, err
		}
		m.ids[i] = append(m.ids[i][:0], id...)
		return 0, nil
	}); err != nil {
		return 0, err
	}
	return m.each(n, workers, func(sc *scanner, buf *[]byte, next *int64, i int) (int, error) {
		*buf = appendGet((*buf)[:0], m.ids[i])
		return m.await(ctx, sc, *buf, next)
	})
}

// Reserve sizes the buffers Many keeps for n tasks, so that memory
// measured around Many is the server's.
func (m *Modern) Reserve(n int) {
	m.ids = make([][]byte, n)
	for i := range m.ids {
		m.ids[i] = make([]byte, 0, 64)
	}
}

// each runs f for i in [0, n) from workers goroutines, each with a scanner,
// a params buffer and request ids of its own, and returns the sum of what
// f returned, or the first error.
func (m *Modern) each(n, workers int, f func(sc *scanner, buf *[]byte, next *int64, i int) (int, error)) (int, error) {
	workers = max(1, min(workers, n))
	var (
		mu    sync.Mutex
		total int
		errs  []error
		wg    sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			var sc scanner
			var buf []byte
			next := int64(w) << 40 // request ids of the worker's own
			sum := 0
			for i := w; i < n; i += workers {
				k, err := f(&sc, &buf, &next, i)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("task %d: %w", i, err))
					mu.Unlock()
					return
				}
				sum += k
			}
			mu.Lock()
			total += sum
			mu.Unlock()
		})
	}
	wg.Wait()
	return total, errors.Join(errs...)
}

var (
	resultTypeTask = []byte("task")
	statusWorking  = []byte("working")
	statusDone     = []byte("completed")
)

// start serves the echo tools/call with the request id *next, which it
// advances, and returns the id of the task that answered it, aliasing the
// answer.
func (m *Modern) start(ctx context.Context, sc *scanner, next *int64) ([]byte, error) {
	*next++
	raw, err := m.s.ServeCall(ctx, &server.Call{ID: jsonrpc.IntID(*next), Method: "tools/call", Params: modernCallParams})
	if err != nil {
		return nil, fmt.Errorf("tools/call: %w", err)
	}
	rt, _, _, err := sc.task(raw)
	if err != nil {
		return nil, fmt.Errorf("tools/call: %w: %s", err, raw)
	}
	if !bytes.Equal(rt, resultTypeTask) {
		return nil, fmt.Errorf("tools/call: resultType %q, want %q: %s", rt, resultTypeTask, raw)
	}
	id, err := sc.taskID(raw)
	if err != nil {
		return nil, fmt.Errorf("tools/call: %w: %s", err, raw)
	}
	return id, nil
}

// await polls tasks/get with params, with request ids from *next, until the task has completed, checks
// the result it inlines, and returns how many tasks/get it took.
func (m *Modern) await(ctx context.Context, sc *scanner, params []byte, next *int64) (int, error) {
	for gets := 1; ; gets++ {
		*next++
		raw, err := m.s.ServeCall(ctx, &server.Call{ID: jsonrpc.IntID(*next), Method: "tasks/get", Params: params})
		if err != nil {
			return gets, fmt.Errorf("tasks/get: %w", err)
		}
		_, status, inner, err := sc.task(raw)
		if err != nil {
			return gets, fmt.Errorf("tasks/get: %w: %s", err, raw)
		}
		switch {
		case bytes.Equal(status, statusDone):
			if err := checkResult(inner); err != nil {
				return gets, fmt.Errorf("tasks/get: %w", err)
			}
			return gets, nil
		case bytes.Equal(status, statusWorking):
			runtime.Gosched()
		default:
			return gets, fmt.Errorf("tasks/get: status %q: %s", status, raw)
		}
		if err := ctx.Err(); err != nil {
			return gets, err
		}
	}
}

// appendGet appends the params of tasks/get for the task id to b.
func appendGet(b, id []byte) []byte {
	b = append(b, `{`+modernMeta+`,"taskId":"`...)
	b = append(b, id...)
	return append(b, `"}`...)
}
