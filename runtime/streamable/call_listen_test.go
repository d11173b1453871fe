package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Tests of subscriptions/listen over HTTP: a 2026-07-28 request whose
// answer is a long-lived SSE stream of the changes its client opted in to.

// listenStream is an open subscriptions/listen request.
type listenStream struct {
	resp   *http.Response
	sse    *sseReader
	cancel context.CancelFunc
}

// openListen posts a subscriptions/listen and returns its stream once
// the acknowledgement, which must come first, has been read.
func openListen(t testing.TB, c *client, id, filter string, hdr ...string) (*listenStream, rpcMessage) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.hc.Do(c.request(ctx, "POST", listen26(id, filter), append(hdr26("subscriptions/listen", ""), hdr...)...))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ls := &listenStream{resp: resp, sse: newSSE(resp), cancel: cancel}
	t.Cleanup(ls.close)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("subscriptions/listen: %s, Content-Type %q, X-Accel-Buffering %q: %s", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("X-Accel-Buffering"), b)
	}
	ack := ls.next(t)
	if ack.Method != mcp.MethodSubscriptionsAcknowledgedNotification {
		t.Fatalf("the first message is %s %s, want the acknowledgement", ack.Method, ack.Result)
	}
	return ls, ack
}

func (ls *listenStream) close() {
	ls.cancel()
	ls.resp.Body.Close()
}

// next returns the next message on the stream, passing over comments.
func (ls *listenStream) next(t testing.TB) rpcMessage {
	t.Helper()
	for {
		ev, err := ls.sse.next()
		if err != nil {
			t.Fatalf("the listen stream ended: %v", err)
		}
		if ev.data == "" {
			continue
		}
		var m rpcMessage
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			t.Fatalf("not JSON: %s", ev.data)
		}
		if m.Method != "" && m.ID != nil {
			t.Fatalf("the server sent a request on the listen stream: %s", ev.data)
		}
		return m
	}
}

// subscriptionID returns the _meta subscriptionId of a notification, as
// JSON.
func subscriptionID(t testing.TB, m rpcMessage) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	id, ok := p.Meta["io.modelcontextprotocol/subscriptionId"]
	if !ok {
		t.Fatalf("%s carries no subscriptionId: %s", m.Method, m.Params)
	}
	return string(id)
}

// filterOf returns the notifications filter of an acknowledgement.
func filterOf(t testing.TB, ack rpcMessage) map[string]any {
	t.Helper()
	var p struct {
		Notifications map[string]any `json:"notifications"`
	}
	if err := json.Unmarshal(ack.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.Notifications
}

func TestListenDeliversChanges(t *testing.T) {
	h, ts := serveEngine(t, newMCP26(t, nil), nil)
	srv := srvOf(h)
	c := newClient(t, ts)
	ls, ack := openListen(t, c, `"sub-1"`, `{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["file:///b.txt","file:///a.txt","file:///a.txt"]}`)
	if id := subscriptionID(t, ack); id != `"sub-1"` {
		t.Fatalf("the acknowledgement is for subscription %s, want the request id", id)
	}
	want := map[string]any{"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": []any{"file:///a.txt", "file:///b.txt"}}
	if got := filterOf(t, ack); !reflect.DeepEqual(got, want) {
		t.Fatalf("acknowledged %v, want %v", got, want)
	}
	var typed mcp.SubscriptionsAcknowledgedNotification
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": ack.Method, "params": ack.Params})
	if err := typed.UnmarshalJSON(raw); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
		t.Fatalf("not a valid acknowledgement: %s (%v)", raw, err)
	}

	addTool(t, srv, "late", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(""), nil
	})
	if m := ls.next(t); m.Method != mcp.MethodToolListChangedNotification || subscriptionID(t, m) != `"sub-1"` {
		t.Fatalf("after AddTool: %s %s", m.Method, m.Params)
	}
	srv.RemoveTool("late")
	if m := ls.next(t); m.Method != mcp.MethodToolListChangedNotification || subscriptionID(t, m) != `"sub-1"` {
		t.Fatalf("after RemoveTool: %s %s", m.Method, m.Params)
	}
	// A URI nobody subscribed to is not sent; the next message is the
	// update of one that was.
	srv.ResourceUpdated(context.Background(), "file:///c.txt")
	srv.ResourceUpdated(context.Background(), "file:///b.txt")
	m := ls.next(t)
	var upd mcp.ResourceUpdatedNotificationParams
	if err := upd.UnmarshalJSON(m.Params); err != nil || m.Method != mcp.MethodResourceUpdatedNotification || upd.URI != "file:///b.txt" || subscriptionID(t, m) != `"sub-1"` {
		t.Fatalf("after ResourceUpdated: %s %s (%v)", m.Method, m.Params, err)
	}
	if err := srv.AddPrompt(mcp.Prompt{Name: "late"}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if m := ls.next(t); m.Method != mcp.MethodPromptListChangedNotification || subscriptionID(t, m) != `"sub-1"` {
		t.Fatalf("after AddPrompt: %s %s", m.Method, m.Params)
	}
	// Nothing else was queued: the next change is the next message.
	addTool(t, srv, "later", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(""), nil
	})
	if m := ls.next(t); m.Method != mcp.MethodToolListChangedNotification {
		t.Fatalf("after a second AddTool: %s %s", m.Method, m.Params)
	}
}

