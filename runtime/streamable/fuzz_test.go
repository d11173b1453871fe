package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// sidPlaceholder in a fuzzed Mcp-Session-Id stands for the id of the
// session each input starts, so that inputs reach a live session.
const sidPlaceholder = "$SID"

// FuzzServeHTTP sends one arbitrary request (method, the transport's
// headers, a few more as "Name: value" lines in extra, and a body) to a
// Handler over an engine that serves the official example requests, after
// a 2025-11-25 session was started. Whatever arrives, the Handler must not
// panic, must answer with a real HTTP status, and must send JSON where its
// Content-Type says JSON: a JSON-RPC message, or SSE events each carrying
// one.
func FuzzServeHTTP(f *testing.F) {
	srv := exampleEngine(f)
	addEcho(f, srv)
	for _, body := range exampleMessages(f) {
		f.Add("POST", "2026-07-28", "", "application/json, text/event-stream", "application/json", "", headerLines(impliedHeaders(f, body)), body)
		f.Add("POST", "2025-11-25", sidPlaceholder, "application/json, text/event-stream", "application/json", "", "", body)
	}
	for _, seed := range []struct{ method, version, sid, accept, lastEventID, body string }{
		{"POST", "", "", "application/json, text/event-stream", "", initBody("2025-11-25", "")},
		{"POST", "2025-11-25", sidPlaceholder, "application/json, text/event-stream", "", callBody(1, "echo", `{"text":"hi"}`)},
		{"POST", "2025-03-26", sidPlaceholder, "*/*", "", `[` + callBody(1, "echo", "") + `,` + callBody(2, "echo", "") + `]`},
		{"POST", "2025-11-25", sidPlaceholder, "application/json", "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestid":2}}`},
		{"POST", "2025-11-25", sidPlaceholder, "text/event-stream", "", `{"jsonrpc":"2.0","id":"x","method":"ping"}`},
		{"POST", "2025-11-25", "nope", "application/json", "", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"POST", "2025-11-25", sidPlaceholder, "application/json", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[]}}`},
		{"POST", "2025-11-25", sidPlaceholder, "application/json", "", `{"jsonrpc":"2.0","id":1,"method":`},
		{"GET", "2025-11-25", sidPlaceholder, "text/event-stream", "", ""},
		{"GET", "2025-11-25", sidPlaceholder, "text/event-stream", "1-1", ""},
		{"GET", "2025-11-25", sidPlaceholder, "text/event-stream", "0-18446744073709551615", ""},
		{"GET", "2025-11-25", sidPlaceholder, "text/event-stream", "99-1", ""},
		{"DELETE", "2025-11-25", sidPlaceholder, "", "", ""},
		{"PUT", "2026-07-28", "", "", "", "{}"},
	} {
		f.Add(seed.method, seed.version, seed.sid, seed.accept, "application/json", seed.lastEventID, "", []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, method, version, sid, accept, contentType, lastEventID, extra string, body []byte) {
		if len(body) > 4<<10 {
			return // bounds the time an input takes; MaxBodyBytes below is smaller still
		}
		h := NewHandler(srv, &HandlerOptions{MaxBodyBytes: 2 << 10})
		defer closeHandler(t, h)
		realSID := startSession(t, h)
		req, err := http.NewRequest(method, "http://localhost/mcp", bytes.NewReader(body))
		if err != nil {
			return // net/http would not send it
		}
		for _, kv := range [][2]string{
			{"MCP-Protocol-Version", version},
			{"Mcp-Session-Id", strings.ReplaceAll(sid, sidPlaceholder, realSID)},
			{"Accept", accept},
			{"Content-Type", contentType},
			{"Last-Event-ID", lastEventID},
		} {
			if kv[1] != "" {
				req.Header.Set(kv[0], kv[1])
			}
		}
		for line := range strings.SplitSeq(extra, "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && validToken(name) {
				req.Header.Add(name, strings.TrimSpace(value))
			}
		}
		if !validHeader(req.Header) {
			return // net/http would not send it, nor read it
		}
		w, cancelled := serveBounded(t, h, req)
		checkAnswer(t, w, cancelled)
	})
}

