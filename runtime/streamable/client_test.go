package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	mcpclient "github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// connectClient connects an mcpgen client to url over a ClientTransport,
// in a legacy session: these tests are about the legacy transport's
// sessions, streams and resumption.
func connectClient(t testing.TB, url string, opts *mcpclient.Options) (*mcpclient.Session, *ClientTransport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := NewClientTransport(url, nil)
	sess, err := mcpclient.New(mcp.Implementation{Name: "client-test", Version: "1"}, legacy(opts)).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess, tr
}

func callText(t testing.TB, sess *mcpclient.Session, tool, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", tool, len(res.Content))
	}
	tc, ok := res.Content[0].Value.(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", tool, res.Content[0].Value)
	}
	return tc.Text
}

func acceptName(name string) func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]mcp.ElicitResultContentValue{
			"name": {Value: mcp.ElicitResultContentValueString(name)},
		}}, nil
	}
}

func TestClientCallsOverSSE(t *testing.T) {
	h, ts := serve(t, nil)
	sess, tr := connectClient(t, ts.URL, &mcpclient.Options{Elicit: acceptName("Ada")})
	if tr.SessionID() == "" || h.byIDForTest(tr.SessionID()) == nil {
		t.Fatalf("session id %q is not one the server knows", tr.SessionID())
	}
	if got := tr.ProtocolVersion(); got != string(mcp.Version20251125) {
		t.Errorf("ProtocolVersion() = %q", got)
	}
	if got := callText(t, sess, "echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo = %q", got)
	}
	// The tool asks the client on its own SSE stream; the answer goes back
	// in a POST of its own while the tool's stream stays open.
	if got := callText(t, sess, "chatty", `{}`); got != "accept:Ada" {
		t.Errorf("chatty = %q", got)
	}
	// Concurrent calls each get their own stream.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			want := fmt.Sprint(i)
			if got := callText(t, sess, "echo", `{"text":"`+want+`"}`); got != want {
				t.Errorf("echo %s = %q", want, got)
			}
		})
	}
	wg.Wait()
}

func TestClientJSONResponse(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{JSONResponse: true})
	sess, _ := connectClient(t, ts.URL, nil)
	if got := callText(t, sess, "echo", `{"text":"json"}`); got != "json" {
		t.Errorf("echo = %q", got)
	}
}

func TestClientGETStreamNotifications(t *testing.T) {
	h, ts := serve(t, nil)
	changed := make(chan struct{}, 1)
	_, tr := connectClient(t, ts.URL, &mcpclient.Options{OnToolsListChanged: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	eventually(t, "the GET stream to attach", func() bool {
		s := h.byIDForTest(tr.SessionID())
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.standalone != nil && s.standalone.attached
	})
	addTool(t, srvOf(h), "late", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult("late"), nil
	})
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/tools/list_changed did not arrive on the GET stream")
	}
}

func TestClientReinitializesOn404(t *testing.T) {
	h, ts := serve(t, nil)
	sess, tr := connectClient(t, ts.URL, nil)
	old := tr.SessionID()
	h.end(h.byIDForTest(old)) // the server forgets the session
	if got := callText(t, sess, "echo", `{"text":"again"}`); got != "again" {
		t.Errorf("echo after 404 = %q", got)
	}
	if sid := tr.SessionID(); sid == old || h.byIDForTest(sid) == nil {
		t.Errorf("session %q after re-initializing, was %q", sid, old)
	}
	// Notifications find the new session too.
	if err := sess.NotifyRootsListChanged(context.Background()); err != nil {
		t.Errorf("notification after re-initializing: %v", err)
	}
}

