package streamable

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testutil"
)

func TestResumeReplaysOneStream(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-11-25", `{"elicitation":{}}`)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.hc.Do(c.request(ctx, "POST", callBody(5, "chatty", "")))
	if err != nil {
		t.Fatal(err)
	}
	got := readUntil(t, newSSE(resp), "elicitation/create")
	if len(got) != 4 || got[0].data != "" {
		t.Fatalf("chatty began with %+v", got)
	}
	progressID := got[1].id
	elicitation := elicitationID(t, got[3].data)
	// Another stream of the same session, which must not be replayed.
	if msgs := messages(t, c.do("POST", callBody(6, "echo", `{"text":"other"}`))); len(msgs) != 1 {
		t.Fatalf("echo: %q", msgs)
	}
	// The connection drops; the tool carries on and answers meanwhile.
	cancel()
	resp.Body.Close()
	answerElicitation(t, c, elicitation)

	var replay []event
	eventually(t, "the stream to be resumable", func() bool {
		resp := c.do("GET", "", "Last-Event-ID", progressID)
		if resp.StatusCode == http.StatusConflict {
			resp.Body.Close()
			return false // the server has not seen the connection drop yet
		}
		replay = events(t, resp)
		return true
	})
	var methods []string
	for _, ev := range replay {
		methods = append(methods, method(t, ev.data))
		if s, _, _ := strings.Cut(ev.id, "-"); s+"-" != progressID[:len(s)+1] {
			t.Errorf("replayed event %q of another stream", ev.id)
		}
	}
	if strings.Join(methods, ",") != "notifications/message,elicitation/create," || !strings.Contains(replay[2].data, "accept:Ada") {
		t.Fatalf("replayed %q: %+v", methods, replay)
	}
	for _, ev := range replay {
		if strings.Contains(ev.data, "other") {
			t.Fatalf("replayed another stream's event: %s", ev.data)
		}
	}
	// Resuming from the last event replays nothing more.
	if evs := events(t, c.do("GET", "", "Last-Event-ID", replay[2].id)); len(evs) != 0 {
		t.Fatalf("replayed past the end: %+v", evs)
	}
	if code, _ := c.status("GET", "", "Last-Event-ID", "99-1"); code != http.StatusBadRequest {
		t.Fatalf("unknown event id: %d", code)
	}
	if n := h.events.(*MemoryEventStore).Len(c.sid); n == 0 {
		t.Fatal("no events kept")
	}
	c.status("DELETE", "")
	if n := h.events.(*MemoryEventStore).Len(c.sid); n != 0 {
		t.Fatalf("%d events kept after DELETE", n)
	}
}