// exampleMessages returns the official 2026-07-28 example requests and
// notifications.
func exampleMessages(tb testing.TB) [][]byte {
	tb.Helper()
	dir := sharedtest.ExamplesDir(tb, "2026-07-28")
	var out [][]byte
	for _, suffix := range []string{"Request", "Notification"} {
		files, err := filepath.Glob(filepath.Join(dir, "*"+suffix, "*.json"))
		if err != nil {
			tb.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, data)
		}
	}
	if len(out) == 0 {
		tb.Fatalf("no example requests in %s", dir)
	}
	return out
}

// headerLines writes name/value pairs as "Name: value" lines.
func headerLines(pairs []string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, "%s: %s\n", pairs[i], pairs[i+1])
	}
	return b.String()
}

// validToken reports whether s may be a header name.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeader reports whether every value is one net/http would carry:
// no control characters but tab.
func validHeader(h http.Header) bool {
	for _, values := range h {
		for _, v := range values {
			for _, c := range []byte(v) {
				if c < ' ' && c != '\t' || c == 0x7f {
					return false
				}
			}
		}
	}
	return true
}

// startSession starts a 2025-11-25 session on h and returns its id.
func startSession(t *testing.T, h *Handler) string {
	t.Helper()
	post := func(sid, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := post("", initBody("2025-11-25", ""))
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	if w := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", w.Code, w.Body)
	}
	return sid
}

// streamWait is how long a fuzzed POST's SSE answer may run before the
// client goes away: long enough for the engine's quick answers, short
// enough that a stream that never ends (subscriptions/listen) does not
// stall the fuzzer. A GET's stream is left at once: it ends only with its
// session.
const streamWait = 250 * time.Millisecond

// serveBounded serves req with h and returns what was written, and
// whether the client went away before the Handler was done.
func serveBounded(t *testing.T, h *Handler, req *http.Request) (*recorder, bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, req.WithContext(ctx))
	}()
	cancelled := false
	select {
	case <-done:
	case <-w.started:
		if req.Method == http.MethodPost {
			select {
			case <-done:
			case <-time.After(streamWait):
			}
		}
		select {
		case <-done:
		default:
			cancelled = true
			cancel()
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("ServeHTTP(%s, headers %v) did not return 10 s after its client went away", req.Method, req.Header)
	}
	return w, cancelled
}

// checkAnswer checks what a Handler wrote: a real status, and JSON where
// the Content-Type says JSON.
func checkAnswer(t *testing.T, w *recorder, cancelled bool) {
	t.Helper()
	if w.status == 0 {
		if !cancelled {
			t.Fatalf("ServeHTTP wrote nothing")
		}
		return
	}
	if w.status < 200 || http.StatusText(w.status) == "" {
		t.Fatalf("status %d", w.status)
	}
	body := w.body.Bytes()
	if w.status == http.StatusAccepted || w.status == http.StatusNoContent {
		if len(body) > 0 {
			t.Fatalf("status %d with a body: %q", w.status, body)
		}
		return
	}
	ct := w.header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("status %d with Content-Type %q: %v (%q)", w.status, ct, err, body)
	}
	switch mediaType {
	case "application/json":
		if _, _, err := jsonrpc.DecodeBatch(body); err != nil {
			t.Fatalf("status %d: the JSON body is no JSON-RPC message: %v\n%s", w.status, err, body)
		}
	case "text/event-stream":
		if w.status != http.StatusOK {
			t.Fatalf("status %d on an SSE stream", w.status)
		}
		for _, ev := range scanEvents(t, bytes.NewReader(body), len(body)) {
			if len(ev.data) == 0 {
				continue // a priming event
			}
			if _, _, err := jsonrpc.DecodeBatch(ev.data); err != nil {
				t.Fatalf("SSE event %q: no JSON-RPC message: %v\n%s", ev.id, err, ev.data)
			}
		}
	default:
		t.Fatalf("status %d with Content-Type %q", w.status, ct)
	}
}

