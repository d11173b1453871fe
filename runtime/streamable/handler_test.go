package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

func TestInitializeAndCall(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	if len(c.sid) < 22 {
		t.Errorf("session id %q is shorter than 128 bits", c.sid)
	}
	for _, r := range c.sid {
		if r < 0x21 || r > 0x7e {
			t.Fatalf("session id %q holds %q, which is not visible ASCII", c.sid, r)
		}
	}
	resp := c.do("POST", callBody(1, "echo", `{"text":"hi"}`))
	msgs := messages(t, resp)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"hi"`) || !strings.Contains(msgs[0], `"id":1`) {
		t.Fatalf("echo answered %q", msgs)
	}
	// Another client gets another session.
	d := newClient(t, ts)
	d.initialize("2025-06-18", "")
	if d.sid == c.sid {
		t.Fatal("two sessions share an id")
	}
}

func TestJSONResponse(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{JSONResponse: true})
	c := newClient(t, ts)
	resp := c.do("POST", initBody("2025-11-25", ""))
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: Content-Type %q, session %q", ct, resp.Header.Get("Mcp-Session-Id"))
	}
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
	c.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	code, body := c.status("POST", callBody(2, "echo", `{"text":"json"}`))
	var m struct {
		ID     int
		Result mcp.CallToolResult
	}
	if err := json.Unmarshal([]byte(body), &m); code != 200 || err != nil || m.ID != 2 || len(m.Result.Content) != 1 {
		t.Fatalf("echo: %d %s (%v)", code, body, err)
	}
	// A reply too long for net/http to measure itself has its length.
	long := strings.Repeat("x", 10000)
	resp = c.do("POST", callBody(4, "echo", `{"text":"`+long+`"}`))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ContentLength != int64(len(b)) || len(resp.TransferEncoding) != 0 || !strings.Contains(string(b), long) {
		t.Fatalf("long echo: Content-Length %d, Transfer-Encoding %v, body of %d bytes", resp.ContentLength, resp.TransferEncoding, len(b))
	}
	// Without a stream, a tool cannot ask the client anything.
	code, body = c.status("POST", callBody(3, "chatty", ""))
	if code != 200 || !strings.Contains(body, `"isError":true`) {
		t.Fatalf("chatty over JSON: %d %s", code, body)
	}
}

func TestAcceptAndContentType(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, accept := range []string{"", "application/json", "text/event-stream", "text/html"} {
		if code, _ := c.status("POST", initBody("2025-06-18", ""), "Accept", accept); code != http.StatusNotAcceptable {
			t.Errorf("POST with Accept %q: %d, want 406", accept, code)
		}
	}
	if code, _ := c.status("POST", initBody("2025-06-18", ""), "Accept", "application/json;q=0.9, text/event-stream"); code != http.StatusOK {
		t.Errorf("POST with parameters in Accept: %d", code)
	}
	if code, _ := c.status("POST", initBody("2025-06-18", ""), "Content-Type", "text/plain"); code != http.StatusUnsupportedMediaType {
		t.Errorf("POST of text/plain: %d, want 415", code)
	}
	c.initialize("2025-06-18", "")
	if code, _ := c.status("GET", "", "Accept", "application/json"); code != http.StatusNotAcceptable {
		t.Errorf("GET without text/event-stream: %d, want 406", code)
	}
	if code, body := c.status("POST", `{"jsonrpc":"2.0","id":1,`); code != http.StatusBadRequest || !strings.Contains(body, "-32700") {
		t.Errorf("malformed JSON: %d %s", code, body)
	}
	if code, body := c.status("POST", `{"jsonrpc":"2.0","id":1,"result":{},"method":"x"}`); code != http.StatusBadRequest || !strings.Contains(body, "-32600") {
		t.Errorf("invalid message: %d %s", code, body)
	}
}

func TestSessionIDRules(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	sid := c.sid

	c.sid = ""
	if code, body := c.status("POST", callBody(1, "echo", "")); code != http.StatusBadRequest || !strings.Contains(body, "Mcp-Session-Id") {
		t.Errorf("no session id: %d %s", code, body)
	}
	if code, _ := c.status("GET", ""); code != http.StatusBadRequest {
		t.Errorf("GET without session id: %d", code)
	}
	c.sid = "not-a-session"
	if code, _ := c.status("POST", callBody(1, "echo", "")); code != http.StatusNotFound {
		t.Errorf("unknown session id: %d", code)
	}

	c.sid = sid
	if code, _ := c.status("DELETE", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	for _, m := range []string{"POST", "GET", "DELETE"} {
		body := ""
		if m == "POST" {
			body = callBody(2, "echo", "")
		}
		if code, _ := c.status(m, body); code != http.StatusNotFound {
			t.Errorf("%s after DELETE: %d, want 404", m, code)
		}
	}
	eventually(t, "the session to end", func() bool { return h.SessionCount() == 0 })
	if n := h.sessions.(*MemorySessionStore).Len(); n != 0 {
		t.Errorf("%d session records left", n)
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	if code, _ := c.status("POST", initBody("2025-06-18", ""), "MCP-Protocol-Version", "1999-01-01"); code != http.StatusBadRequest {
		t.Errorf("initialize with an unknown version header: %d", code)
	}
	c.initialize("2025-06-18", "")
	for _, v := range []string{"garbage", "2099-01-01"} {
		if code, body := c.status("POST", callBody(1, "echo", ""), "MCP-Protocol-Version", v); code != http.StatusBadRequest || !strings.Contains(body, "2025-11-25") {
			t.Errorf("version %q: %d %s", v, code, body)
		}
	}
	// A 2026-07-28 header makes the request one of that era, which needs
	// its _meta: the session is not consulted.
	if code, body := c.status("POST", callBody(1, "echo", ""), "MCP-Protocol-Version", "2026-07-28"); code != http.StatusBadRequest || !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "_meta") {
		t.Errorf("version 2026-07-28 without _meta: %d %s", code, body)
	}
	// Absent: 2025-03-26 is assumed. Another supported version: served.
	for _, v := range []string{"", "2025-03-26", "2025-11-25"} {
		if msgs := messages(t, c.do("POST", callBody(2, "echo", `{"text":"v"}`), "MCP-Protocol-Version", v)); len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"v"`) {
			t.Errorf("version %q: %q", v, msgs)
		}
	}
}

