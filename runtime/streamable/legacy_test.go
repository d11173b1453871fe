package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	mcpclient "github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// serveLegacy starts a LegacyHandler over the test engine.
func serveLegacy(t testing.TB, opts *LegacyOptions) (*LegacyHandler, *httptest.Server) {
	t.Helper()
	h := NewLegacyHandler(newMCP(t), opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return h, ts
}

// legacyStream is a raw GET of the SSE endpoint.
type legacyStream struct {
	resp     *http.Response
	cancel   context.CancelFunc
	r        *bufio.Reader
	endpoint string
}

// openLegacy GETs url, with hdr's name/value pairs as headers, and reads
// the endpoint event.
func openLegacy(t testing.TB, rawURL string, hdr ...string) *legacyStream {
	t.Helper()
	resp, cancel := getLegacy(t, rawURL, hdr...)
	s := &legacyStream{resp: resp, cancel: cancel, r: bufio.NewReader(resp.Body)}
	t.Cleanup(s.close)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
		t.Fatalf("GET: %s %q %s", resp.Status, resp.Header.Get("Content-Type"), b)
	}
	name, data := s.next(t)
	if name != "endpoint" {
		t.Fatalf("first event %q %q, want endpoint", name, data)
	}
	s.endpoint = data
	return s
}

// getLegacy GETs url with hdr's name/value pairs as headers; cancel
// ends the request.
func getLegacy(t testing.TB, rawURL string, hdr ...string) (resp *http.Response, cancel context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return resp, cancel
}

func (s *legacyStream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// next reads the next event's name and data.
func (s *legacyStream) next(t testing.TB) (name, data string) {
	t.Helper()
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && data != "":
			return name, data
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			data += line[len("data: "):]
		}
	}
}

// post sends body to the stream's endpoint, resolved against base.
func (s *legacyStream) post(t testing.TB, base, body string, hdr ...string) (int, string) {
	t.Helper()
	b, _ := url.Parse(base)
	ref, err := url.Parse(s.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return rawPost(t, b.ResolveReference(ref).String(), body, hdr...)
}

func rawPost(t testing.TB, target, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// connectLegacy runs Connect over the legacy client transport.
func connectLegacy(t testing.TB, sseURL string, opts *mcpclient.Options) *mcpclient.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if opts == nil {
		opts = &mcpclient.Options{}
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = mcp.Version20241105
	}
	sess, err := mcpclient.New(mcp.Implementation{Name: "legacy-test", Version: "1"}, opts).Connect(ctx, NewLegacyClientTransport(sseURL, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func toolText(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	if r.IsError || len(r.Content) != 1 {
		t.Fatalf("tool result %+v", r)
	}
	txt, ok := r.Content[0].Value.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", r.Content[0].Value)
	}
	return txt.Text
}

func TestLegacyClientAndServer(t *testing.T) {
	h, ts := serveLegacy(t, nil)
	var mu sync.Mutex
	var progress, logs []string
	sess := connectLegacy(t, ts.URL+"/sse", &mcpclient.Options{
		ProtocolVersion: mcp.Version20250618, // the first with elicitation
		RequestTimeout:  10 * time.Second,    // gives every request a progress token
		OnProgress: func(p *mcp.ProgressNotificationParams) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, p.Message)
		},
		OnLog: func(p *mcp.LoggingMessageNotificationParams) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, string(p.Data))
		},
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			var r mcp.ElicitResult
			err := json.Unmarshal([]byte(`{"action":"accept","content":{"name":"Ada"}}`), &r)
			return &r, err
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if v := sess.ProtocolVersion(); v != mcp.Version20250618 {
		t.Errorf("negotiated %q, want 2025-06-18", v)
	}
	if h.SessionCount() != 1 {
		t.Errorf("SessionCount %d, want 1", h.SessionCount())
	}

	list, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "echo") || !strings.Contains(got, "chatty") {
		t.Errorf("tools %s, want echo and chatty among them", got)
	}

	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, res); got != "hi" {
		t.Errorf("echo answered %q", got)
	}

	// chatty's notifications and its request to the client travel on the
	// stream, before its response.
	res, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "chatty", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(t, res); got != "accept:Ada" {
		t.Errorf("chatty answered %q", got)
	}
	eventually(t, "the notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) == 1 && len(logs) == 1
	})
	mu.Lock()
	if progress[0] != "half" || logs[0] != `"careful"` {
		t.Errorf("progress %q, logs %q", progress, logs)
	}
	mu.Unlock()

	sess.Close()
	eventually(t, "the session to end", func() bool { return h.SessionCount() == 0 })
}

