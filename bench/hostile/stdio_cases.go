package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Deadlines of the phases of the cases.
const (
	handshakeWait = 5 * time.Second  // initialize and its answer
	stormWait     = 20 * time.Second // a flood of calls to be answered
	pingWait      = 5 * time.Second  // a ping sent behind the flood
	exitWait      = 5 * time.Second  // the process to exit after stdin closed
	shutdownWait  = 15 * time.Second // the process to exit after SIGTERM
)

// sampleArgs are the sample tool's arguments.
var sampleArgs = map[string]any{"prompt": "hello"}

// slowArgs are the slow tool's arguments for calls of d.
func slowArgs(d time.Duration) map[string]any { return map[string]any{"ms": d.Milliseconds()} }

// stdioCount asks a stdio server for the slow tool's counters.
func stdioCount(c *peer) func(context.Context) (counts, error) {
	return func(ctx context.Context) (counts, error) {
		m, err := c.call(ctx, func(id any) []byte { return call(id, "count", nil, "") })
		if err != nil {
			return counts{}, err
		}
		return parseCounts(m)
	}
}

// SamplingStdio sends 1000 calls of the sample tool at once over stdio,
// answering every sampling request they make (once all have come, or two
// seconds after the first), then a ping, then closes stdin.
func SamplingStdio(ctx context.Context, s Server) []Row {
	const n = 1000
	label := fmt.Sprintf("1. %d sampling calls at once, stdio", n)
	p, c, err := s.stdio()
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	hctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	if err := c.handshake(hctx); err != nil {
		return failed(label, err)
	}
	c.hold(newGate(n))
	sctx, cancel := context.WithTimeout(ctx, stormWait)
	defer cancel()
	b := newBatch(n)
	for range n {
		ch := c.request(func(id any) []byte { return call(id, "sample", sampleArgs, "") })
		go func() {
			m, err := c.await(sctx, ch)
			if err == nil && m.Error != nil {
				err = m.Error
			}
			b.add(err)
		}()
	}
	ping := pingAfter(sctx, func(ctx context.Context) error {
		_, err := c.call(ctx, func(id any) []byte { return request(id, "ping", nil) })
		return err
	})
	b.wait(sctx)
	rows := []Row{{label, b.String()}, {"1. ping sent behind them", ping()}}

	c.closeInput()
	closed := time.Now()
	exit := fmt.Sprintf("still running %s later", secs(exitWait))
	if p.waitExit(exitWait) {
		exit = "exits in " + millis(p.end.Sub(closed))
	}
	return append(rows, Row{"1. then stdin closed", exit})
}

// pingAfter sends a ping through ping now and returns a function that
// waits up to pingWait for its answer and reports it.
func pingAfter(ctx context.Context, ping func(context.Context) error) func() string {
	ctx, cancel := context.WithTimeout(ctx, pingWait)
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		err := ping(ctx)
		switch {
		case err == nil:
			done <- "answered in " + millis(time.Since(start))
		case errors.Is(err, context.DeadlineExceeded):
			done <- "no answer in " + secs(pingWait)
		default:
			done <- "error: " + clip(err.Error(), 60)
		}
	}()
	return func() string {
		defer cancel()
		return <-done
	}
}

// CancelStorm sends 500 calls of the slow tool over stdio and cancels
// each with notifications/cancelled, then waits for the server to be idle
// again: once with each cancellation right behind its call, once with
// the 500 cancellations behind the 500 calls, as a client that gives up
// on a burst of calls sends them.
func CancelStorm(ctx context.Context, s Server) []Row {
	return append(storm(ctx, s, false), storm(ctx, s, true)...)
}

