package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// held is a connection the harness holds open, and when the server
// closed it.
type held struct {
	conn   net.Conn
	opened time.Time
	closed atomic.Int64 // unix nanoseconds; zero while open
}

// watch reads r, the connection's input, until the server closes it.
func (h *held) watch(r io.Reader) {
	buf := make([]byte, 512)
	for {
		if _, err := r.Read(buf); err != nil {
			h.closed.Store(time.Now().UnixNano())
			return
		}
	}
}

// lifetime returns how long the connection stayed open, and false while
// it still is.
func (h *held) lifetime() (time.Duration, bool) {
	c := h.closed.Load()
	if c == 0 {
		return 0, false
	}
	return time.Unix(0, c).Sub(h.opened), true
}

// closeAll closes the harness's end of every connection.
func closeAll(conns []*held) {
	for _, h := range conns {
		h.conn.Close()
	}
}

// openSlowBody opens n connections that send the headers of a POST and
// then only the start of its body; trickle sends the rest, a byte a
// second, until stop closes.
func openSlowBody(addr string, n int) ([]*held, error) {
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: " + protocolVersion + "\r\n" +
		"Content-Length: 100000\r\n\r\n{\"jsonrpc\":\"2.0\","
	conns := make([]*held, 0, n)
	for range n {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("slow-body connection %d: %w", len(conns)+1, err)
		}
		h := &held{conn: c, opened: time.Now()}
		conns = append(conns, h)
		c.SetWriteDeadline(time.Now().Add(time.Second))
		c.Write([]byte(head))
		go h.watch(c)
	}
	return conns, nil
}

// trickle writes a byte of JSON whitespace to each open connection
// every second until stop closes.
func trickle(conns []*held, stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		for _, h := range conns {
			if _, closed := h.lifetime(); !closed {
				h.conn.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
				h.conn.Write([]byte(" "))
			}
		}
	}
}

// openIdle opens n keep-alive connections, twenty at a time, each of
// which makes one request and then stays idle. It returns them all, and
// how many got their answer within wait.
func openIdle(addr string, n int, wait time.Duration) ([]*held, int) {
	req := "GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n\r\n"
	var mu sync.Mutex
	var conns []*held
	var answered atomic.Int64
	todo := make(chan struct{}, n)
	for range n {
		todo <- struct{}{}
	}
	close(todo)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for range todo {
				c, err := net.DialTimeout("tcp", addr, wait)
				if err != nil {
					continue
				}
				h := &held{conn: c, opened: time.Now()}
				mu.Lock()
				conns = append(conns, h)
				mu.Unlock()
				c.SetDeadline(time.Now().Add(wait))
				br := bufio.NewReader(c)
				_, err = c.Write([]byte(req))
				var resp *http.Response
				if err == nil {
					resp, err = http.ReadResponse(br, nil)
				}
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
				}
				c.SetDeadline(time.Time{})
				if err == nil {
					answered.Add(1)
				}
				go h.watch(br)
			}
		})
	}
	wg.Wait()
	return conns, int(answered.Load())
}

// closings reports when the server closed conns: "none", how many and
// when, for a window of watch.
func closings(conns []*held, watch time.Duration) string {
	var times []time.Duration
	for _, h := range conns {
		if d, ok := h.lifetime(); ok {
			times = append(times, d)
		}
	}
	if len(times) == 0 {
		return fmt.Sprintf("none of %d closed in %s", len(conns), secs(watch))
	}
	slices.Sort(times)
	span := secs(times[0])
	if times[len(times)-1]-times[0] > 100*time.Millisecond {
		span = fmt.Sprintf("%.1f–%.1f s", times[0].Seconds(), times[len(times)-1].Seconds())
	}
	if len(times) == len(conns) {
		return fmt.Sprintf("all %d closed, %s after opening", len(conns), span)
	}
	return fmt.Sprintf("%d of %d closed (%s after opening), the rest open at %s", len(times), len(conns), span, secs(watch))
}

// allClosed reports whether the server closed every connection.
func allClosed(conns []*held) bool {
	for _, h := range conns {
		if _, closed := h.lifetime(); !closed {
			return false
		}
	}
	return true
}

// newClient reports whether a fresh client gets a session within wait.
func newClient(ctx context.Context, url string, wait time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	c := newHTTPClient(url)
	defer c.close()
	start := time.Now()
	if _, err := c.roundTrip(ctx, initialize(1), "1"); err != nil {
		if ctx.Err() != nil {
			return "not served in " + secs(wait)
		}
		return "refused: " + clip(err.Error(), 60)
	}
	return "served in " + millis(time.Since(start))
}

// SlowConns returns the case that holds 1000 slow-body and 1000 idle
// keep-alive connections to an HTTP server, checks a new client is
// served, watches for up to watch whether the server closes them, then
// holds 1100 idle connections to the server run under `ulimit -n 1024`.
func SlowConns(watch time.Duration) func(ctx context.Context, s Server) []Row {
	return func(ctx context.Context, s Server) []Row {
		const n = 1000
		label := fmt.Sprintf("6. %d slow-body + %d idle keep-alive conns: a new client", n, n)
		rows, err := heldConns(ctx, s, n, watch)
		if err != nil {
			return failed(label, err)
		}
		return append(rows, fdLimit(ctx, s))
	}
}

func heldConns(ctx context.Context, s Server, n int, watch time.Duration) ([]Row, error) {
	p, url, err := s.http(0)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	slow, err := openSlowBody(addr, n)
	if err != nil {
		return nil, err
	}
	defer closeAll(slow)
	stop := make(chan struct{})
	defer close(stop)
	go trickle(slow, stop)
	idle, _ := openIdle(addr, n, 2*time.Second)
	defer closeAll(idle)
	served := newClient(ctx, url, 5*time.Second)
	deadline := time.Now().Add(watch)
	for time.Now().Before(deadline) && ctx.Err() == nil && !(allClosed(slow) && allClosed(idle)) {
		time.Sleep(250 * time.Millisecond)
	}
	return []Row{
		{fmt.Sprintf("6. %d slow-body + %d idle keep-alive conns: a new client", n, n), served},
		{"6. slow-body conns closed by the server", closings(slow, watch)},
		{"6. idle keep-alive conns closed by the server", closings(idle, watch)},
	}, nil
}

// fdLimit holds 1100 idle connections to the server run under
// `ulimit -n 1024` and reports whether a new client is served.
func fdLimit(ctx context.Context, s Server) Row {
	const limit, n = 1024, 1100
	label := fmt.Sprintf("6. ulimit -n %d, %d idle conns: a new client", limit, n)
	p, url, err := s.http(limit)
	if err != nil {
		return Row{label, "error: " + clip(err.Error(), 60)}
	}
	defer p.kill()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conns, answered := openIdle(addr, n, 2*time.Second)
	defer closeAll(conns)
	return Row{label, fmt.Sprintf("%s (%d of %d conns answered)", newClient(ctx, url, 5*time.Second), answered, n)}
}