// TestListenFilter checks that a subscription gets only what it asked
// for and the server offers.
func TestListenFilter(t *testing.T) {
	t.Run("what the server does not offer", func(t *testing.T) {
		_, ts := serve(t, nil) // tools only: no prompts, no resources
		_, ack := openListen(t, newClient(t, ts), "5", `{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a.txt"]}`)
		if id := subscriptionID(t, ack); id != "5" {
			t.Fatalf("subscriptionId %s, want the request id 5", id)
		}
		if got, want := filterOf(t, ack), map[string]any{"toolsListChanged": true}; !reflect.DeepEqual(got, want) {
			t.Fatalf("acknowledged %v, want %v", got, want)
		}
	})
	t.Run("no toolsListChanged", func(t *testing.T) {
		h, ts := serveEngine(t, newMCP26(t, nil), nil)
		srv := srvOf(h)
		ls, ack := openListen(t, newClient(t, ts), "6", `{"resourceSubscriptions":["file:///a.txt"]}`)
		if got, want := filterOf(t, ack), map[string]any{"resourceSubscriptions": []any{"file:///a.txt"}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("acknowledged %v, want %v", got, want)
		}
		// Were the tool change sent, it would come first.
		addTool(t, srv, "late", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return textResult(""), nil
		})
		srv.RemoveResource("file:///b.txt")
		srv.ResourceUpdated(context.Background(), "file:///a.txt")
		if m := ls.next(t); m.Method != mcp.MethodResourceUpdatedNotification {
			t.Fatalf("got %s %s, want only the resource update", m.Method, m.Params)
		}
	})
}

// TestListenClientGone checks that a subscription whose client closed the
// stream ends: its handler returns, and the engine's changes go on
// without it.
func TestListenClientGone(t *testing.T) {
	h, ts := serveEngine(t, newMCP26(t, nil), nil)
	srv := srvOf(h)
	o := observe(srv, "subscriptions/listen")
	c := newClient(t, ts)
	ls, _ := openListen(t, c, "1", `{"toolsListChanged":true,"resourceSubscriptions":["file:///a.txt"]}`)
	<-o.started
	ls.close()
	select {
	case cause := <-o.ended:
		if !errors.Is(cause, context.Canceled) {
			t.Fatalf("the listen handler ended with ctx cause %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the listen handler did not end when its client went away")
	}
	var late mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"late","inputSchema":{"type":"object"}}`), &late); err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{})
	go func() {
		defer close(changed)
		for range 3 {
			if err := srv.AddTool(late, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				return textResult(""), nil
			}); err != nil {
				panic(err)
			}
			srv.ResourceUpdated(context.Background(), "file:///a.txt")
		}
	}()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("AddTool and ResourceUpdated block after the subscriber went away")
	}
	// A new subscription hears the next change, and only it.
	ls2, _ := openListen(t, c, "2", `{"toolsListChanged":true}`)
	srv.RemoveTool("late")
	if m := ls2.next(t); m.Method != mcp.MethodToolListChangedNotification || subscriptionID(t, m) != "2" {
		t.Fatalf("the new subscription got %s %s", m.Method, m.Params)
	}
	if got := c.send(call26("3", "echo", `{"text":"on"}`, meta26("")), hdr26("tools/call", "echo")...).text(t, "3"); got != "on" {
		t.Fatalf("echo answered %q", got)
	}
}

// TestListenEndsOnClose checks that Handler.Close ends an open
// subscription with its graceful completion result, then the stream.
func TestListenEndsOnClose(t *testing.T) {
	h, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	ls, _ := openListen(t, c, `"listen-1"`, `{"toolsListChanged":true}`)
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	m := ls.next(t)
	if m.Method != "" || m.Error != nil || string(m.ID) != `"listen-1"` {
		t.Fatalf("after Close the stream carried %s %s %v, want the response", m.Method, m.Result, m.Error)
	}
	var res struct {
		ResultType string                     `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ResultType != "complete" || string(res.Meta["io.modelcontextprotocol/subscriptionId"]) != `"listen-1"` {
		t.Fatalf("the completion result is %s (%v)", m.Result, err)
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "listen-1", "result": m.Result})
	var typed mcp.SubscriptionsListenResultResponse
	if err := typed.UnmarshalJSON(raw); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
		t.Fatalf("not a valid SubscriptionsListenResultResponse: %s (%v)", raw, err)
	}
	if _, err := ls.sse.next(); err != io.EOF {
		t.Fatalf("the stream did not end after the response: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if code, _ := c.status("POST", call26("2", "echo", "", meta26("")), hdr26("tools/call", "echo")...); code != http.StatusServiceUnavailable {
		t.Fatalf("a POST after Close got %d, want 503", code)
	}
}

// TestListenKeepAlive checks that a quiet listen stream gets comment
// lines.
func TestListenKeepAlive(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{KeepAlive: 20 * time.Millisecond})
	c := newClient(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.hc.Do(c.request(ctx, "POST", listen26("1", `{"toolsListChanged":true}`), hdr26("subscriptions/listen", "")...))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var lines []string
	for comments := 0; comments < 2; {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %q: %v", lines, err)
		}
		line = strings.TrimRight(line, "\r\n")
		lines = append(lines, line)
		if strings.HasPrefix(line, ":") {
			comments++
		}
	}
	var data []string
	for _, l := range lines {
		if strings.HasPrefix(l, ":") && len(data) == 0 {
			t.Fatalf("a comment came before the acknowledgement: %q", lines)
		}
		if strings.HasPrefix(l, "data:") {
			data = append(data, l)
		}
	}
	if len(data) != 1 || !strings.Contains(data[0], mcp.MethodSubscriptionsAcknowledgedNotification) {
		t.Fatalf("a quiet stream carried %q, want the acknowledgement and comments only", lines)
	}
}