// closeHandler closes h, failing when its sessions do not end.
func closeHandler(t *testing.T, h *Handler) {
	t.Helper()
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Handler.Close did not return in 10 s")
	}
}

// recorder is an http.ResponseWriter and http.Flusher for a handler
// running on another goroutine: started is closed once the status is
// written, with the headers as they were then kept in header. The body
// may be read once the handler has returned.
type recorder struct {
	live    http.Header
	header  http.Header
	status  int
	body    bytes.Buffer
	once    sync.Once
	started chan struct{}
}

func newRecorder() *recorder {
	return &recorder{live: make(http.Header), started: make(chan struct{})}
}

func (w *recorder) Header() http.Header { return w.live }

func (w *recorder) WriteHeader(status int) {
	w.once.Do(func() {
		w.status, w.header = status, w.live.Clone()
		close(w.started)
	})
}

func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *recorder) Flush() {}

// FuzzEventScanner feeds arbitrary bytes to the client's SSE scanner with
// a small data limit: it must end, keep every event within the limit, and
// read the same events whether the bytes arrive at once or one by one.
func FuzzEventScanner(f *testing.F) {
	for _, seed := range []string{
		string(appendPriming(nil, "1-1", time.Second)) + string(appendEvent(nil, "1-2", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))),
		string(appendEvent(nil, "", []byte("{\r\n\"a\":\r1\n}"))),
		"\ufeffdata: bom\n\n",
		"data:a\r\ndata: b\r\rdata\n\n",
		": comment\nid: \x00\nid: 7\nevent: x\nretry: 10\nretry: -1\nretry: 99999999999\n\n",
		"data: " + strings.Repeat("x", 300) + "\ndata: y\n\n",
		strings.Repeat("z", 5000) + "\n\ndata: after\n\n",
		"data: cut off",
		"\r\n\r\n\n\r",
	} {
		f.Add([]byte(seed), uint16(64))
	}
	f.Fuzz(func(t *testing.T, stream []byte, max uint16) {
		limit := int(max % 1024)
		whole := scanEvents(t, bytes.NewReader(stream), limit)
		for _, ev := range whole {
			if len(ev.data) > limit {
				t.Fatalf("an event of %d bytes, limit %d", len(ev.data), limit)
			}
			if ev.tooLarge && ev.data != nil {
				t.Fatalf("an event over the limit kept %d bytes", len(ev.data))
			}
		}
		if bytewise := scanEvents(t, iotest.OneByteReader(bytes.NewReader(stream)), limit); !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("read at once: %+v\nread byte by byte: %+v", whole, bytewise)
		}
	})
}

// scanEvents reads every event of r with the client's scanner.
func scanEvents(t *testing.T, r io.Reader, limit int) []clientEvent {
	t.Helper()
	s := newEventScanner(r, limit)
	var out []clientEvent
	for {
		ev, err := s.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("scanning: %v", err)
		}
		out = append(out, ev)
		if len(out) > 1<<20 {
			t.Fatal("the scanner does not end")
		}
	}
}

// FuzzEventRoundTrip writes a stream as the server does (a priming event,
// then a frame with an id and the same frame without) and checks that the
// client's scanner reads it back: the ids, the retry interval, and the
// frame with each CR turned into LF (the writer splits lines at either,
// and JSON holds them only as whitespace), with the limit set to the
// frame's length exactly.
func FuzzEventRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint32(1000), []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
	f.Add(uint64(0), uint64(0), uint32(0), []byte(""))
	f.Add(uint64(1<<64-1), uint64(1<<64-1), uint32(1<<31-1), []byte("[\r\n{}\r,\n{}]"))
	f.Add(uint64(3), uint64(9), uint32(5), []byte(" data: \x00\ufeff\n\n:x"))
	f.Fuzz(func(t *testing.T, stream, seq uint64, retryMS uint32, frame []byte) {
		retry := time.Duration(retryMS%(1<<31)) * time.Millisecond
		primingID, id := eventID(stream, 1), eventID(stream, seq)
		b := appendPriming(nil, primingID, retry)
		b = appendEvent(b, id, frame)
		b = appendEvent(b, "", frame)
		got := scanEvents(t, bytes.NewReader(b), len(frame))
		want := bytes.ReplaceAll(frame, []byte("\r"), []byte("\n"))
		if len(got) != 3 {
			t.Fatalf("read %d events from %q, want 3: %+v", len(got), b, got)
		}
		if p := got[0]; p.id != primingID || !p.hasRetry || p.retry != retry || len(p.data) != 0 || p.data == nil {
			t.Fatalf("priming event %+v, want id %s, retry %v, empty data", p, primingID, retry)
		}
		for i, ev := range got[1:] {
			wantID := []string{id, ""}[i]
			if ev.id != wantID || ev.hasID != (wantID != "") || ev.kind != "message" || ev.tooLarge || !bytes.Equal(ev.data, want) {
				t.Fatalf("event %d = %+v (data %q), want id %q, data %q", i+1, ev, ev.data, wantID, want)
			}
		}
	})
}