func TestLegacyHTTPErrors(t *testing.T) {
	_, ts := serveLegacy(t, &LegacyOptions{MaxBodyBytes: 1 << 10})
	s := openLegacy(t, ts.URL+"/sse")
	if !strings.HasPrefix(s.endpoint, "/sse?"+LegacySessionParam+"=") {
		t.Errorf("endpoint %q, want the GET's path with the session id", s.endpoint)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name   string
		status int
		send   func() (int, string)
	}{
		{"no session id", http.StatusBadRequest, func() (int, string) { return rawPost(t, ts.URL+"/sse", ping) }},
		{"unknown session", http.StatusNotFound, func() (int, string) { return rawPost(t, ts.URL+"/sse?sessionId=NOSUCHSESSION", ping) }},
		{"malformed JSON", http.StatusBadRequest, func() (int, string) { return s.post(t, ts.URL, `{"jsonrpc":`) }},
		{"not JSON-RPC", http.StatusBadRequest, func() (int, string) { return s.post(t, ts.URL, `{"hello":1}`) }},
		{"not JSON", http.StatusUnsupportedMediaType, func() (int, string) { return s.post(t, ts.URL, ping, "Content-Type", "text/plain") }},
		{"too large", http.StatusRequestEntityTooLarge, func() (int, string) {
			return s.post(t, ts.URL, `{"jsonrpc":"2.0","method":"x","params":{"pad":"`+strings.Repeat("x", 2<<10)+`"}}`)
		}},
		{"accepted", http.StatusAccepted, func() (int, string) { return s.post(t, ts.URL, ping) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := tc.send()
			if status != tc.status {
				t.Errorf("status %d (%s), want %d", status, body, tc.status)
			}
		})
	}
	// The ping's response comes on the stream.
	if name, data := s.next(t); name != "message" || !strings.Contains(data, `"id":1`) {
		t.Errorf("stream carried %s %s, want the ping's response", name, data)
	}

	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST" {
		t.Errorf("DELETE: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}
}

func TestLegacyHostAndOrigin(t *testing.T) {
	_, ts := serveLegacy(t, &LegacyOptions{AllowedHosts: []string{"mcp.example.com"}})
	get := func(hdr ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			if hdr[i] == "Host" {
				req.Host = hdr[i+1]
			} else {
				req.Header.Set(hdr[i], hdr[i+1])
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, ""
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name   string
		status int
		hdr    []string
	}{
		{"loopback", http.StatusOK, nil},
		{"allowed host", http.StatusOK, []string{"Host", "mcp.example.com"}},
		{"rebinding host", http.StatusForbidden, []string{"Host", "evil.example"}},
		{"foreign origin", http.StatusForbidden, []string{"Origin", "http://evil.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := get(tc.hdr...)
			if status != tc.status {
				t.Fatalf("status %d (%s), want %d", status, body, tc.status)
			}
			if status == http.StatusForbidden && !strings.Contains(body, "LegacyOptions.AllowedHosts") {
				t.Errorf("403 body %s does not name the fix", body)
			}
		})
	}
	s := openLegacy(t, ts.URL+"/sse")
	if status, body := s.post(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", "evil.example"); status != http.StatusForbidden {
		t.Errorf("POST with a rebinding Host: %d %s, want 403", status, body)
	}
}

func TestLegacySessionEndsWithStream(t *testing.T) {
	h, ts := serveLegacy(t, nil)
	ts.Client() // start the test server's own goroutines before counting
	before := testutil.Goroutines()

	s := openLegacy(t, ts.URL+"/sse")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	if status, body := s.post(t, ts.URL, init); status != http.StatusAccepted {
		t.Fatalf("initialize: %d %s", status, body)
	}
	if _, data := s.next(t); !strings.Contains(data, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answered %s", data)
	}
	if h.SessionCount() != 1 {
		t.Fatalf("SessionCount %d, want 1", h.SessionCount())
	}
	s.close()
	eventually(t, "the session to end", func() bool { return h.SessionCount() == 0 })
	if status, _ := s.post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusNotFound {
		t.Errorf("POST to the ended session: %d, want 404", status)
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	testutil.WaitGoroutines(t, before)
}

func TestLegacyCloseEndsSessions(t *testing.T) {
	h, ts := serveLegacy(t, nil)
	tr := NewLegacyClientTransport(ts.URL+"/sse", nil)
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Read(ctx); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if h.SessionCount() != 0 {
		t.Errorf("SessionCount %d after Close", h.SessionCount())
	}
	if _, err := tr.Read(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Read after the server closed: %v, want io.EOF", err)
	}
	resp, err := http.Get(ts.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET after Close: %s, want 503", resp.Status)
	}
}

func TestMuxServesBothTransports(t *testing.T) {
	m := NewMux(newMCP(t), nil)
	ts := httptest.NewServer(http.StripPrefix("/api", m))
	t.Cleanup(func() {
		m.Close()
		ts.Close()
	})
	s := openLegacy(t, ts.URL+"/api/sse")
	if !strings.HasPrefix(s.endpoint, "/api/message?"+LegacySessionParam+"=") {
		t.Errorf("endpoint %q, want /api/message?%s=…", s.endpoint, LegacySessionParam)
	}
	sess := connectLegacy(t, ts.URL+"/api/sse", nil)
	if _, err := sess.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}

	c := &client{t: t, url: ts.URL + "/api/mcp", hc: ts.Client()}
	c.initialize(string(mcp.Version20250618), "{}")
	if c.sid == "" {
		t.Error("no Streamable HTTP session at /api/mcp")
	}
}

func TestLegacyClientRejectsForeignEndpoint(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		io.WriteString(w, "event: endpoint\ndata: http://elsewhere.example/message?sessionId=1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer ts.Close()
	tr := NewLegacyClientTransport(ts.URL, nil)
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err == nil || !strings.Contains(err.Error(), "origin") {
		t.Errorf("Write: %v, want an error about the endpoint's origin", err)
	}
}

func TestLegacyClientNotAnSSEServer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		io.WriteString(w, "event: message\ndata: {}\n\n")
	}))
	defer ts.Close()
	tr := NewLegacyClientTransport(ts.URL, nil)
	defer tr.Close()
	err := tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err == nil || !strings.Contains(err.Error(), "not endpoint") {
		t.Errorf("Write: %v, want an error about the missing endpoint event", err)
	}
	if _, err := tr.Read(context.Background()); err == nil {
		t.Error("Read succeeded on a failed stream")
	}
}

