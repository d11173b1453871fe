package hostile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// httpSession starts the server on Streamable HTTP and initializes one
// session on it.
func httpSession(ctx context.Context, s Server) (*proc, *httpClient, error) {
	p, url, err := s.http(0)
	if err != nil {
		return nil, nil, err
	}
	c := newHTTPClient(url)
	hctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	if err := c.handshake(hctx); err != nil {
		c.close()
		p.kill()
		return nil, nil, err
	}
	return p, c, nil
}

// httpCount asks an HTTP session for the slow tool's counters; ids come
// from next.
func httpCount(c *httpClient, next *atomic.Int64) func(context.Context) (counts, error) {
	return func(ctx context.Context) (counts, error) {
		id := strconv.FormatInt(next.Add(1), 10)
		m, err := c.roundTrip(ctx, call(id, "count", nil, ""), strconv.Quote(id))
		if err != nil {
			return counts{}, err
		}
		return parseCounts(m)
	}
}

// SamplingHTTP sends 300 calls of the sample tool at once in one
// Streamable HTTP session, answering every sampling request they make
// (once all have come, or two seconds after the first), and a ping
// behind them.
func SamplingHTTP(ctx context.Context, s Server) []Row {
	const n = 300
	label := fmt.Sprintf("2. %d sampling calls at once, one HTTP session", n)
	p, c, err := httpSession(ctx, s)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	defer c.close()
	c.gate = newGate(n)
	sctx, cancel := context.WithTimeout(ctx, stormWait)
	defer cancel()
	b := newBatch(n)
	for i := range n {
		go func() {
			_, err := c.roundTrip(sctx, call(i+1, "sample", sampleArgs, ""), strconv.Itoa(i+1))
			b.add(err)
		}()
	}
	time.Sleep(10 * time.Millisecond) // let the calls go first
	ping := pingAfter(sctx, func(ctx context.Context) error {
		_, err := c.roundTrip(ctx, request(n+1, "ping", nil), strconv.Itoa(n+1))
		return err
	})
	b.wait(sctx)
	return []Row{{label, b.String()}, {"2. ping sent behind them", ping()}}
}

