// Package soak checks that mcpgen's Streamable HTTP server gives back
// what it takes: many sessions opened and closed with calls in flight, some
// of them cancelled by their client, must leave the goroutines and the heap
// where they were. The checks are of leaks, not of speed.
package soak

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

var (
	sessions    = flag.Int("soak.sessions", 1000, "legacy sessions the soak opens and closes")
	duration    = flag.Duration("soak.duration", 2*time.Second, "how long the soak spreads its sessions over")
	concurrency = flag.Int("soak.concurrency", 64, "sessions in progress at once")
)

// Shape of the load: each session makes callsPerSession calls of the work
// tool, which takes workTime; every cancelEvery-th session cancels one call
// mid-flight by closing its request, every deleteEvery-th is deleted while
// one more call runs, and every modernEvery-th session is followed
// by a 2026-07-28 call, which needs no session.
const (
	callsPerSession = 3
	workTime        = 3 * time.Millisecond
	cancelEvery     = 3
	deleteEvery     = 4
	modernEvery     = 5
)

// What may remain once everything closed: a few goroutines the runtime or
// net/http start lazily, and the heap within twice its baseline plus
// heapSlack.
const (
	goroutineSlack = 5
	heapSlack      = 8 << 20
	settleTime     = 5 * time.Second
)

// BenchmarkSoak serves an engine with a tool that takes a few
// milliseconds with streamable.NewHandler (its defaults: SSE answers) on a
// loopback httptest server, and opens -soak.sessions legacy sessions spread
// over -soak.duration, -soak.concurrency at a time: initialize,
// notifications/initialized, calls (some cancelled mid-flight, some still
// running when the session is deleted), DELETE; some 2026-07-28 calls
// between them. It reports goroutines and heap (after GC) at the baseline,
// at the peak and once everything closed, and fails when the goroutines or
// the heap do not come back. Each iteration is one whole soak; `make soak`
// runs one of 10,000 sessions over 60 s.
func BenchmarkSoak(b *testing.B) {
	for range b.N {
		soak(b, *sessions, *duration, *concurrency)
	}
}

// load counts what the soak did.
type load struct {
	sessions, calls, cancelled, modern, deletedBusy atomic.Int64
	errMu                                           sync.Mutex
	errs                                            []error
}

func (l *load) fail(err error) {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if len(l.errs) < 10 {
		l.errs = append(l.errs, err)
	}
}

