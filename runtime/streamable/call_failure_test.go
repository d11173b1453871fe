package streamable

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tests of how the 2026-07-28 POST path fails: a panic below it, and
// Close while requests run.

// panicAfter is a middleware that panics once a tools/call has been
// served, as a buggy middleware would: after the handler's notifications,
// before the answer.
func panicAfter(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		msg, err := next(ctx, req)
		if req.Method == mcp.MethodCallTool {
			panic("middleware bug")
		}
		return msg, err
	}
}

// serveQuiet is serve with net/http's own log discarded: the panics these
// tests cause would fill it.
func serveQuiet(t testing.TB, srv *server.Server, opts *HandlerOptions) (*Handler, *httptest.Server) {
	t.Helper()
	return serveLogged(t, srv, opts, log.New(io.Discard, "", 0))
}

// TestCallHandlerPanic checks that a panic while serving a 2026-07-28
// request is answered with -32603, as it is in a legacy session (where
// jsonrpc.Conn recovers it), whether or not the answer had become an SSE
// stream.
func TestCallHandlerPanic(t *testing.T) {
	s := newMCP(t)
	s.Use(panicAfter)
	_, ts := serveQuiet(t, s, &HandlerOptions{KeepAlive: -1})
	c := newClient(t, ts)
	t.Run("JSON answer", func(t *testing.T) {
		resp, err := c.hc.Do(c.request(context.Background(), "POST", call26("1", "echo", "", meta26("")), hdr26("tools/call", "echo")...))
		if err != nil {
			t.Fatalf("the client got no answer (%v), want a -32603 error response", err)
		}
		r := readReply(t, resp)
		if r.resp.Error == nil || r.resp.Error.Code != jsonrpc.CodeInternalError || string(r.resp.ID) != "1" {
			t.Fatalf("answered %d %q, want a -32603 error for id 1", r.status, r.raw)
		}
	})
	t.Run("SSE answer", func(t *testing.T) {
		resp, err := c.hc.Do(c.request(context.Background(), "POST", call26("2", "chatty", "", meta26(`{"elicitation":{}}`, `"progressToken":"p"`)), hdr26("tools/call", "chatty")...))
		if err != nil {
			t.Fatalf("the client got no answer (%v)", err)
		}
		defer resp.Body.Close()
		s := newSSE(resp)
		var data []string
		for {
			ev, err := s.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the stream broke off after %q (%v), want it to end with a -32603 error response", data, err)
			}
			data = append(data, ev.data)
		}
		if len(data) != 2 || method(t, data[0]) != mcp.MethodProgressNotification || !strings.Contains(data[1], `"code":-32603`) || !strings.Contains(data[1], `"id":2`) {
			t.Fatalf("the stream carried %q, want the progress and a -32603 error for id 2", data)
		}
	})
}

const panicChildEnv = "MCPGEN_STREAMABLE_PANIC_CHILD"

// TestCallPanicOnStreamDoesNotCrash runs, in a process of its own, a
// 2026-07-28 request whose answer became an SSE stream with keep-alives
// and whose middleware then panics: the process must survive it. The
// keep-alive goroutine must not outlive the response it writes to.
func TestCallPanicOnStreamDoesNotCrash(t *testing.T) {
	if os.Getenv(panicChildEnv) == "1" {
		panicOnStream(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallPanicOnStreamDoesNotCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), panicChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the serving process died (%v):\n%s", err, crashExcerpt(string(out)))
	}
}

// panicOnStream is the child's part of TestCallPanicOnStreamDoesNotCrash.
func panicOnStream(t *testing.T) {
	s := newMCP(t)
	s.Use(panicAfter)
	_, ts := serveQuiet(t, s, &HandlerOptions{KeepAlive: time.Millisecond})
	c := newClient(t, ts)
	resp, err := c.hc.Do(c.request(context.Background(), "POST", call26("1", "chatty", "", meta26(`{"elicitation":{}}`, `"progressToken":"p"`)), hdr26("tools/call", "chatty")...))
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// Give a keep-alive goroutine left behind the ticks it would write on:
	// a window for the failure to show, not a measure of speed.
	time.Sleep(100 * time.Millisecond)
}

// TestCloseWaitsForCalls checks that Handler.Close, which ends the
// 2026-07-28 requests in progress, returns only once their handlers have,
// as it does for the sessions (stateless ones included) it ends.
func TestCloseWaitsForCalls(t *testing.T) {
	h, ts := serve(t, nil)
	started := make(chan struct{})
	var returned atomic.Bool
	addTool(t, srvOf(h), "slow", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // cleanup that takes a while
		returned.Store(true)
		return nil, ctx.Err()
	})
	c := newClient(t, ts)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		resp, err := c.hc.Do(c.request(context.Background(), "POST", call26("1", "slow", "", meta26("")), hdr26("tools/call", "slow")...))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	h.Close()
	if !returned.Load() {
		t.Error("Close returned while a 2026-07-28 request's handler was still running")
	}
	<-answered
	if code, _ := c.status("POST", call26("2", "echo", "", meta26("")), hdr26("tools/call", "echo")...); code != http.StatusServiceUnavailable {
		t.Fatalf("a POST after Close got %d, want 503", code)
	}
}

// crashExcerpt is the part of a dead test process's output that says why:
// the panic and the goroutine it struck, or else the first report.
func crashExcerpt(out string) string {
	lines := strings.Split(out, "\n")
	from := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") {
			from = i
			break
		}
	}
	return strings.Join(lines[from:min(len(lines), from+24)], "\n")
}
