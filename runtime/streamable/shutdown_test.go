package streamable

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// wait returns what Serve returned, failing the test after thirty
// seconds, a guard against a hang only.
func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

// isDraining reports whether Shutdown has begun on h.
func (h *Handler) isDraining() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.draining
}

// lastMessage returns the last JSON-RPC message of an answer.
func lastMessage(t *testing.T, resp *http.Response) string {
	t.Helper()
	msgs := messages(t, resp)
	if len(msgs) == 0 {
		t.Fatalf("%s: an answer without messages", resp.Status)
	}
	return msgs[len(msgs)-1]
}

// TestServeShutdownLetsCallsFinish ends Serve's ctx while a session's call
// and a 2026-07-28 call are in flight: both get their replies, and Serve
// returns once they have. Meanwhile new work gets 503, while the answers
// of the calls in flight keep being served.
func TestServeShutdownLetsCallsFinish(t *testing.T) {
	x, get := holdCalls(t, &ServeOptions{ShutdownTimeout: time.Minute}, true)

	x.stop()
	eventually(t, "the shutdown to begin", x.h.isDraining)
	if evs := events(t, get); len(evs) != 1 {
		t.Fatalf("the GET stream carried %+v before it ended", evs)
	}
	refused := map[string]func() (int, string){
		"a new session": func() (int, string) { return testClient(t, x.url).status("POST", initBody("2025-11-25", "")) },
		"a request of a session": func() (int, string) {
			return x.c.status("POST", callBody(2, "echo", ""))
		},
		"a new GET stream": func() (int, string) { return x.c.status("GET", "") },
		"a 2026-07-28 request": func() (int, string) {
			return testClient(t, x.url).status("POST", call26("8", "echo", "", meta26("")), hdr26("tools/call", "echo")...)
		},
	}
	for what, send := range refused {
		if code, body := send(); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
			t.Errorf("%s during the shutdown: %d %s", what, code, body)
		}
	}
	if code, _ := x.c.status("POST", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`); code != http.StatusAccepted {
		t.Errorf("a notification during the shutdown: %d, want 202", code)
	}

	close(x.g.release)
	if msg := lastMessage(t, x.post); !strings.Contains(msg, "released") {
		t.Errorf("the session's call ended with %s", msg)
	}
	if msg := lastMessage(t, <-x.modern); !strings.Contains(msg, "released") {
		t.Errorf("the 2026-07-28 call ended with %s", msg)
	}
	if err := wait(t, x.done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestServeShutdownReadsAnswers ends Serve's ctx while a call is in
// flight that then asks the client for input: the answer, POSTed during
// the shutdown, reaches it.
func TestServeShutdownReadsAnswers(t *testing.T) {
	srv := newMCP(t)
	started, release := make(chan struct{}), make(chan struct{})
	addTool(t, srv, "later", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		<-release
		r, err := server.Elicit(ctx, nameQuestion(t))
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return textResult("hi " + string(name)), nil
	})
	h := NewHandler(srv, nil)
	url, stop, done := serveAt(t, h, &ServeOptions{ShutdownTimeout: time.Minute})
	c := testClient(t, url)
	c.initialize("2025-11-25", `{"elicitation":{}}`)
	post := c.do("POST", callBody(1, "later", ""))
	defer post.Body.Close()
	<-started

	stop()
	eventually(t, "the shutdown to begin", h.isDraining)
	close(release)
	s := newSSE(post)
	asked := readUntil(t, s, "elicitation/create")
	answerElicitation(t, c, elicitationID(t, asked[len(asked)-1].data))
	if got := readUntil(t, s, `"id":1`); !strings.Contains(got[len(got)-1].data, "hi Ada") {
		t.Errorf("the call ended with %s", got[len(got)-1].data)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestServeShutdownCancelsLateCalls ends Serve's ctx while calls are in
// flight that last longer than the grace period: they are cancelled, and
// their clients are told the server is shutting down.
func TestServeShutdownCancelsLateCalls(t *testing.T) {
	x, _ := holdCalls(t, &ServeOptions{ShutdownTimeout: 50 * time.Millisecond}, false)

	x.stop()
	calls := []struct {
		name string
		resp *http.Response
	}{
		{"the session's call", x.post},
		{"the 2026-07-28 call", <-x.modern},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			if msg := lastMessage(t, tt.resp); !strings.Contains(msg, `"error"`) || !strings.Contains(msg, "shutting down") {
				t.Errorf("ended with %s", msg)
			}
		})
	}
	if err := wait(t, x.done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := x.h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions after Serve returned", n)
	}
}

// TestShutdownWithoutWork returns at once when nothing is in flight, and
// leaves the Handler closed.
func TestShutdownWithoutWork(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-11-25", "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions after Shutdown", n)
	}
	resp := c.do("POST", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a POST after Shutdown: %d", resp.StatusCode)
	}
}

func (h *LegacyHandler) isDraining() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.draining
}

// readMessage reads the stream until a message event holding want.
func (s *legacyStream) readMessage(t *testing.T, want string) string {
	t.Helper()
	for {
		if name, data := s.next(t); name == "message" && strings.Contains(data, want) {
			return data
		}
	}
}

// startLegacy opens a stream of h served at url and initializes its
// session with version 2025-06-18 and the elicitation capability.
func startLegacy(t *testing.T, url string) *legacyStream {
	t.Helper()
	s := openLegacy(t, url+"/sse")
	for _, body := range []string{initBody("2025-06-18", `{"elicitation":{}}`), `{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		if code, out := s.post(t, url, body); code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", body, code, out)
		}
	}
	s.readMessage(t, `"protocolVersion"`)
	return s
}

