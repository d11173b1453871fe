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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// newMCP returns an engine with the tools the tests call:
//   - echo answers its text;
//   - chatty reports progress, logs, asks the user for a name, and answers
//     with what the user said;
//   - who answers with the X-Test header and identity its ctx shows;
//   - wait blocks until its ctx ends.
func newMCP(t testing.TB) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	addEcho(t, s)
	question := nameQuestion(t)
	addTool(t, s, "chatty", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := server.Progress(ctx, 1, 2, "half"); err != nil {
			return nil, err
		}
		if err := server.Log(ctx, mcp.LoggingLevelWarning, "chatty", "careful"); err != nil {
			return nil, err
		}
		r, err := server.Elicit(ctx, question)
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return textResult(string(r.Action) + ":" + string(name)), nil
	})
	addTool(t, s, "who", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r := HTTPRequestFromContext(ctx)
		if r == nil {
			return nil, errors.New("no HTTP request in ctx")
		}
		return textResult(fmt.Sprintf("%s|%v|%t", r.Header.Get("X-Test"), IdentityFromContext(ctx), r.RemoteAddr != "")), nil
	})
	addTool(t, s, "wait", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return s
}

func addTool(t testing.TB, s *server.Server, name string, h server.ToolHandler) {
	t.Helper()
	addToolSchema(t, s, name, `{"type":"object"}`, h)
}

// addEcho registers the tool echo, which answers with its text argument.
func addEcho(t testing.TB, s *server.Server) {
	t.Helper()
	addTool(t, s, "echo", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Text string }
		json.Unmarshal(p.Arguments, &in)
		return textResult(in.Text), nil
	})
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
}

// serve starts a Handler over the test engine on a loopback test server.
func serve(t testing.TB, opts *HandlerOptions) (*Handler, *httptest.Server) {
	t.Helper()
	return serveEngine(t, newMCP(t), opts)
}

// client speaks raw HTTP to a test server.
type client struct {
	t       testing.TB
	url     string
	sid     string // sent as Mcp-Session-Id when set
	version string // sent as MCP-Protocol-Version when set
	hc      *http.Client
}

func newClient(t testing.TB, ts *httptest.Server) *client {
	return &client{t: t, url: ts.URL, hc: &http.Client{Timeout: 10 * time.Second}}
}

// request builds a request with the headers a well-behaved client sends;
// hdr holds name/value pairs that replace them, an empty value removing
// the header.
func (c *client) request(ctx context.Context, method, body string, hdr ...string) *http.Request {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		switch {
		case hdr[i] == "Host":
			req.Host = hdr[i+1]
		case hdr[i+1] == "":
			req.Header.Del(hdr[i])
		default:
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	return req
}

func (c *client) do(method, body string, hdr ...string) *http.Response {
	c.t.Helper()
	resp, err := c.hc.Do(c.request(context.Background(), method, body, hdr...))
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// status sends a request and returns its status and body.
func (c *client) status(method, body string, hdr ...string) (int, string) {
	c.t.Helper()
	resp := c.do(method, body, hdr...)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func initBody(version, caps string) string {
	if caps == "" {
		caps = "{}"
	}
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"c","version":"1"}}}`
}

// initialize starts a session speaking version and sends
// notifications/initialized; the client then sends the session id and
// version on every request.
func (c *client) initialize(version, caps string) {
	c.t.Helper()
	resp := c.do("POST", initBody(version, caps))
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("initialize: %s %s", resp.Status, b)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if c.sid == "" {
		c.t.Fatal("initialize: no Mcp-Session-Id")
	}
	msgs := messages(c.t, resp)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"protocolVersion":"`+version+`"`) {
		c.t.Fatalf("initialize answered %q", msgs)
	}
	c.version = version
	if code, body := c.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted || body != "" {
		c.t.Fatalf("notifications/initialized: %d %q", code, body)
	}
}

func callBody(id int, tool, args string) string {
	if args == "" {
		args = "{}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"progressToken":"p%d"}}}`, id, tool, args, id)
}

// event is one SSE event as a client reads it.
type event struct {
	id, data, retry string
	hasID           bool
}

type sseReader struct{ r *bufio.Reader }

func newSSE(resp *http.Response) *sseReader { return &sseReader{bufio.NewReader(resp.Body)} }

// next reads the next event; io.EOF at the end of the stream.
func (s *sseReader) next() (event, error) {
	var ev event
	var data []string
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && seen {
				return ev, io.ErrUnexpectedEOF
			}
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !seen {
				continue
			}
			ev.data = strings.Join(data, "\n")
			return ev, nil
		}
		seen = true
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			ev.id, ev.hasID = value, true
		case "data":
			data = append(data, value)
		case "retry":
			ev.retry = value
		}
	}
}

// events reads a whole SSE response.
func events(t testing.TB, resp *http.Response) []event {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("Content-Type %q, want text/event-stream (%s %s)", ct, resp.Status, b)
	}
	s := newSSE(resp)
	var out []event
	for {
		ev, err := s.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading SSE: %v", err)
		}
		out = append(out, ev)
	}
}

// messages returns the JSON-RPC messages of an SSE or JSON response,
// leaving out priming events.
func messages(t testing.TB, resp *http.Response) []string {
	t.Helper()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return []string{string(b)}
	}
	var out []string
	for _, ev := range events(t, resp) {
		if ev.data != "" {
			out = append(out, ev.data)
		}
	}
	return out
}

// method returns the method of a JSON-RPC message, or "" for a response.
func method(t testing.TB, msg string) string {
	t.Helper()
	m, err := jsonrpc.DecodeMessage([]byte(msg))
	if err != nil {
		t.Fatalf("bad message %s: %v", msg, err)
	}
	return m.Method
}

// eventually retries cond until it holds or five seconds pass.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func srvOf(h *Handler) *server.Server { return h.srv.(*server.Server) }

func (h *Handler) byIDForTest(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// requestIDsForTest lists the ids of the client requests the session
// still waits to answer, sorted.
func (s *session) requestIDsForTest() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.requests {
		ids = append(ids, id.String())
	}
	slices.Sort(ids)
	return ids
}