func TestLegacyClientSkipsLargeMessages(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		startSSE(w)
		io.WriteString(w, ": hello\r\nevent: endpoint\r\ndata: /post?sessionId=1\r\n\r\n")
		io.WriteString(w, "event: message\ndata: {\"pad\":\""+strings.Repeat("x", 200)+"\"}\n\n")
		io.WriteString(w, "event: other\ndata: {}\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"ping\"}\n\n")
	}))
	defer ts.Close()
	tr := NewLegacyClientTransport(ts.URL, &LegacyClientOptions{MaxMessageBytes: 100})
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Read(ctx); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Errorf("first Read: %v, want ErrMessageTooLarge", err)
	}
	if f, err := tr.Read(ctx); err != nil || string(f) != "{\"jsonrpc\":\"2.0\",\n\"method\":\"ping\"}" {
		t.Errorf("second Read: %q, %v; want the ping, its data lines joined", f, err)
	}
	if _, err := tr.Read(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Read at the end of the stream: %v, want io.EOF", err)
	}
}

// TestLegacySessionBoundToIdentity checks that a legacy session takes
// POSTs only from the identity that opened its stream, answering another
// as it answers an unknown session, and that its handlers see the owner.
func TestLegacySessionBoundToIdentity(t *testing.T) {
	eng := newMCP(t)
	addTool(t, eng, "whoami", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(fmt.Sprintf("%v|%v", IdentityFromContext(ctx), server.PrincipalFrom(ctx))), nil
	})
	h := NewLegacyHandler(eng, &LegacyOptions{Authenticate: bearer})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	ada := []string{"Authorization", "Bearer ada"}
	eve := []string{"Authorization", "Bearer eve"}
	s := openLegacy(t, ts.URL, ada...)

	unknownStatus, unknownBody := rawPost(t, ts.URL+"?sessionId=NOSUCHSESSION", initBody("2024-11-05", ""), eve...)
	status, body := s.post(t, ts.URL, initBody("2024-11-05", ""), eve...)
	if status != http.StatusNotFound || status != unknownStatus || body != unknownBody {
		t.Fatalf("another identity's POST: %d %s; an unknown session's: %d %s", status, body, unknownStatus, unknownBody)
	}
	if status, body := s.post(t, ts.URL, initBody("2024-11-05", ""), ada...); status != http.StatusAccepted {
		t.Fatalf("the owner's initialize: %d %s", status, body)
	}
	if _, data := s.next(t); !strings.Contains(data, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answered %s", data)
	}
	s.post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ada...)
	if status, _ := s.post(t, ts.URL, callBody(1, "whoami", ""), eve...); status != http.StatusNotFound {
		t.Fatalf("another identity's tools/call: %d", status)
	}
	if status, body := s.post(t, ts.URL, callBody(2, "whoami", ""), ada...); status != http.StatusAccepted {
		t.Fatalf("the owner's tools/call: %d %s", status, body)
	}
	// The stream carries the owner's call alone: eve's never reached it.
	if _, data := s.next(t); !strings.Contains(data, `"id":2`) || !strings.Contains(data, "user:ada|user:ada") {
		t.Fatalf("whoami answered %s", data)
	}
}

// TestLegacyHTTPRequestFromContext: a handler on the HTTP+SSE transport
// sees the POST that carried its request.
func TestLegacyHTTPRequestFromContext(t *testing.T) {
	eng := newMCP(t)
	addTool(t, eng, "header", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r := HTTPRequestFromContext(ctx)
		if r == nil {
			return textResult("no request"), nil
		}
		return textResult("x-trace=" + r.Header.Get("X-Trace")), nil
	})
	h := NewLegacyHandler(eng, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	s := openLegacy(t, srv.URL)
	s.post(t, srv.URL, initBody("2024-11-05", ""))
	s.next(t)
	s.post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.post(t, srv.URL, callBody(1, "header", ""), "X-Trace", "abc")
	if _, data := s.next(t); !strings.Contains(data, "x-trace=abc") {
		t.Fatalf("the handler saw %s", data)
	}
}