func TestIdleSessionsExpire(t *testing.T) {
	h, ts := serve(t, &HandlerOptions{IdleTimeout: 100 * time.Millisecond})
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")

	// A session with a GET stream open is not idle.
	busy := newClient(t, ts)
	busy.initialize("2025-06-18", "")
	resp := busy.do("GET", "")
	defer resp.Body.Close()

	eventually(t, "the idle session to expire", func() bool { return h.byIDForTest(c.sid) == nil })
	if code, _ := c.status("POST", callBody(1, "echo", "")); code != http.StatusNotFound {
		t.Fatalf("POST to an expired session: %d", code)
	}
	if _, err := h.sessions.Get(context.Background(), c.sid); err != ErrUnknownSession {
		t.Fatalf("the expired session's record: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if h.byIDForTest(busy.sid) == nil {
		t.Fatal("a session with a GET stream open expired")
	}
	if h.SessionCount() != 1 {
		t.Fatalf("%d sessions run, want 1", h.SessionCount())
	}
}

func TestStateless(t *testing.T) {
	h, ts := serve(t, &HandlerOptions{Stateless: true})
	c := newClient(t, ts)
	c.version = "2025-06-18"
	resp := c.do("POST", callBody(1, "echo", `{"text":"no session"}`))
	if resp.Header.Get("Mcp-Session-Id") != "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("stateless reply headers %v", resp.Header)
	}
	if msgs := messages(t, resp); len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"no session"`) || !strings.Contains(msgs[0], `"id":1`) {
		t.Fatalf("stateless echo: %q", msgs)
	}
	if msgs := messages(t, c.do("POST", callBody(2, "who", ""), "X-Test", "sl")); len(msgs) != 1 || !strings.Contains(msgs[0], `sl|\u003cnil\u003e|true`) {
		t.Fatalf("stateless who: %q", msgs)
	}
	// No capabilities were declared, so nothing can be asked of the client.
	if msgs := messages(t, c.do("POST", callBody(3, "chatty", ""))); len(msgs) != 1 || !strings.Contains(msgs[0], `"isError":true`) {
		t.Fatalf("stateless chatty: %q", msgs)
	}
	msgs := messages(t, c.do("POST", initBody("2025-11-25", "")))
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("stateless initialize: %q", msgs)
	}
	if code, _ := c.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("stateless notification: %d", code)
	}
	c.version = "2025-03-26"
	if msgs := messages(t, c.do("POST", "["+callBody(4, "echo", `{"text":"a"}`)+","+callBody(5, "echo", `{"text":"b"}`)+"]")); len(msgs) != 1 || !strings.Contains(msgs[0], `"id":5`) {
		t.Fatalf("stateless batch: %q", msgs)
	}
	eventually(t, "stateless sessions to end", func() bool { return h.SessionCount() == 0 })
}

func TestCloseEndsEverything(t *testing.T) {
	base := testutil.Goroutines()
	h := NewHandler(newMCP(t), nil)
	ts := httptest.NewServer(h)
	c := newClient(t, ts)
	c.initialize("2025-11-25", `{"elicitation":{}}`)
	get := c.do("GET", "")
	post := c.do("POST", callBody(1, "chatty", ""))
	readUntil(t, newSSE(post), "elicitation/create") // a tool waits for the client
	waiting := c.do("POST", callBody(2, "wait", ""))
	idle := newClient(t, ts)
	idle.initialize("2025-06-18", "")
	if h.SessionCount() != 2 {
		t.Fatalf("%d sessions", h.SessionCount())
	}

	h.Close()
	if h.SessionCount() != 0 {
		t.Fatalf("%d sessions after Close", h.SessionCount())
	}
	if code, _ := c.status("POST", callBody(3, "echo", "")); code != http.StatusServiceUnavailable {
		t.Fatalf("POST after Close: %d", code)
	}
	for _, r := range []*http.Response{get, post, waiting} {
		r.Body.Close()
	}
	ts.Close()
	c.hc.CloseIdleConnections()
	idle.hc.CloseIdleConnections()
	testutil.WaitGoroutines(t, base)
}

func TestManySequentialSessions(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	open := func() {
		c.sid, c.version = "", ""
		c.initialize("2025-11-25", "")
		if code, _ := c.status("DELETE", ""); code != http.StatusNoContent {
			t.Fatalf("DELETE: %d", code)
		}
	}
	for range 20 {
		open() // warm up pools and connections
	}
	eventually(t, "warm-up sessions to end", func() bool { return h.SessionCount() == 0 })
	baseG := testutil.Goroutines()
	baseHeap := heapAlloc()

	for range 1000 {
		open()
	}
	eventually(t, "sessions to end", func() bool { return h.SessionCount() == 0 })
	testutil.WaitGoroutines(t, baseG)
	if n := h.sessions.(*MemorySessionStore).Len(); n != 0 {
		t.Fatalf("%d session records left", n)
	}
	// 1000 leaked sessions would hold megabytes; allow for noise.
	if grew := int64(heapAlloc()) - int64(baseHeap); grew > 1<<20 {
		t.Fatalf("the heap grew by %d bytes over 1000 closed sessions", grew)
	}
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestListenAddr(t *testing.T) {
	tests := []struct{ in, want string }{
		{":3000", "127.0.0.1:3000"}, {"0.0.0.0:80", "0.0.0.0:80"}, {"[::1]:8080", "[::1]:8080"}, {"example.com:1", "example.com:1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := listenAddr(tt.in); got != tt.want {
				t.Errorf("listenAddr(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// Listen binds the loopback address for a port alone, and its Addr
	// says so, with the port chosen.
	ln, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	ln.Close()
	if !bound.IP.Equal(net.IPv4(127, 0, 0, 1)) || bound.Port == 0 {
		t.Errorf("Listen(\":0\") bound %s, want 127.0.0.1 and a port", bound)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := NewHandler(newMCP(t), nil)
	done := make(chan error, 1)
	go func() { done <- ListenAndServe(ctx, "127.0.0.1:0", h) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ListenAndServe after cancel: %v", err)
	}
}

func TestAppendEvent(t *testing.T) {
	got := string(appendEvent(nil, "3-4", []byte("{\"a\":\n1,\r\n\"b\":2}")))
	want := "id: 3-4\nevent: message\ndata: {\"a\":\ndata: 1,\ndata: \ndata: \"b\":2}\n\n"
	if got != want {
		t.Fatalf("appendEvent = %q, want %q", got, want)
	}
	if s, n, ok := parseEventID("12-34"); !ok || s != 12 || n != 34 {
		t.Fatalf("parseEventID: %d %d %t", s, n, ok)
	}
	for _, bad := range []string{"", "12", "a-1", "1-", "-1", "1-2-3"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("parseEventID(%q) accepted", bad)
		}
	}
}

func TestMemoryEventStoreBound(t *testing.T) {
	m := NewMemoryEventStore(10*(eventOverhead+10), 0)
	ctx := context.Background()
	for i := range uint64(25) {
		m.Append(ctx, "s", Event{Stream: i % 2, Seq: i, Data: make([]byte, 10)})
	}
	if n := m.Len("s"); n != 10 {
		t.Fatalf("%d events kept, want 10", n)
	}
	evs, _ := m.After(ctx, "s", 1, 0)
	if len(evs) != 5 || evs[0].Seq != 15 || evs[4].Seq != 23 {
		t.Fatalf("After: %+v", evs)
	}
}