// TestClientReinitializesOnce checks that a request is retried once, not
// forever, when the new session is forgotten as well.
func TestClientReinitializesOnce(t *testing.T) {
	var inits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := jsonrpc.DecodeMessage(body)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case m.Method == "initialize":
			n := inits.Add(1)
			w.Header().Set("Mcp-Session-Id", fmt.Sprint("s", n))
			writeJSON(w, 200, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"f","version":"1"}}`)))
		case m.Kind() != jsonrpc.MessageRequest:
			w.WriteHeader(http.StatusAccepted)
		default:
			httpError(w, http.StatusNotFound, "no such session")
		}
	}))
	defer ts.Close()
	sess, _ := connectClient(t, ts.URL, nil)
	_, err := sess.ListTools(context.Background(), nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "404 Not Found: no such session") || !strings.Contains(string(rpcErr.Data), `"httpStatus":404`) {
		t.Fatalf("ListTools = %v (%#v)", err, rpcErr)
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("%d initialize requests, want 2", n)
	}
}

func TestClientHTTPErrors(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := jsonrpc.DecodeMessage(body)
		switch {
		case m.Method == "initialize":
			writeJSON(w, 200, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)))
		case r.Method == http.MethodGet:
			http.Error(w, "no", http.StatusMethodNotAllowed)
		case m.Method == "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/list":
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "upstream down")
		case m.Method == "ping":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "pong")
		default:
			httpError(w, http.StatusForbidden, "roots are not welcome")
		}
	}))
	defer ts.Close()
	sess, _ := connectClient(t, ts.URL, nil)
	ctx := context.Background()
	if _, err := sess.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "502 Bad Gateway: upstream down") {
		t.Errorf("ListTools = %v", err)
	}
	if _, err := sess.Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), `Content-Type "text/plain"`) {
		t.Errorf("Ping = %v", err)
	}
	err := sess.NotifyRootsListChanged(ctx)
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusForbidden || se.RPC == nil || se.RPC.Message != "roots are not welcome" {
		t.Errorf("notification = %v", err)
	}
}

// resumingServer is a hand-written server whose tools/call stream sends a
// priming event and ends without the result, which it gives only to a GET
// with the right Last-Event-ID; its GET stream likewise ends after one
// event and wants to be resumed.
type resumingServer struct {
	retry time.Duration

	mu        sync.Mutex
	closedAt  time.Time // when the tools/call stream ended
	resumedAt time.Time // when the GET that resumed it came
	callID    jsonrpc.ID
	gets      []string // Last-Event-ID of each standalone GET
	deletes   int
}

func (s *resumingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	flush := func() { http.NewResponseController(w).Flush() }
	switch r.Method {
	case http.MethodDelete:
		s.deletes++
		return
	case http.MethodGet:
		if r.Header.Get("Mcp-Session-Id") != "sid" || r.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
			http.Error(w, "bad headers", http.StatusBadRequest)
			return
		}
		last := r.Header.Get("Last-Event-ID")
		startSSE(w)
		if last == "call-1" {
			s.resumedAt = time.Now()
			fmt.Fprintf(w, "id: call-2\nevent: message\ndata: %s\n\n", jsonrpc.AppendResult(nil, s.callID, []byte(`{"content":[{"type":"text","text":"resumed"}]}`)))
			flush()
			return
		}
		s.gets = append(s.gets, last)
		n := len(s.gets)
		// A split data field, to be joined again, and a comment.
		fmt.Fprintf(w, ": hello\r\nid: get-%d\r\nretry: 20\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"notifications/tools/list_changed\"}\r\n\r\n", n)
		flush()
		return
	}
	body, _ := io.ReadAll(r.Body)
	m, _ := jsonrpc.DecodeMessage(body)
	switch {
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "sid")
		writeJSON(w, 200, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"f","version":"1"}}`)))
	case m.Kind() != jsonrpc.MessageRequest:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/call":
		s.callID = m.ID
		startSSE(w)
		fmt.Fprintf(w, "id: call-1\nretry: %d\ndata: \n\n", s.retry.Milliseconds())
		flush()
		s.closedAt = time.Now()
	default:
		writeJSON(w, 200, jsonrpc.AppendError(nil, m.ID, jsonrpc.ErrMethodNotFound(m.Method)))
	}
}

func TestClientResumesStreams(t *testing.T) {
	srv := &resumingServer{retry: 300 * time.Millisecond}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	changed := make(chan struct{}, 10)
	sess, _ := connectClient(t, ts.URL, &mcpclient.Options{OnToolsListChanged: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if got := callText(t, sess, "slow", `{}`); got != "resumed" {
		t.Errorf("tools/call = %q", got)
	}
	srv.mu.Lock()
	waited := srv.resumedAt.Sub(srv.closedAt)
	srv.mu.Unlock()
	if waited < srv.retry {
		t.Errorf("resumed %v after the stream ended, before the retry interval %v", waited, srv.retry)
	}
	// The GET stream ends after each event and is resumed from it.
	for range 3 {
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("no notification on the GET stream")
		}
	}
	srv.mu.Lock()
	gets := append([]string(nil), srv.gets...)
	srv.mu.Unlock()
	if len(gets) < 3 || gets[0] != "" || gets[1] != "get-1" || gets[2] != "get-2" {
		t.Errorf("Last-Event-ID of the GETs: %q", gets)
	}
	sess.Close()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.deletes != 1 {
		t.Errorf("%d DELETEs on Close, want 1", srv.deletes)
	}
}

func TestClientStreamEndsWithoutID(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := jsonrpc.DecodeMessage(body)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case m.Method == "initialize":
			writeJSON(w, 200, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)))
		case m.Kind() != jsonrpc.MessageRequest:
			w.WriteHeader(http.StatusAccepted)
		default:
			startSSE(w)
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n\n")
		}
	}))
	defer ts.Close()
	sess, _ := connectClient(t, ts.URL, nil)
	if _, err := sess.ListTools(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no event id to resume") {
		t.Errorf("ListTools = %v", err)
	}
}

func TestClientMessageTooLarge(t *testing.T) {
	_, ts := serve(t, nil)
	ctx := context.Background()
	tr := NewClientTransport(ts.URL, &ClientOptions{MaxMessageSize: 1000})
	defer tr.Close()
	sess, err := mcpclient.New(mcp.Implementation{Name: "c", Version: "1"}, legacy(nil)).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + strings.Repeat("x", 1200) + `"}`)})
	if err == nil {
		t.Fatal("a response over the limit was delivered")
	}
	if got := callText(t, sess, "echo", `{"text":"small"}`); got != "small" {
		t.Errorf("echo after a dropped message = %q", got)
	}
}