func TestHostAndOrigin(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	cases := []struct {
		host, origin string
		want         int
	}{
		{"", "", http.StatusOK},
		{"localhost:1234", "", http.StatusOK},
		{"[::1]:80", "", http.StatusOK},
		{"127.0.0.1", "http://localhost:5173", http.StatusOK},
		{"evil.example", "", http.StatusForbidden},
		{"localhost.evil.example", "", http.StatusForbidden},
		{"", "http://evil.example", http.StatusForbidden},
		{"", "null", http.StatusForbidden},
	}
	for _, tc := range cases {
		hdr := []string{"Origin", tc.origin}
		if tc.host != "" {
			hdr = append(hdr, "Host", tc.host)
		}
		code, body := c.status("POST", initBody("2025-06-18", ""), hdr...)
		if code != tc.want {
			t.Errorf("Host %q Origin %q: %d, want %d (%s)", tc.host, tc.origin, code, tc.want, body)
		}
		if code == http.StatusForbidden && !strings.Contains(body, "AllowedHosts") && tc.origin != "null" {
			t.Errorf("403 does not name the option to set: %s", body)
		}
	}

	_, ts = serve(t, &HandlerOptions{AllowedHosts: []string{"mcp.example.com", "proxy.example:8443"}})
	hosts := []struct {
		host string
		want int
	}{
		{"mcp.example.com", 200}, {"mcp.example.com:443", 200}, {"proxy.example:8443", 200},
		{"proxy.example:9999", 403}, {"other.example", 403},
	}
	for _, tt := range hosts {
		t.Run("AllowedHosts/"+tt.host, func(t *testing.T) {
			// A client of the subtest's own, since a client fails the
			// test it was made for.
			c := newClient(t, ts)
			if code, _ := c.status("POST", initBody("2025-06-18", ""), "Host", tt.host); code != tt.want {
				t.Errorf("Host %q: %d, want %d", tt.host, code, tt.want)
			}
		})
	}
	c = newClient(t, ts)
	if code, _ := c.status("POST", initBody("2025-06-18", ""), "Host", "mcp.example.com", "Origin", "https://mcp.example.com"); code != 200 {
		t.Errorf("same-origin request behind a proxy: %d", code)
	}
}

