package streamable

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// stuckWriter is the ResponseWriter of a client that never reads: every
// Write blocks until release is closed, then fails.
type stuckWriter struct {
	hdr     http.Header
	release chan struct{}
}

func newStuckWriter(t *testing.T) *stuckWriter {
	w := &stuckWriter{hdr: http.Header{}, release: make(chan struct{})}
	t.Cleanup(w.unstick)
	return w
}

func (w *stuckWriter) Header() http.Header { return w.hdr }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}
func (w *stuckWriter) Write([]byte) (int, error) {
	<-w.release
	return 0, errors.New("the client has gone")
}

func (w *stuckWriter) unstick() {
	select {
	case <-w.release:
	default:
		close(w.release)
	}
}

// flood is a tool that sends 1 KB progress notifications until its ctx
// ends; sent counts those that went out, and ended gets ctx's error.
type flood struct {
	sent  atomic.Int64
	ended chan error
}

func addFlood(t *testing.T, eng *server.Server) *flood {
	f := &flood{ended: make(chan error, 1)}
	msg := strings.Repeat("x", 1024)
	addTool(t, eng, "flood", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var err error
		for i := 0; err == nil; i++ {
			if err = server.Progress(ctx, float64(i), 0, msg); err == nil {
				err = ctx.Err()
				f.sent.Add(1)
			}
		}
		f.ended <- err // why it stopped: its ctx, or a send that failed
		return nil, err
	})
	return f
}

// waitEnded returns what ended the flood; the timeout only guards
// against a hang.
func (f *flood) waitEnded(t *testing.T) error {
	t.Helper()
	select {
	case err := <-f.ended:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the flood handler is still blocked")
		return nil
	}
}

// blockedStream waits until a writer waits for room on one of the
// session's streams, and returns that stream and how much it holds.
func blockedStream(t *testing.T, s *session) (st *stream, buffered int) {
	t.Helper()
	eventually(t, "a writer waiting for room", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, st = range s.streams {
			if st.room != nil { // made when a writer must wait
				buffered = st.buffered
				return true
			}
		}
		return false
	})
	return st, buffered
}

// TestSlowClientHoldsHandlerBack floods a client that never reads its
// SSE stream: the handler must wait with at most MaxStreamBuffer bytes
// held for it, until its request is cancelled or its session ends.
func TestSlowClientHoldsHandlerBack(t *testing.T) {
	const bound = 64 << 10
	for _, end := range []string{"cancel", "delete"} {
		t.Run(end, func(t *testing.T) {
			eng := newMCP(t)
			f := addFlood(t, eng)
			h, ts := serveEngine(t, eng, &HandlerOptions{MaxStreamBuffer: bound})
			c := newClient(t, ts)
			c.initialize("2025-06-18", "")

			w := newStuckWriter(t)
			req := c.request(context.Background(), "POST", callBody(1, "flood", ""))
			req.Host = "localhost"
			served := make(chan struct{})
			go func() {
				defer close(served)
				h.ServeHTTP(w, req)
			}()
			s := h.byIDForTest(c.sid)
			_, buffered := blockedStream(t, s)
			if buffered > bound {
				t.Fatalf("the stream holds %d bytes, over its bound of %d", buffered, bound)
			}
			if sent := f.sent.Load(); sent*1024 > bound {
				t.Fatalf("the handler sent %d KB to a client that read nothing, over the %d KB bound", sent, bound>>10)
			}

			switch end {
			case "cancel":
				c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
				if err := f.waitEnded(t); err == nil {
					t.Fatal("the handler's ctx did not end with its request")
				}
			case "delete":
				// The wait for room ends with the session.
				c.status("DELETE", "")
				if err := f.waitEnded(t); err == nil {
					t.Error("the flood ended without an error after DELETE")
				}
			}
			w.unstick()
			<-served
		})
	}
}

// TestNonReadingTCPClient is TestSlowClientHoldsHandlerBack over a real
// connection whose client never reads the response: once the socket's
// buffers are full, the handler waits and the stream stays bounded.
func TestNonReadingTCPClient(t *testing.T) {
	const bound = 64 << 10
	eng := newMCP(t)
	f := addFlood(t, eng)
	h, ts := serveEngine(t, eng, &HandlerOptions{MaxStreamBuffer: bound})
	c := newClient(t, ts)
	c.initialize("2025-06-18", "")

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10) // fill up sooner
	}
	req := c.request(context.Background(), "POST", callBody(1, "flood", ""))
	bw := bufio.NewWriter(conn)
	if err := req.Write(bw); err != nil || bw.Flush() != nil {
		t.Fatal(err)
	}
	if _, buffered := blockedStream(t, h.byIDForTest(c.sid)); buffered > bound {
		t.Fatalf("the stream holds %d bytes, over its bound of %d", buffered, bound)
	}
	c.status("POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if err := f.waitEnded(t); err == nil {
		t.Fatal("the handler's notification succeeded after its request was cancelled")
	}
}

var _ http.Flusher = (*stuckWriter)(nil)