// CaseVariantCancel runs two slow calls, 5 and 7, in one HTTP session,
// and sends a notifications/cancelled naming 5 as "requestId" and 7 as
// "requestid": only 5 is cancelled, for JSON keys are case-sensitive.
func CaseVariantCancel(ctx context.Context, s Server) []Row {
	const slow = 4 * time.Second
	label5 := `5. {"requestId":5,"requestid":7} over HTTP: POST of 5`
	label7 := "5. POST of 7"
	p, c, err := httpSession(ctx, s)
	if err != nil {
		return failed(label5, err)
	}
	defer p.kill()
	defer c.close()
	wctx, cancel := context.WithTimeout(ctx, slow+3*time.Second)
	defer cancel()
	type outcome struct {
		m   *message
		err error
		at  time.Time
	}
	var sentAt time.Time
	post := func(id int) chan outcome {
		ch := make(chan outcome, 1)
		go func() {
			m, err := c.roundTrip(wctx, call(id, "slow", slowArgs(slow), ""), strconv.Itoa(id))
			ch <- outcome{m, err, time.Now()}
		}()
		return ch
	}
	got5, got7 := post(5), post(7)
	var next atomic.Int64
	next.Store(100)
	if err := awaitRunning(wctx, httpCount(c, &next), 2, handshakeWait); err != nil {
		return failed(label5, err)
	}
	sentAt = time.Now()
	frame := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"requestid":7}}`)
	if _, err := c.roundTrip(wctx, frame, ""); err != nil {
		return failed(label5, fmt.Errorf("post the cancellation: %w", err))
	}
	report := func(o outcome) string {
		after := secs(o.at.Sub(sentAt))
		switch {
		case o.err == nil:
			return "answered after " + after + ": " + clip(o.m.text(), 30)
		case errors.Is(o.err, errStreamEnded):
			return "closed with no answer after " + after
		case errors.Is(o.err, context.DeadlineExceeded):
			return "no answer, still open after " + after
		case o.m != nil && o.m.Error != nil:
			return "error after " + after + ": " + clip(o.err.Error(), 40)
		}
		return "failed after " + after + ": " + clip(o.err.Error(), 40)
	}
	rows := []Row{{label5, report(<-got5)}, {label7, report(<-got7)}}
	cctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	if k, err := httpCount(c, &next)(cctx); err == nil {
		rows = append(rows, Row{"5. slow handlers that ran to the end", fmt.Sprintf("%d of 2", k.completed)})
	}
	return rows
}

// ShutdownHTTP sends 10 calls of the slow tool (2 s) in one HTTP session,
// and SIGTERM once they all run.
func ShutdownHTTP(ctx context.Context, s Server) []Row {
	const n = 10
	const slow = 2 * time.Second
	label := fmt.Sprintf("8. SIGTERM with %d × %s calls in flight, HTTP", n, slow)
	p, c, err := httpSession(ctx, s)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	defer c.close()
	sctx, cancel := context.WithTimeout(ctx, shutdownWait)
	defer cancel()
	b := newBatch(n)
	for i := range n {
		go func() {
			_, err := c.roundTrip(sctx, call(i+1, "slow", slowArgs(slow), ""), strconv.Itoa(i+1))
			b.add(err)
		}()
	}
	var next atomic.Int64
	next.Store(100)
	if err := awaitRunning(sctx, httpCount(c, &next), n, handshakeWait); err != nil {
		return failed(label, err)
	}
	return []Row{{label, terminate(sctx, p, b)}}
}

// SessionCap opens Streamable HTTP sessions, eight at a time, until the
// server refuses one or 20,000 are open.
func SessionCap(ctx context.Context, s Server) []Row {
	const most, workers = 20_000, 8
	label := fmt.Sprintf("9. sessions opened until refused (at most %d)", most)
	p, url, err := s.http(0)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	shared := newHTTPClient(url)
	defer shared.close()
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var opened atomic.Int64
	var refusal error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	var tried atomic.Int64
	for range workers {
		wg.Go(func() {
			for wctx.Err() == nil && tried.Add(1) <= most {
				c := &httpClient{url: url, hc: shared.hc}
				_, err := c.roundTrip(wctx, initialize(1), "1")
				if err == nil && c.session == "" {
					err = errors.New("no Mcp-Session-Id")
				}
				if err != nil {
					if wctx.Err() == nil {
						once.Do(func() { refusal = err; cancel() })
					}
					return
				}
				opened.Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	rss := ""
	if _, cur, err := p.memory(); err == nil {
		rss = ", server RSS " + mb(cur)
	}
	n := opened.Load()
	switch {
	case refusal != nil:
		return []Row{{label, fmt.Sprintf("%d, then %s", n, clip(refusal.Error(), 60))}}
	case n >= most:
		return []Row{{label, fmt.Sprintf("all %d opened in %s, none refused%s", n, secs(took), rss)}}
	}
	return []Row{{label, fmt.Sprintf("%d opened by the deadline (%s), none refused%s", n, secs(took), rss)}}
}

// LegacyIdentity opens an HTTP+SSE session as user A, then posts a ping
// into it as user B, and reports whether the server took it and where
// the answer went.
func LegacyIdentity(ctx context.Context, s Server) []Row {
	label := "7. HTTP+SSE: user B posts into user A's session"
	p, addr, err := s.listen("-sse", 0)
	if err != nil {
		return failed(label, err)
	}
	defer p.kill()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	base := "http://" + addr + "/sse"
	req, err := http.NewRequestWithContext(wctx, http.MethodGet, base, nil)
	if err != nil {
		return failed(label, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer token-alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return failed(label, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return []Row{{label, fmt.Sprintf("n/a (GET %s: HTTP %d)", base, resp.StatusCode)}}
	}
	endpoint := make(chan string, 1)
	replies := make(chan string, 16) // the ids of the responses on A's stream
	go readSSE(resp.Body, func(event string, data []byte) bool {
		if event == "endpoint" {
			endpoint <- string(data)
			return true
		}
		var m message
		if json.Unmarshal(data, &m) == nil && m.Method == "" {
			select {
			case replies <- string(m.ID):
			default:
			}
		}
		return true
	})
	var target string
	select {
	case e := <-endpoint:
		u, err := url.Parse(base)
		if err == nil {
			var ref *url.URL
			if ref, err = u.Parse(e); err == nil {
				target = ref.String()
			}
		}
		if err != nil {
			return failed(label, fmt.Errorf("endpoint event %q: %w", e, err))
		}
	case <-wctx.Done():
		return failed(label, errors.New("no endpoint event"))
	}
	alice := &httpClient{url: target, hc: http.DefaultClient, token: "token-alice"}
	if _, err := alice.roundTrip(wctx, initialize(1), ""); err != nil {
		return failed(label, fmt.Errorf("A's initialize: %w", err))
	}
	if err := awaitReply(wctx, replies, "1"); err != nil {
		return failed(label, fmt.Errorf("A's initialize: %w", err))
	}
	alice.roundTrip(wctx, initialized(), "")
	bob := &httpClient{url: target, hc: http.DefaultClient, token: "token-bob"}
	resp2, err := bob.post(wctx, request(99, "ping", nil))
	if err != nil {
		return failed(label, err)
	}
	resp2.Body.Close()
	if resp2.StatusCode >= 300 {
		return []Row{{label, fmt.Sprintf("refused: HTTP %d", resp2.StatusCode)}}
	}
	if awaitReply(wctx, replies, "99") == nil {
		return []Row{{label, fmt.Sprintf("accepted (HTTP %d); the answer went to A's stream", resp2.StatusCode)}}
	}
	return []Row{{label, fmt.Sprintf("accepted (HTTP %d), no answer on A's stream", resp2.StatusCode)}}
}

// awaitReply waits up to two seconds for the response with id on
// replies.
func awaitReply(ctx context.Context, replies chan string, id string) error {
	t := time.After(2 * time.Second)
	for {
		select {
		case got := <-replies:
			if got == id {
				return nil
			}
		case <-t:
			return fmt.Errorf("no response %s on the stream", id)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