// TestLegacyShutdownLetsCallsFinish ends Serve's ctx while a call of the
// HTTP+SSE transport is in flight and another is about to ask the client
// for input: both finish, the answer POSTed during the shutdown reaching
// the second, while new streams and requests get 503.
func TestLegacyShutdownLetsCallsFinish(t *testing.T) {
	srv := newMCP(t)
	g := addGate(t, srv)
	h := NewLegacyHandler(srv, nil)
	url, stop, done := serveAt(t, h, &ServeOptions{ShutdownTimeout: time.Minute})
	s := startLegacy(t, url)
	for _, body := range []string{callBody(1, "hold", ""), callBody(2, "chatty", "")} {
		if code, out := s.post(t, url, body); code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", body, code, out)
		}
	}
	<-g.started
	asked := s.readMessage(t, "elicitation/create")

	stop()
	eventually(t, "the shutdown to begin", h.isDraining)
	if code, body := testClient(t, url).status("GET", ""); code != http.StatusServiceUnavailable {
		t.Errorf("a new stream during the shutdown: %d %s", code, body)
	}
	if code, body := s.post(t, url, callBody(3, "echo", "")); code != http.StatusServiceUnavailable {
		t.Errorf("a request during the shutdown: %d %s", code, body)
	}
	answer := `{"jsonrpc":"2.0","id":` + elicitationID(t, asked) + `,"result":{"action":"accept","content":{"name":"Ada"}}}`
	if code, body := s.post(t, url, answer); code != http.StatusAccepted {
		t.Fatalf("the answer during the shutdown: %d %s", code, body)
	}
	s.readMessage(t, "accept:Ada")
	close(g.release)
	s.readMessage(t, "released")
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestLegacyShutdownCancelsLateCalls ends Serve's ctx while a call of the
// HTTP+SSE transport is in flight that lasts longer than the grace
// period: its client is told the server is shutting down.
func TestLegacyShutdownCancelsLateCalls(t *testing.T) {
	h := NewLegacyHandler(newMCP(t), nil)
	url, stop, done := serveAt(t, h, &ServeOptions{ShutdownTimeout: 50 * time.Millisecond})
	s := startLegacy(t, url)
	if code, out := s.post(t, url, callBody(1, "wait", "")); code != http.StatusAccepted {
		t.Fatalf("POST: %d %s", code, out)
	}
	stop()
	if msg := s.readMessage(t, `"id":1`); !strings.Contains(msg, `"error"`) || !strings.Contains(msg, "shutting down") {
		t.Errorf("the call ended with %s", msg)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestServeShutdownBehindMux ends Serve's ctx while a call is in flight
// on a Handler that a mux of the user's hides: ServeOptions.Shutdown names
// it, and the call gets its reply.
func TestServeShutdownBehindMux(t *testing.T) {
	srv := newMCP26(t, nil)
	g := addGate(t, srv)
	h := NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/", h)
	url, stop, done := serveAt(t, mux, &ServeOptions{ShutdownTimeout: time.Minute, Shutdown: []Shutdowner{h}})
	c := testClient(t, url)
	c.initialize("2025-11-25", "")
	post := c.do("POST", callBody(1, "hold", ""))
	<-g.started
	stop()
	eventually(t, "the shutdown to begin", h.isDraining)
	close(g.release)
	if msg := lastMessage(t, post); !strings.Contains(msg, "released") {
		t.Errorf("the call ended with %s", msg)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestShutdownRaceWithAPost plays a POST that passed the first drain
// check just before Shutdown began: opening its stream refuses it with
// 503, so Shutdown's wait for open requests cannot miss it.
func TestShutdownRaceWithAPost(t *testing.T) {
	h := NewHandler(newMCP(t), nil)
	url, _, _ := serveAt(t, h, nil)
	c := testClient(t, url)
	c.initialize("2025-11-25", "")
	h.stopping.Store(true) // as drain does, after the POST's first check
	if code, body := c.status("POST", callBody(1, "echo", "")); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("a request racing the drain: %d %s", code, body)
	}
}