// FuzzParseEventID checks that an id parseEventID accepts is one eventID
// writes, so that each event has exactly one id.
func FuzzParseEventID(f *testing.F) {
	for _, id := range []string{"0-0", "1-2", "18446744073709551615-1", "18446744073709551616-1", "01-2", "1-02", "-1", "1-", "1--2", "+1-2", "1-2-3", " 1-2", "٣-1"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		stream, seq, ok := parseEventID(id)
		if !ok {
			return
		}
		if again := eventID(stream, seq); again != id {
			t.Fatalf("parseEventID(%q) = %d, %d, which eventID writes %q", id, stream, seq, again)
		}
	})
}

// FuzzResume resumes a stream of one session with an arbitrary
// Last-Event-ID, while another session holds events under the same stream
// numbers: the answer is an error, or exactly the events of the first
// session's store after the id, never one of the other's.
func FuzzResume(f *testing.F) {
	for _, id := range []string{"1-0", "1-1", "2-1", "4-0", "0-0", "5-1", "2-18446744073709551615", "02-1", "x", "-"} {
		f.Add(id)
	}
	srv := newMCP(f)
	h, ts := serveEngine(f, srv, nil)
	mine, theirs := newClient(f, ts), newClient(f, ts)
	for _, c := range []*client{mine, theirs} {
		c.initialize("2025-11-25", "")
	}
	for i := range 3 {
		for _, c := range []*client{mine, theirs} {
			messages(f, c.do("POST", callBody(i+1, "echo", fmt.Sprintf(`{"text":"%s-%d"}`, c.sid, i))))
		}
	}
	f.Fuzz(func(t *testing.T, last string) {
		req := httptest.NewRequest("GET", "http://localhost/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", mine.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", last)
		if last == "" || !validHeader(req.Header) {
			return
		}
		w := newRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(w, req)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("resuming from %q: no end in 10 s", last)
		}
		if bytes.Contains(w.body.Bytes(), []byte(theirs.sid)) {
			t.Fatalf("resuming from %q in one session gave the other's events:\n%s", last, w.body.Bytes())
		}
		stream, seq, ok := parseEventID(last)
		if w.status != http.StatusOK {
			if w.status != http.StatusBadRequest && w.status != http.StatusConflict {
				t.Fatalf("resuming from %q: %d %s", last, w.status, w.body.Bytes())
			}
			return
		}
		if !ok {
			t.Fatalf("resumed from %q, which is no event id", last)
		}
		want, err := h.events.After(context.Background(), mine.sid, stream, seq)
		if err != nil {
			t.Fatal(err)
		}
		got := scanEvents(t, bytes.NewReader(w.body.Bytes()), w.body.Len())
		if len(got) != len(want) {
			t.Fatalf("resuming from %q replayed %d events, the store holds %d", last, len(got), len(want))
		}
		for i, ev := range got {
			if ev.id != want[i].ID() || !bytes.Equal(ev.data, want[i].Data) {
				t.Fatalf("resuming from %q: event %d is %s %s, want %s %s", last, i, ev.id, ev.data, want[i].ID(), want[i].Data)
			}
		}
	})
}
