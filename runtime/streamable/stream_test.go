package streamable

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

func TestPrimingOnlyFrom20251125(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{RetryInterval: 2500 * time.Millisecond})
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		c := newClient(t, ts)
		c.initialize(v, "")
		evs := events(t, c.do("POST", callBody(1, "echo", `{"text":"x"}`)))
		primed := v >= "2025-11-25"
		if want := map[bool]int{true: 2, false: 1}[primed]; len(evs) != want {
			t.Fatalf("%s: %d events, want %d: %+v", v, len(evs), want, evs)
		}
		if primed {
			p := evs[0]
			if !p.hasID || p.id == "" || p.data != "" || p.retry != "2500" {
				t.Fatalf("%s: priming event %+v", v, p)
			}
		}
		last := evs[len(evs)-1]
		if !last.hasID || last.data == "" || strings.Contains(last.data, "\n") {
			t.Fatalf("%s: response event %+v", v, last)
		}
		// Event ids are distinct and name their stream.
		stream := func(id string) string { s, _, _ := strings.Cut(id, "-"); return s }
		if primed && (evs[0].id == last.id || stream(evs[0].id) != stream(last.id)) {
			t.Fatalf("%s: ids %q and %q", v, evs[0].id, last.id)
		}
	}
}

// readUntil reads events until one whose data holds want.
func readUntil(t *testing.T, s *sseReader, want string) []event {
	t.Helper()
	var out []event
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatalf("stream ended before %q: %v (got %+v)", want, err, out)
		}
		out = append(out, ev)
		if strings.Contains(ev.data, want) {
			return out
		}
	}
}

// elicitationID returns the id of an elicitation/create request.
func elicitationID(t *testing.T, data string) string {
	t.Helper()
	var m struct {
		ID     json.RawMessage
		Method string
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil || m.Method != "elicitation/create" {
		t.Fatalf("not an elicitation: %s", data)
	}
	return string(m.ID)
}

func answerElicitation(t *testing.T, c *client, id string) {
	t.Helper()
	if code, body := c.status("POST", `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"Ada"}}}`); code != http.StatusAccepted {
		t.Fatalf("answering the elicitation: %d %s", code, body)
	}
}

func TestRequestStreamCarriesWhatItCaused(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-11-25", `{"elicitation":{}}`)
	resp := c.do("POST", callBody(5, "chatty", ""))
	defer resp.Body.Close()
	s := newSSE(resp)
	got := readUntil(t, s, "elicitation/create")
	var methods []string
	for _, ev := range got {
		if ev.data != "" {
			methods = append(methods, method(t, ev.data))
		}
	}
	if strings.Join(methods, " ") != "notifications/progress notifications/message elicitation/create" {
		t.Fatalf("before the elicitation the stream carried %q", methods)
	}
	if !strings.Contains(got[1].data, `"progressToken":"p5"`) {
		t.Fatalf("progress %s", got[1].data)
	}
	answerElicitation(t, c, elicitationID(t, got[len(got)-1].data))
	rest := readUntil(t, s, `"id":5`)
	if last := rest[len(rest)-1].data; !strings.Contains(last, "accept:Ada") {
		t.Fatalf("result %s", last)
	}
	if _, err := s.next(); err != io.EOF {
		t.Fatalf("the stream did not end after the response: %v", err)
	}
}

func TestStandaloneGETStream(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	resp := c.do("GET", "")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	s := newSSE(resp)
	eventually(t, "the GET stream to attach", func() bool {
		sess := h.byIDForTest(c.sid)
		sess.mu.Lock()
		defer sess.mu.Unlock()
		return sess.standalone != nil && sess.standalone.attached
	})
	if code, _ := c.status("GET", ""); code != http.StatusConflict {
		t.Fatalf("second GET: %d, want 409", code)
	}
	// A notification no request caused goes on the GET stream.
	addTool(t, srvOf(h), "late", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult("late"), nil
	})
	ev := readUntil(t, s, "notifications/tools/list_changed")
	if last := ev[len(ev)-1]; !last.hasID || !strings.HasPrefix(last.id, "0-") {
		t.Fatalf("standalone event id %q", last.id)
	}
	// ...and never on a request's stream.
	msgs := messages(t, c.do("POST", callBody(1, "late", "")))
	if len(msgs) != 1 || method(t, msgs[0]) != "" {
		t.Fatalf("the POST stream carried %q", msgs)
	}
}

// writeCounter is a listener whose connections count their writes.
type writeCounter struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countedConn{c, &l.writes}, nil
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// The first event goes out before the work is done; the response then
// goes out with the end of the body, in one write: after the priming
// event of a 2025-11-25 session's stream (the call asks for no progress),
// and after the progress that turns a 2026-07-28 answer into a stream.
func TestStreamEndsWithItsLastEvents(t *testing.T) {
	s := newMCP(t)
	release := make(chan struct{}, 1)
	addTool(t, s, "slow", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := server.Progress(ctx, 1, 2, "started"); err != nil {
			return nil, err
		}
		select {
		case <-release:
			return textResult("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	h := NewHandler(s, nil)
	ts := httptest.NewUnstartedServer(h)
	l := &writeCounter{Listener: ts.Listener}
	ts.Listener = l
	ts.Start()
	t.Cleanup(func() { h.Close(); ts.Close() })

	legacy := newClient(t, ts)
	legacy.initialize("2025-11-25", "")
	modernClient := newClient(t, ts)
	for _, c := range []struct {
		name  string
		call  func() *http.Response
		first func(event) bool // the event sent before the work is done
	}{{
		name: "2025-11-25",
		call: func() *http.Response {
			return legacy.do("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
		},
		first: func(ev event) bool { return ev.hasID && ev.data == "" },
	}, {
		name: "2026-07-28",
		call: func() *http.Response {
			return modernClient.do("POST", call26("1", "slow", "", meta26("", `"progressToken":"p"`)), hdr26("tools/call", "slow")...)
		},
		first: func(ev event) bool { return strings.Contains(ev.data, "notifications/progress") },
	}} {
		before := l.writes.Load()
		resp := c.call()
		sse := newSSE(resp)
		if ev, err := sse.next(); err != nil || !c.first(ev) {
			t.Fatalf("%s: first event %+v, %v", c.name, ev, err)
		}
		release <- struct{}{}
		if ev, err := sse.next(); err != nil || !strings.Contains(ev.data, "done") {
			t.Fatalf("%s: second event %+v, %v: want the result", c.name, ev, err)
		}
		if ev, err := sse.next(); err != io.EOF {
			t.Fatalf("%s: after the result: %+v, %v; want the end of the body", c.name, ev, err)
		}
		resp.Body.Close()
		if n := l.writes.Load() - before; n != 2 {
			t.Errorf("%s: the response took %d writes, want 2: the first event, then the result with the end of the body", c.name, n)
		}
	}
}