func storm(ctx context.Context, s Server, burst bool) []Row {
	const n = 500
	const slow = 2 * time.Second
	order := "each cancel right behind its call"
	if burst {
		order = "all calls, then all cancels"
	}
	label := fmt.Sprintf("3. %d slow (%s) calls cancelled, %s, stdio: idle after", n, slow, order)
	ranLabel := fmt.Sprintf("3. … %s: handlers that ran to the end", order)
	p, c, err := s.stdio()
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	hctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	if err := c.handshake(hctx); err != nil {
		return failed(label, err)
	}
	start := time.Now()
	ids := make([]any, 0, n)
	for range n {
		c.request(func(id any) []byte {
			ids = append(ids, id)
			return call(id, "slow", slowArgs(slow), "")
		})
		if !burst {
			c.send(cancelled(ids[len(ids)-1]))
		}
	}
	if burst {
		for _, id := range ids {
			c.send(cancelled(id))
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	idle, last, err := awaitIdle(wctx, stdioCount(c))
	if err != nil {
		return []Row{{label, fmt.Sprintf("not idle: %s (%s later)", clip(err.Error(), 60), secs(time.Since(start)))},
			{ranLabel, fmt.Sprintf("%d of %d so far (%d running)", last.completed, n, last.running)}}
	}
	return []Row{{label, secs(idle.Sub(start))}, {ranLabel, fmt.Sprintf("%d of %d", last.completed, n)}}
}

// awaitIdle polls count until no slow handler runs on two polls in a
// row, and returns when the first of them was answered and the last
// counts.
func awaitIdle(ctx context.Context, count func(context.Context) (counts, error)) (time.Time, counts, error) {
	var zeroAt time.Time
	var last counts
	for {
		c, err := count(ctx)
		if err != nil {
			return time.Time{}, last, err
		}
		last = c
		switch {
		case c.running > 0:
			zeroAt = time.Time{}
		case zeroAt.IsZero():
			zeroAt = time.Now()
		default:
			return zeroAt, c, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, last, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// The spam tool's calls: 200,000 progress notifications of 1 KB.
const spamN, spamSize = 200_000, 1024

// spamArgs are the spam tool's arguments.
var spamArgs = map[string]any{"n": spamN, "size": spamSize}

// NonReading calls the spam tool over stdio and never reads the server's
// stdout after the handshake, watching the server's memory and how far
// the handler gets.
func NonReading(ctx context.Context, s Server) []Row {
	label := "4. 200k × 1 KB progress, client stops reading, stdio: handler"
	p, err := startProc([]string{s.Bin, "-stdio"}, 0)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	out := bufio.NewReader(p.stdout)
	if _, err := p.stdin.Write(append(initialize(1), '\n')); err != nil {
		return failed(label, err)
	}
	if _, err := readLine(ctx, out, handshakeWait); err != nil {
		return failed(label, fmt.Errorf("initialize: %w", err))
	}
	frames := [][]byte{initialized(), call(2, "spam", spamArgs, "t")}
	if _, err := p.stdin.Write(append(bytes.Join(frames, []byte("\n")), '\n')); err != nil {
		return failed(label, err)
	}
	state, memory := watchSpam(ctx, p)
	return []Row{{label, state}, {"4. … stdio: server's peak RSS; heap", memory}}
}

// NonReadingHTTP calls the spam tool in a Streamable HTTP session and
// never reads the body of the POST's answer.
func NonReadingHTTP(ctx context.Context, s Server) []Row {
	label := "4. 200k × 1 KB progress, client stops reading, HTTP: handler"
	p, c, err := httpSession(ctx, s)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	defer c.close()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		resp, err := c.post(pctx, call(2, "spam", spamArgs, "t"))
		if err == nil {
			<-pctx.Done() // hold the answer unread
			resp.Body.Close()
		}
	}()
	state, memory := watchSpam(ctx, p)
	return []Row{{label, state}, {"4. … HTTP: server's peak RSS; heap", memory}}
}

// watchSpam watches a server whose spam tool runs until the handler
// finishes, fails, or makes no progress for three seconds, and reports
// how it ended and the most memory the server held.
func watchSpam(ctx context.Context, p *proc) (state, memory string) {
	start := time.Now()
	var peak, heap int64
	sent, changed := -1, time.Now()
	deadline := time.After(45 * time.Second)
	for state == "" {
		select {
		case <-deadline:
			state = fmt.Sprintf("still sending after 45 s (%d sent)", max(sent, 0))
		case <-ctx.Done():
			state = "timeout"
		case <-p.exited:
			state = "the server exited: " + p.stderr.String()
		case <-time.After(100 * time.Millisecond):
		}
		if hwm, _, err := p.memory(); err == nil {
			peak = max(peak, hwm)
		}
		line := p.stderr.lastWith("spam ")
		if h, ok := heapOf(line); ok {
			heap = max(heap, h)
		}
		switch now, k := time.Now(), spamCount(line); {
		case strings.HasPrefix(line, "spam done"):
			state = fmt.Sprintf("sent all %d in %s, never blocked", spamN, secs(now.Sub(start)))
			time.Sleep(time.Second) // what it queued may still grow
			if hwm, _, err := p.memory(); err == nil {
				peak = max(peak, hwm)
			}
		case strings.HasPrefix(line, "spam error"):
			state = "failed: " + clip(line, 60)
		case k != sent:
			sent, changed = k, now
		case now.Sub(changed) > 3*time.Second:
			state = fmt.Sprintf("blocked after %d–%d sent", sent, sent+spamEvery)
		}
	}
	return state, fmt.Sprintf("%s; %s", mb(peak), mb(heap))
}

// spamEvery is tally.SpamEvery, how often the spam tool reports.
const spamEvery = 1000

// spamCount reads the count of a "spam N ..." line, or -1.
func spamCount(line string) int {
	f := strings.Fields(line)
	if len(f) < 2 {
		return -1
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return n
}

// heapOf reads the heap=BYTES of a spam line.
func heapOf(line string) (int64, bool) {
	_, v, ok := strings.Cut(line, "heap=")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// readLine reads one line of out within d.
func readLine(ctx context.Context, out *bufio.Reader, d time.Duration) ([]byte, error) {
	got := make(chan []byte, 1)
	fail := make(chan error, 1)
	go func() {
		line, err := out.ReadBytes('\n')
		if err != nil {
			fail <- err
			return
		}
		got <- line
	}()
	select {
	case l := <-got:
		return l, nil
	case err := <-fail:
		return nil, err
	case <-time.After(d):
		return nil, fmt.Errorf("no line in %s", secs(d))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ShutdownStdio sends 10 calls of the slow tool (2 s) over stdio, and
// SIGTERM once they all run.
func ShutdownStdio(ctx context.Context, s Server) []Row {
	const n = 10
	const slow = 2 * time.Second
	label := fmt.Sprintf("8. SIGTERM with %d × %s calls in flight, stdio", n, slow)
	p, c, err := s.stdio()
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	hctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	if err := c.handshake(hctx); err != nil {
		return failed(label, err)
	}
	sctx, cancel := context.WithTimeout(ctx, shutdownWait)
	defer cancel()
	b := newBatch(n)
	for range n {
		ch := c.request(func(id any) []byte { return call(id, "slow", slowArgs(slow), "") })
		go func() {
			m, err := c.await(sctx, ch)
			if err == nil && m.Error != nil {
				err = m.Error
			}
			b.add(err)
		}()
	}
	if err := awaitRunning(sctx, stdioCount(c), n, handshakeWait); err != nil {
		return failed(label, err)
	}
	return []Row{{label, terminate(sctx, p, b)}}
}

// terminate sends SIGTERM to p and reports how many of b's calls were
// answered and when p exited.
func terminate(ctx context.Context, p *proc, b *batch) string {
	sent := time.Now()
	if err := p.signal(syscall.SIGTERM); err != nil {
		return "error: " + err.Error()
	}
	if !p.waitExit(shutdownWait) {
		b.wait(ctx)
		return fmt.Sprintf("%d of %d answered; no exit in %s", b.ok, b.n, secs(shutdownWait))
	}
	exit := p.end.Sub(sent)
	b.wait(ctx) // the outcomes of the calls come once the stream ends
	b.mu.Lock()
	defer b.mu.Unlock()
	s := fmt.Sprintf("%d of %d answered", b.ok, b.n)
	if b.errs > 0 {
		s += fmt.Sprintf(" (+%d errors: %s)", b.errs, clip(b.first.Error(), 40))
	}
	return s + ", exit after " + secs(exit)
}

// PipelinedStart writes initialize, notifications/initialized,
// tools/list and tools/call at once, closes stdin, and reads what comes
// back; five times, each on a fresh process.
func PipelinedStart(ctx context.Context, s Server) []Row {
	const runs = 5
	names := []string{"initialize", "tools/list", "tools/call"}
	outcomes := make([]map[string]int, len(names))
	for i := range outcomes {
		outcomes[i] = make(map[string]int)
	}
	frames := [][]byte{initialize(1), initialized(), request(2, "tools/list", nil), call(3, "count", nil, "")}
	input := append(bytes.Join(frames, []byte("\n")), '\n')
	for range runs {
		got, err := pipelined(ctx, s, input)
		if err != nil {
			return failed(fmt.Sprintf("10. pipelined start, stdin closed after (%d runs)", runs), err)
		}
		for i := range names {
			outcomes[i][got[strconv.Itoa(i+1)]]++
		}
	}
	var rows []Row
	for i, name := range names {
		rows = append(rows, Row{fmt.Sprintf("10. pipelined start, stdin closed after (%d runs): %s", runs, name), tallied(outcomes[i])})
	}
	return rows
}

// pipelined runs the server on stdio once, writes input and closes
// stdin, and returns the outcome of each request by id: "ok", "error
// CODE MESSAGE", or no entry.
func pipelined(ctx context.Context, s Server, input []byte) (map[string]string, error) {
	p, err := startProc([]string{s.Bin, "-stdio"}, 0)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	if _, err := p.stdin.Write(input); err != nil {
		return nil, err
	}
	p.stdin.Close()
	got := make(map[string]string)
	out := bufio.NewReader(p.stdout)
	for {
		line, err := readLine(ctx, out, exitWait)
		if err != nil {
			break // the end of output, or none for exitWait
		}
		var m message
		if json.Unmarshal(line, &m) != nil || m.Method != "" {
			continue
		}
		if m.Error != nil {
			got[string(m.ID)] = fmt.Sprintf("%d %s", m.Error.Code, clip(m.Error.Message, 36))
		} else {
			got[string(m.ID)] = "ok"
		}
	}
	return got, nil
}

// tallied formats outcome counts, "ok" first, then by count; an empty
// outcome is "no answer".
func tallied(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "ok") != (keys[j] == "ok") {
			return keys[i] == "ok"
		}
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		if name == "" {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%d× %s", counts[k], name))
	}
	return strings.Join(parts, "; ")
}

// StartTime spawns the server on stdio 20 times and times each from
// spawn to the first reply to an initialize written at once.
func StartTime(ctx context.Context, s Server) []Row {
	const runs = 20
	label := fmt.Sprintf("11. spawn → first initialize reply, stdio (median of %d)", runs)
	var took []time.Duration
	for range runs {
		p, err := startProc([]string{s.Bin, "-stdio"}, 0)
		if err != nil {
			return failed(label, err)
		}
		_, err = p.stdin.Write(append(initialize(1), '\n'))
		if err == nil {
			_, err = readLine(ctx, bufio.NewReader(p.stdout), handshakeWait)
		}
		took = append(took, time.Since(p.start))
		p.kill()
		if err != nil {
			return failed(label, err)
		}
	}
	slices.Sort(took)
	return []Row{{label, fmt.Sprintf("%s (min %s, max %s)", millis(took[runs/2]), millis(took[0]), millis(took[runs-1]))}}
}