func TestBodyLimit(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{MaxBodyBytes: 1024})
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	big := callBody(1, "echo", `{"text":"`+strings.Repeat("x", 2000)+`"}`)
	code, body := c.status("POST", big)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("big body: %d", code)
	}
	var e struct {
		JSONRPC string
		Error   struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.JSONRPC != "2.0" || e.Error.Code != -32600 || !strings.Contains(e.Error.Message, "MaxBodyBytes") {
		t.Fatalf("413 body %s (%v)", body, err)
	}
	// The session carries on.
	if msgs := messages(t, c.do("POST", callBody(2, "echo", `{"text":"small"}`))); len(msgs) != 1 {
		t.Fatalf("after a 413: %q", msgs)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	for _, m := range []string{"PUT", "PATCH", "HEAD"} {
		resp := c.do(m, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST, DELETE" {
			t.Errorf("%s: %d Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	_, ts = serve(t, &HandlerOptions{Stateless: true})
	c = newClient(t, ts)
	for _, m := range []string{"GET", "DELETE"} {
		resp := c.do(m, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("stateless %s: %d Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

func TestNotificationsAndResponsesGet202(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-03-26", "")
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":98,"result":{}}]`,
	} {
		resp := c.do("POST", body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || len(b) != 0 {
			t.Errorf("%s: %d %q", body, resp.StatusCode, b)
		}
	}
}

func TestBatches(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-03-26", "")
	msgs := messages(t, c.do("POST", "["+callBody(1, "echo", `{"text":"a"}`)+","+callBody(2, "echo", `{"text":"b"}`)+"]"))
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "[") || !strings.Contains(msgs[0], `"text":"a"`) || !strings.Contains(msgs[0], `"text":"b"`) {
		t.Fatalf("batch answered %q", msgs)
	}
	if code, _ := c.status("POST", "["+initBody("2025-03-26", "")+"]"); code != http.StatusBadRequest {
		t.Errorf("initialize in a batch: %d", code)
	}

	d := newClient(t, ts)
	d.initialize("2025-06-18", "")
	if code, body := d.status("POST", "["+callBody(1, "echo", "")+"]"); code != http.StatusBadRequest || !strings.Contains(body, "batches") {
		t.Errorf("batch in 2025-06-18: %d %s", code, body)
	}
}

func TestDuplicateRequestID(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, "POST", callBody(7, "wait", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if code, body := c.status("POST", callBody(7, "echo", "")); code != http.StatusBadRequest || !strings.Contains(body, `"id":7`) {
		t.Fatalf("duplicate id: %d %s", code, body)
	}
	// Cancelling the waiting request ends its stream without a response.
	if code, _ := c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`); code != http.StatusAccepted {
		t.Fatalf("cancel: %d", code)
	}
	if msgs := messages(t, resp); len(msgs) != 0 {
		t.Fatalf("a cancelled request was answered: %q", msgs)
	}
	// The id is free again.
	if msgs := messages(t, c.do("POST", callBody(7, "echo", ""))); len(msgs) != 1 {
		t.Fatalf("reused id: %q", msgs)
	}
}

// TestCancelledParsedAsTheEngineDoes sends a cancellation whose params
// spell requestId twice, once in another case. The transport must cancel
// the request the engine cancels, 5, whose stream then ends; 7 runs on.
func TestCancelledParsedAsTheEngineDoes(t *testing.T) {
	h, ts := serve(t, nil)
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp5, err := c.hc.Do(c.request(ctx, "POST", callBody(5, "wait", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp5.Body.Close()
	resp7, err := c.hc.Do(c.request(ctx, "POST", callBody(7, "wait", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp7.Body.Close()
	if code, _ := c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"requestid":7}}`); code != http.StatusAccepted {
		t.Fatalf("cancel: %d", code)
	}
	if msgs := messages(t, resp5); len(msgs) != 0 {
		t.Fatalf("the cancelled request was answered: %q", msgs)
	}
	s := h.byIDForTest(c.sid)
	if ids := s.requestIDsForTest(); len(ids) != 1 || ids[0] != "7" {
		t.Fatalf("requests in flight after cancelling 5: %q, want [7]", ids)
	}
	c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	if msgs := messages(t, resp7); len(msgs) != 0 {
		t.Fatalf("request 7 was answered after its cancellation: %q", msgs)
	}
	if ids := s.requestIDsForTest(); len(ids) != 0 {
		t.Fatalf("requests left in flight: %q", ids)
	}
}

func TestAuthenticateAndContext(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{Authenticate: func(r *http.Request) (any, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, errors.New("a bearer token is required")
		}
		return "user:" + tok, nil
	}})
	c := newClient(t, ts)
	if code, body := c.status("POST", initBody("2025-06-18", "")); code != http.StatusUnauthorized || !strings.Contains(body, "bearer token") {
		t.Fatalf("no token: %d %s", code, body)
	}
	auth := []string{"Authorization", "Bearer ada"}
	resp := c.do("POST", initBody("2025-06-18", ""), auth...)
	messages(t, resp)
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-06-18"
	c.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth...)
	msgs := messages(t, c.do("POST", callBody(1, "who", ""), append(auth, "X-Test", "hello")...))
	if len(msgs) != 1 || !strings.Contains(msgs[0], `hello|user:ada|true`) {
		t.Fatalf("who answered %q", msgs)
	}
}

// TestSessionBoundToIdentity checks that a session answers only the
// identity that started it: another client that learns its id is told it
// does not exist.
func TestSessionBoundToIdentity(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{Authenticate: func(r *http.Request) (any, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, errors.New("a bearer token is required")
		}
		return "user:" + tok, nil
	}})
	c := newClient(t, ts)
	ada := []string{"Authorization", "Bearer ada"}
	resp := c.do("POST", initBody("2025-06-18", ""), ada...)
	messages(t, resp)
	c.sid, c.version = resp.Header.Get("Mcp-Session-Id"), "2025-06-18"
	c.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ada...)
	eve := []string{"Authorization", "Bearer eve"}
	if code, _ := c.status("POST", callBody(1, "echo", ""), eve...); code != http.StatusNotFound {
		t.Fatalf("another identity's POST got %d, want 404", code)
	}
	if code, _ := c.status("DELETE", "", eve...); code != http.StatusNotFound {
		t.Fatalf("another identity's DELETE got %d, want 404", code)
	}
	if msgs := messages(t, c.do("POST", callBody(2, "echo", ""), ada...)); len(msgs) != 1 {
		t.Fatalf("the owner was refused: %q", msgs)
	}
}
