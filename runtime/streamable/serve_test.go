package streamable

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// serveAt runs Serve over h on a loopback port until stop is called or
// the test ends, and returns the base URL, stop, and where Serve's result
// arrives.
func serveAt(t *testing.T, h http.Handler, opts *ServeOptions) (url string, stop context.CancelFunc, done <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served, returned := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(returned)
		served <- Serve(ctx, ln, h, opts)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-returned:
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return "http://" + ln.Addr().String(), cancel, served
}

// testClient returns a client of its own connections for url.
func testClient(t *testing.T, url string) *client {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return &client{t: t, url: url, hc: hc}
}

// dialRaw opens a TCP connection to the server at url.
func dialRaw(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitClosed reads c until the server closes it, failing the test if
// that takes longer than ten seconds, a guard against a hang only.
func waitClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Fatalf("the server did not close %s", what)
	}
}

// keepAlive sends a request on c and reads its response, leaving the
// connection idle and open.
func keepAlive(t *testing.T, c net.Conn) {
	t.Helper()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		t.Fatal("the server closed a connection it should keep alive")
	}
	c.SetReadDeadline(time.Time{})
}

func TestServeClosesSlowAndIdleConnections(t *testing.T) {
	url, _, _ := serveAt(t, NewHandler(newMCP(t), nil), &ServeOptions{ReadTimeout: 200 * time.Millisecond, IdleConnTimeout: 200 * time.Millisecond})
	slow := dialRaw(t, url)
	io.WriteString(slow, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	idle := dialRaw(t, url)
	keepAlive(t, idle)

	testClient(t, url).initialize("2025-11-25", "") // served meanwhile
	waitClosed(t, slow, "a connection whose body never came")
	waitClosed(t, idle, "an idle connection")
	testClient(t, url).initialize("2025-11-25", "")
}

// slowBody opens a connection whose request's body never comes: it stays
// active, not idle, until the read timeout.
func slowBody(t *testing.T, url string) net.Conn {
	t.Helper()
	c := dialRaw(t, url)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	return c
}

func TestServeQueuesConnectionsOverTheLimit(t *testing.T) {
	url, _, _ := serveAt(t, NewHandler(newMCP(t), nil), &ServeOptions{MaxConns: 2, IdleConnTimeout: -1, ReadTimeout: -1})
	held := []net.Conn{slowBody(t, url), slowBody(t, url)}
	served := make(chan struct{})
	hc := testClient(t, url).hc
	go func() {
		defer close(served)
		if resp, err := hc.Get(url); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-served:
		t.Fatal("a third connection was served while two busy ones held the limit of two")
	case <-time.After(100 * time.Millisecond):
	}
	held[0].Close()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the queued connection was not served once a slot was free")
	}
}

// TestServeEvictsIdleConnectionsAtTheLimit fills the limit with parked
// keep-alive connections: a new client is served at once, and the
// connection idle the longest is the one closed for it.
func TestServeEvictsIdleConnectionsAtTheLimit(t *testing.T) {
	url, _, _ := serveAt(t, NewHandler(newMCP(t), nil), &ServeOptions{MaxConns: 2, IdleConnTimeout: -1})
	oldest, newer := dialRaw(t, url), dialRaw(t, url)
	keepAlive(t, oldest)
	keepAlive(t, newer)
	testClient(t, url).initialize("2025-11-25", "")
	waitClosed(t, oldest, "the connection idle the longest")
	keepAlive(t, newer) // still open
}

func TestServeIdleConnectionsFreeTheirSlots(t *testing.T) {
	url, _, _ := serveAt(t, NewHandler(newMCP(t), nil), &ServeOptions{MaxConns: 2, IdleConnTimeout: 200 * time.Millisecond})
	held := []net.Conn{dialRaw(t, url), dialRaw(t, url)}
	for _, c := range held {
		keepAlive(t, c)
	}
	testClient(t, url).initialize("2025-11-25", "")
	for _, c := range held {
		waitClosed(t, c, "an idle connection holding a slot")
	}
}

// TestServeTimeoutsKeepLongStreams holds a GET stream, a POST answered on
// SSE and a 2026-07-28 call answered in JSON open for longer than the
// read and write timeouts: none is cut.
func TestServeTimeoutsKeepLongStreams(t *testing.T) {
	short := 100 * time.Millisecond
	x, get := holdCalls(t, &ServeOptions{ReadTimeout: short, WriteTimeout: short}, true)
	time.Sleep(4 * short) // past every deadline net/http would set

	addTool(t, x.srv, "late", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(""), nil
	})
	readUntil(t, newSSE(get), "notifications/tools/list_changed")
	close(x.g.release)
	if msgs := messages(t, x.post); len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], "released") {
		t.Fatalf("the POST stream ended with %q", msgs)
	}
	if r := readReply(t, <-x.modern); r.status != http.StatusOK || r.resp.Error != nil || !strings.Contains(string(r.resp.Result), "released") {
		t.Fatalf("the 2026-07-28 call: %d %s", r.status, r.raw)
	}
}

// held is a session call and a 2026-07-28 call, both of the "hold" tool
// of a gate, running on a Handler served with some ServeOptions.
type held struct {
	srv    *server.Server
	h      *Handler
	g      *gate
	url    string
	stop   func()       // ends Serve's ctx
	done   <-chan error // what Serve returned
	c      *client      // the session's client
	post   *http.Response
	modern <-chan *http.Response
}

// holdCalls serves a Handler with opts and starts the two calls; get,
// when set, opens the session's GET stream first. It returns once both
// handlers run.
func holdCalls(t *testing.T, opts *ServeOptions, get bool) (*held, *http.Response) {
	t.Helper()
	srv := newMCP26(t, nil)
	x := &held{srv: srv, g: addGate(t, srv), h: NewHandler(srv, nil)}
	x.url, x.stop, x.done = serveAt(t, x.h, opts)
	x.c = testClient(t, x.url)
	x.c.initialize("2025-11-25", "")
	var stream *http.Response
	if get {
		stream = x.c.do("GET", "")
		t.Cleanup(func() { stream.Body.Close() })
	}
	x.post = x.c.do("POST", callBody(1, "hold", ""))
	x.modern = goDo(testClient(t, x.url), call26("7", "hold", "", meta26("")), hdr26("tools/call", "hold")...)
	for range 2 {
		<-x.g.started
	}
	return x, stream
}

// goDo POSTs body on a goroutine of its own; the response arrives on the
// channel, or nil if the request failed.
func goDo(c *client, body string, hdr ...string) <-chan *http.Response {
	req := c.request(context.Background(), "POST", body, hdr...)
	out := make(chan *http.Response, 1)
	go func() {
		resp, err := c.hc.Do(req)
		if err != nil {
			c.t.Errorf("POST %s: %v", body, err)
		}
		out <- resp
	}()
	return out
}

// gate is the tool hold, whose calls each report on started and then
// wait until release is closed, answering "released", or their ctx ends.
type gate struct {
	started chan struct{}
	release chan struct{}
}

func addGate(t testing.TB, s *server.Server) *gate {
	g := &gate{started: make(chan struct{}, 64), release: make(chan struct{})}
	addTool(t, s, "hold", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		g.started <- struct{}{}
		select {
		case <-g.release:
			return textResult("released"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	return g
}