func TestClientCloseLeavesNothing(t *testing.T) {
	h, ts := serve(t, nil)
	var before testutil.Baseline
	for i := range 4 {
		if i == 1 {
			// The first session started the handler's janitor, which
			// stays: count from here.
			eventually(t, "the first session to end", func() bool { return h.SessionCount() == 0 })
			before = testutil.Goroutines()
		}
		tr := NewClientTransport(ts.URL, nil)
		sess, err := mcpclient.New(mcp.Implementation{Name: "c", Version: "1"}, legacy(&mcpclient.Options{Elicit: acceptName("Bo")})).Connect(context.Background(), tr)
		if err != nil {
			t.Fatal(err)
		}
		if got := callText(t, sess, "chatty", `{}`); got != "accept:Bo" {
			t.Errorf("chatty = %q", got)
		}
		sess.Close()
		if err := tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","method":"x"}`)); !errors.Is(err, ErrClientClosed) {
			t.Errorf("Write after Close = %v", err)
		}
		if _, err := tr.Read(context.Background()); !errors.Is(err, ErrClientClosed) {
			t.Errorf("Read after Close = %v", err)
		}
	}
	eventually(t, "the sessions to end with DELETE", func() bool { return h.SessionCount() == 0 })
	testutil.WaitGoroutines(t, before)
}

func TestEventScanner(t *testing.T) {
	in := "\ufeff: comment\nid: 1\nretry: 250\ndata: \n\n" + // priming
		"event: message\ndata: a\ndata:b\r\n\r\n" + // LF and CRLF, value without a space
		"id\rdata: c\r\r" + // lone CR; an empty id
		"retry: x\ndata: " + strings.Repeat("y", 20) + "\n\n" + // too large; a bad retry
		"data: d\n\n" +
		"data: cut off"
	sc := newEventScanner(strings.NewReader(in), 10)
	var got []string
	for {
		ev, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%q/%t/%q/%v/%t/%t", ev.id, ev.hasID, ev.data, ev.retry, ev.hasRetry, ev.tooLarge))
	}
	want := []string{
		`"1"/true/""/250ms/true/false`,
		`""/false/"a\nb"/0s/false/false`,
		`""/true/"c"/0s/false/false`,
		`""/false/""/0s/false/true`,
		`""/false/"d"/0s/false/false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// legacy returns opts, or new Options, pinned to the legacy era.
func legacy(opts *mcpclient.Options) *mcpclient.Options {
	if opts == nil {
		opts = &mcpclient.Options{}
	}
	opts.Era = mcp.EraLegacy
	return opts
}

// TestClientFollowsRedirects serves the endpoint behind a redirect, as a
// server mounted at /mcp/ answers /mcp: the transport's own HTTP client
// sends on its connection pool directly and must still follow it, body
// and all, in a legacy session and for 2026-07-28 calls.
func TestClientFollowsRedirects(t *testing.T) {
	h, _ := serve(t, nil)
	var redirected atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		redirected.Add(1)
		http.Redirect(w, r, "/mcp/", http.StatusTemporaryRedirect)
	})
	mux.Handle("/mcp/", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	for _, opts := range []*mcpclient.Options{legacy(nil), nil} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr := NewClientTransport(ts.URL+"/mcp", nil)
		sess, err := mcpclient.New(mcp.Implementation{Name: "client-test", Version: "1"}, opts).Connect(ctx, tr)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		before := redirected.Load()
		if got := callText(t, sess, "echo", `{"text":"moved"}`); got != "moved" {
			t.Errorf("%s: echo = %q", sess.ProtocolVersion(), got)
		}
		if redirected.Load() == before {
			t.Errorf("%s: the call did not go through the redirect", sess.ProtocolVersion())
		}
		sess.Close()
	}
}

// TestClientErrorsHidePasswords connects to an endpoint whose URL carries
// a password, where nothing listens: the errors name the endpoint with
// the password hidden, in both eras and over HTTP+SSE.
func TestClientErrorsHidePasswords(t *testing.T) {
	const endpoint = "http://user:s3cret@127.0.0.1:1/mcp"
	for _, c := range []struct {
		name string
		t    jsonrpc.Transport
		opts *mcpclient.Options
	}{
		{"2026-07-28", NewClientTransport(endpoint, nil), nil},
		{"legacy", NewClientTransport(endpoint, nil), legacy(nil)},
		{"HTTP+SSE", NewLegacyClientTransport(endpoint, nil), legacy(nil)},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := mcpclient.New(mcp.Implementation{Name: "client-test", Version: "1"}, c.opts).Connect(ctx, c.t)
		cancel()
		if err == nil {
			t.Fatalf("%s: Connect succeeded with nothing listening", c.name)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", c.name, err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("%s: the error does not name the endpoint: %v", c.name, err)
		}
	}
}
