package echo

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// loopback answers each echo request written to it with a canned result
// carrying the request's id, without allocating: complete and naming the
// server when modern.
type loopback struct {
	out    bytes.Buffer
	modern bool
}

func (l *loopback) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		i := bytes.LastIndex(line, []byte(`"id":`))
		id := bytes.TrimRight(line[i+len(`"id":`):], "}\n")
		l.out.WriteString(`{"jsonrpc":"2.0","id":`)
		l.out.Write(id)
		l.out.WriteString(`,"result":{"content":[{"type":"text","text":"` + Text + `"}]`)
		if l.modern {
			l.out.WriteString(`,"resultType":"complete","_meta":{"` + metaServerInfo + `":{"name":"l","version":"1"}}`)
		}
		l.out.WriteString("}}\n")
	}
	return len(p), nil
}

func (l *loopback) Read(p []byte) (int, error) {
	if l.out.Len() == 0 {
		return 0, io.EOF
	}
	return l.out.Read(p)
}

// TestEchoAllocs pins the claim the in-process table rests on: the load
// loop itself allocates nothing, in either era, so allocs/op are the
// server's.
func TestEchoAllocs(t *testing.T) {
	for _, era := range Eras {
		l := &loopback{modern: era == Modern}
		l.out.Grow(64 << 10)
		c := NewEraClient(l, l, era)
		if n, err := c.Echo(100, 1, time.Time{}); err != nil || n != 100 {
			t.Fatalf("%v: Echo = %d, %v", era, n, err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := c.Echo(1, 1, time.Time{}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: Echo allocates %v times per call, want 0", era, allocs)
		}
	}
}

// TestEchoChecksModernResults checks that a 2026-07-28 client refuses a
// result that is not complete or does not name the server.
func TestEchoChecksModernResults(t *testing.T) {
	l := &loopback{} // answers as a legacy server would
	c := NewEraClient(l, l, Modern)
	if _, err := c.Echo(1, 1, time.Time{}); err == nil || !strings.Contains(err.Error(), "resultType") {
		t.Errorf("Echo of a result without resultType: %v, want an error naming resultType", err)
	}
}

// echoHandler answers every POST with an echo result carrying the
// request's id, complete when modern, writing no headers so that it
// allocates nothing.
type echoHandler struct {
	buf    []byte
	out    []byte
	modern bool
}

func (h *echoHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.buf, _ = readAll(h.buf[:0], r.Body)
	i := bytes.LastIndex(h.buf, []byte(`"id":`))
	h.out = append(h.out[:0], `{"jsonrpc":"2.0","id":`...)
	h.out = append(h.out, bytes.TrimRight(h.buf[i+len(`"id":`):], "}")...)
	h.out = append(h.out, `,"result":{"content":[{"type":"text","text":"`+Text+`"}]`...)
	if h.modern {
		h.out = append(h.out, `,"resultType":"complete","_meta":{"`+metaServerInfo+`":{"name":"h","version":"1"}}`...)
	}
	h.out = append(h.out, "}}"...)
	w.Write(h.out)
}

// TestDirectAllocs pins the claim BenchmarkHandler rests on: an
// HTTPSession over Direct allocates nothing per call, in either era, so
// allocs/op are the handler's.
func TestDirectAllocs(t *testing.T) {
	for _, era := range Eras {
		s, err := NewEraHTTPSession(NewDirect(&echoHandler{modern: era == Modern}), "http://localhost/mcp", era, "c")
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			if err := s.Echo(); err != nil {
				t.Fatalf("%v: %v", era, err)
			}
		}
		allocs := testing.AllocsPerRun(100, func() {
			if err := s.Echo(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: Echo over Direct allocates %v times per call, want 0", era, allocs)
		}
	}
}