func soak(b *testing.B, n int, spread time.Duration, workers int) {
	h := streamable.NewHandler(newEngine(b), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	c := &soakClient{hc: hc, url: ts.URL}

	// A session first, so that what is allocated once (pools, the
	// engine's tables, net/http's first connection) is in the baseline.
	var warm load
	c.session(context.Background(), 0, &warm)
	if len(warm.errs) > 0 {
		b.Fatalf("warm-up session: %v", warm.errs[0])
	}
	hc.CloseIdleConnections()
	baseG, baseHeap := settle(0, 0)

	var l load
	peak := startSampler()
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i > n {
					return
				}
				if wait := time.Until(start.Add(spread * time.Duration(i-1) / time.Duration(n))); wait > 0 {
					time.Sleep(wait)
				}
				c.session(context.Background(), i, &l)
				if i%modernEvery == 0 {
					c.modernCall(context.Background(), i, &l)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	peakG, peakHeap := peak.stop()
	hc.CloseIdleConnections()
	afterG, afterHeap := settle(baseG+goroutineSlack, 2*baseHeap+heapSlack)

	b.ReportMetric(float64(l.sessions.Load()), "sessions")
	b.ReportMetric(float64(l.sessions.Load())/elapsed.Seconds(), "sessions/s")
	b.ReportMetric(float64(l.calls.Load()), "calls")
	b.ReportMetric(float64(l.cancelled.Load()), "cancelled")
	b.ReportMetric(float64(l.deletedBusy.Load()), "deleted-busy")
	b.ReportMetric(float64(l.modern.Load()), "modern-calls")
	b.ReportMetric(float64(baseG), "goroutines-base")
	b.ReportMetric(float64(peakG), "goroutines-peak")
	b.ReportMetric(float64(afterG), "goroutines-after")
	b.ReportMetric(mib(baseHeap), "heap-MiB-base")
	b.ReportMetric(mib(peakHeap), "heap-MiB-peak")
	b.ReportMetric(mib(afterHeap), "heap-MiB-after")

	if len(l.errs) > 0 {
		b.Fatalf("%d sessions: calls failed, first: %v", n, errors.Join(l.errs...))
	}
	if left := h.SessionCount(); left != 0 {
		b.Fatalf("%d sessions still running after every one was deleted", left)
	}
	if afterG > baseG+goroutineSlack {
		var dump strings.Builder
		pprof.Lookup("goroutine").WriteTo(&dump, 1)
		b.Fatalf("goroutines: %d at the baseline, %d at the peak, %d %v after everything closed (slack %d):\n%s",
			baseG, peakG, afterG, settleTime, goroutineSlack, dump.String())
	}
	if afterHeap > 2*baseHeap+heapSlack {
		b.Fatalf("heap: %.1f MiB at the baseline, %.1f MiB at the peak, %.1f MiB after everything closed (limit twice the baseline + %d MiB)",
			mib(baseHeap), mib(peakHeap), mib(afterHeap), heapSlack>>20)
	}
}

// newEngine returns an engine with the tool work, which takes workTime
// unless its call is cancelled first, and answers "done".
func newEngine(b *testing.B) *server.Server {
	s := server.New(mcp.Implementation{Name: "soak", Version: "1.0.0"}, nil)
	var def mcp.Tool
	if err := def.UnmarshalJSON([]byte(`{"name":"work","inputSchema":{"type":"object"}}`)); err != nil {
		b.Fatal(err)
	}
	err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		t := time.NewTimer(workTime)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// settle collects garbage until the goroutines and the heap are within the
// bounds given (zero: until they stop falling), or settleTime passes, and
// returns them.
func settle(maxG int, maxHeap uint64) (goroutines int, heap uint64) {
	deadline := time.Now().Add(settleTime)
	prevG, prevHeap := -1, uint64(0)
	for {
		goroutines, heap = measure()
		within := maxG > 0 && goroutines <= maxG && heap <= maxHeap
		steady := maxG == 0 && goroutines == prevG && heap >= prevHeap
		if within || steady || time.Now().After(deadline) {
			return goroutines, heap
		}
		prevG, prevHeap = goroutines, heap
		time.Sleep(50 * time.Millisecond)
	}
}

// measure returns the goroutines and the heap in use after a GC.
func measure() (int, uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapAlloc
}

// sampler records the most goroutines and heap seen while the soak runs.
type sampler struct {
	stopc chan struct{}
	done  chan struct{}
	g     int
	heap  uint64
}

func startSampler() *sampler {
	s := &sampler{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.g = max(s.g, runtime.NumGoroutine())
	s.heap = max(s.heap, m.HeapAlloc)
}

// stop ends the sampling and returns the peaks.
func (s *sampler) stop() (goroutines int, heap uint64) {
	close(s.stopc)
	<-s.done
	return s.g, s.heap
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// soakClient speaks Streamable HTTP to the soak's server.
type soakClient struct {
	hc  *http.Client
	url string
}

const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// session runs session i: initialize, notifications/initialized, the
// calls, DELETE. Failures are recorded in l.
func (c *soakClient) session(ctx context.Context, i int, l *load) {
	resp, body, err := c.post(ctx, "", initBody, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		l.fail(fmt.Errorf("session %d: initialize: %v %s", i, statusOf(resp, err), body))
		return
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp, body, err := c.post(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); err != nil || resp.StatusCode != http.StatusAccepted {
		l.fail(fmt.Errorf("session %d: notifications/initialized: %v %s", i, statusOf(resp, err), body))
		return
	}
	l.sessions.Add(1)
	var calls sync.WaitGroup
	for k := range callsPerSession {
		calls.Go(func() {
			if k == 0 && i%cancelEvery == 0 {
				c.cancelledCall(ctx, sid, i, l)
			} else {
				c.checkedCall(ctx, sid, i, k, l)
			}
		})
	}
	calls.Wait()
	if i%deleteEvery == 0 {
		c.deleteBusy(ctx, sid, i, l)
		return
	}
	if err := c.delete(ctx, sid); err != nil {
		l.fail(fmt.Errorf("session %d: %v", i, err))
	}
}

// deleteBusy deletes a session while a call of it runs: the call's answer
// has begun, so the engine has it, and the tool takes workTime.
func (c *soakClient) deleteBusy(ctx context.Context, sid string, i int, l *load) {
	resp, err := c.send(ctx, sid, callBody(callsPerSession), nil)
	l.calls.Add(1)
	if err != nil {
		l.fail(fmt.Errorf("session %d: the call the DELETE interrupts: %v", i, err))
		return
	}
	defer resp.Body.Close()
	if err := c.delete(ctx, sid); err != nil {
		l.fail(fmt.Errorf("session %d: with a call running: %v", i, err))
	}
	l.deletedBusy.Add(1)
	io.Copy(io.Discard, resp.Body) // the stream ends with its session
}

// checkedCall makes call k of a session and checks its answer.
func (c *soakClient) checkedCall(ctx context.Context, sid string, i, k int, l *load) {
	resp, body, err := c.post(ctx, sid, callBody(k), nil)
	l.calls.Add(1)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"done"`)) {
		l.fail(fmt.Errorf("session %d: call %d: %v %s", i, k, statusOf(resp, err), body))
	}
}

// cancelledCall makes a call and closes its request once the server has
// started answering, while the tool still works.
func (c *soakClient) cancelledCall(ctx context.Context, sid string, i int, l *load) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.send(ctx, sid, callBody(0), nil)
	l.calls.Add(1)
	if err != nil {
		l.fail(fmt.Errorf("session %d: cancelled call: %v", i, err))
		return
	}
	cancel()
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.cancelled.Add(1)
}

// modernCall makes a 2026-07-28 call, which needs no session.
func (c *soakClient) modernCall(ctx context.Context, i int, l *load) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"soak","version":"1.0.0"}}}}`
	resp, out, err := c.post(ctx, "", body, []string{"MCP-Protocol-Version", modernVersion, "Mcp-Method", "tools/call", "Mcp-Name", "work"})
	l.modern.Add(1)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(`"done"`)) {
		l.fail(fmt.Errorf("2026-07-28 call after session %d: %v %s", i, statusOf(resp, err), out))
	}
}

func (c *soakClient) delete(ctx context.Context, sid string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", legacyVersion)
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("DELETE: %s", resp.Status)
	}
	return nil
}

// send POSTs body, in session sid unless it is "", with the headers of
// hdr (name/value pairs) added.
func (c *soakClient) send(ctx context.Context, sid, body string, hdr []string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", legacyVersion)
	}
	for j := 0; j+1 < len(hdr); j += 2 {
		req.Header.Set(hdr[j], hdr[j+1])
	}
	return c.hc.Do(req)
}

// post is send that reads the whole answer.
func (c *soakClient) post(ctx context.Context, sid, body string, hdr []string) (*http.Response, []byte, error) {
	resp, err := c.send(ctx, sid, body, hdr)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

func statusOf(resp *http.Response, err error) any {
	if err != nil {
		return err
	}
	return resp.Status
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyVersion +
	`","capabilities":{},"clientInfo":{"name":"soak","version":"1.0.0"}}}`

func callBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"work","arguments":{}}}`, id+1)
}
