package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The client in the 2026-07-28 era, against mcpgen's own server: over an
// in-memory stream and over Streamable HTTP.

// engine is a server with the tools the tests call, counting the requests
// it gets by method.
type engine struct {
	*server.Server
	mu    sync.Mutex
	calls map[string]int
}

func (e *engine) count(method string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[method]
}

func newEngine(t *testing.T, opts *server.Options) *engine {
	t.Helper()
	e := &engine{Server: server.New(mcp.Implementation{Name: "engine", Version: "1"}, opts), calls: map[string]int{}}
	e.Use(func(next server.HandlerFunc) server.HandlerFunc {
		return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
			e.mu.Lock()
			e.calls[req.Method]++
			e.mu.Unlock()
			return next(ctx, req)
		}
	})
	tool := func(def string, h server.ToolHandler, opts ...server.ToolOption) {
		var d mcp.Tool
		if err := json.Unmarshal([]byte(def), &d); err != nil {
			t.Fatal(err)
		}
		if err := e.AddTool(d, h, append([]server.ToolOption{rawschema.Validate()}, opts...)...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
	}
	tool(`{"name":"echo","inputSchema":{"type":"object"}}`, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := server.Progress(ctx, 1, 2, "half"); err != nil {
			return nil, err
		}
		return text(string(p.Arguments) + " " + string(server.ProtocolVersion(ctx))), nil
	})
	tool(`{"name":"ask","inputSchema":{"type":"object"}}`, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		q := &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "name?", RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}},
		}}}
		r, err := server.Elicit(ctx, q, server.InputKey("name"))
		if err != nil {
			return nil, err
		}
		roots, err := server.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return text(string(name) + "@" + roots.Roots[0].URI), nil
	})
	tool(`{"name":"region","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}}`, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text(streamable.HTTPRequestFromContext(ctx).Header.Get("Mcp-Param-Region")), nil
	})
	tool(`{"name":"shaped","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r := text("shaped")
		r.StructuredContent = p.Arguments
		return r, nil
	}, server.WithOutputValidator(func([]byte) error { return nil })) // a server that does not check its own output: the client does
	return e
}

// serveStream serves e over an in-memory pipe, returning the client end.
func serveStream(t *testing.T, e *engine) jsonrpc.Transport {
	t.Helper()
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx, a) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return b
}

func newModernClient(opts *client.Options) *client.Client {
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Elicit = func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{"name": {Value: mcp.ElicitResultContentValueString("Ada")}}}, nil
	}
	opts.Roots = func(ctx context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///r"}}, nil
	}
	return client.New(mcp.Implementation{Name: "modern-test", Version: "1"}, opts)
}

func callText(t *testing.T, sess *client.Session, name, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	r, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: name, Arguments: raw})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.IsError {
		t.Fatalf("%s: isError %+v", name, r.Content)
	}
	return r.Content[0].Value.(*mcp.TextContent).Text
}

func TestModernOverStream(t *testing.T) {
	e := newEngine(t, nil)
	var progress atomic.Int32
	c := newModernClient(&client.Options{OnProgress: func(*mcp.ProgressNotificationParams) { progress.Add(1) }})
	sess, err := c.Connect(context.Background(), serveStream(t, e))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.Era() != mcp.EraModern || sess.ProtocolVersion() != mcp.Version20260728 || sess.InitializeResult() != nil {
		t.Fatalf("era %v version %s", sess.Era(), sess.ProtocolVersion())
	}
	if d := sess.DiscoverResult(); d == nil || d.Capabilities.Tools == nil || sess.ServerCapabilities().Tools == nil {
		t.Fatalf("discover %+v", d)
	}
	if got := callText(t, sess, "echo", `{"x":1}`); got != `{"x":1} 2026-07-28` {
		t.Errorf("echo: %q", got)
	}
	// Progress reaches OnProgress with no RequestTimeout set.
	deadline := time.Now().Add(5 * time.Second)
	for progress.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if progress.Load() != 1 {
		t.Errorf("%d progress notifications", progress.Load())
	}
	// Two rounds of input, answered through the handlers, in one call.
	if got := callText(t, sess, "ask", ""); got != "Ada@file:///r" {
		t.Errorf("ask: %q", got)
	}
	if e.count(mcp.MethodInitialize) != 0 || e.count(mcp.MethodCallTool) != 4 {
		t.Errorf("requests: %v", e.calls)
	}
}

func TestManualInput(t *testing.T) {
	e := newEngine(t, nil)
	sess, err := newModernClient(nil).Connect(context.Background(), serveStream(t, e))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := client.ManualInput(context.Background())
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "ask"})
	var ir *client.InputRequiredError
	if !errors.As(err, &ir) || ir.Result.InputRequests["name"].Value == nil || ir.Result.RequestState == "" {
		t.Fatalf("CallTool with ManualInput: %v", err)
	}
	// The caller answers and retries itself.
	resp := map[string]mcp.InputResponse{}
	if err := json.Unmarshal([]byte(`{"name":{"action":"accept","content":{"name":"Bo"}}}`), &resp); err != nil {
		t.Fatal(err)
	}
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "ask", InputResponses: resp, RequestState: ir.Result.RequestState})
	if !errors.As(err, &ir) || ir.Result.InputRequests["name"].Value != nil || len(ir.Result.InputRequests) != 1 {
		t.Fatalf("round 2 should ask for the roots only: %v", err)
	}
}

func TestFallbackToLegacyAndPins(t *testing.T) {
	e := newEngine(t, nil)
	// Pinned to the legacy era: initialize, no probe.
	sess, err := newModernClient(&client.Options{Era: mcp.EraLegacy}).Connect(context.Background(), serveStream(t, e))
	if err != nil {
		t.Fatal(err)
	}
	if sess.Era() != mcp.EraLegacy || e.count(mcp.MethodDiscover) != 0 || e.count(mcp.MethodInitialize) != 0 {
		t.Errorf("legacy pin: era %v, requests %v", sess.Era(), e.calls)
	}
	// The same tools answer, legacy-style.
	if got := callText(t, sess, "ask", ""); got != "Ada@file:///r" {
		t.Errorf("ask in a legacy session: %q", got)
	}
	sess.Close()
}

func TestModernOverHTTP(t *testing.T) {
	e := newEngine(t, nil)
	h := streamable.NewHandler(e, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	c := newModernClient(nil)
	connect := func() *client.Session {
		t.Helper()
		sess, err := c.Connect(context.Background(), streamable.NewClientTransport(ts.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	sess := connect()
	if sess.Era() != mcp.EraModern {
		t.Fatalf("era %v", sess.Era())
	}
	if got := callText(t, sess, "ask", ""); got != "Ada@file:///r" {
		t.Errorf("ask over HTTP: %q", got)
	}
	// The tool's x-mcp-header parameter goes out as a header, once the
	// Session has listed the tool.
	if _, err := sess.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := callText(t, sess, "region", `{"region":"eu-west-1"}`); got != "eu-west-1" {
		t.Errorf("Mcp-Param-Region: %q", got)
	}
	if got := callText(t, sess, "region", `{"region":"Zürich"}`); got != "=?base64?WsO8cmljaA==?=" {
		t.Errorf("Mcp-Param-Region for a non-ASCII value: %q", got)
	}
	// Structured output is checked against the tool's outputSchema.
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "shaped", Arguments: json.RawMessage(`{"n":1}`)}); err != nil {
		t.Errorf("shaped, matching: %v", err)
	}
	_, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "shaped", Arguments: json.RawMessage(`{"n":"one"}`)})
	var oe *client.OutputError
	if !errors.As(err, &oe) || oe.Tool != "shaped" {
		t.Errorf("shaped, not matching: %v", err)
	}
	sess.Close()
	// The era is remembered: the next Connect skips the probe.
	probes := e.count(mcp.MethodDiscover)
	sess = connect()
	defer sess.Close()
	if e.count(mcp.MethodDiscover) != probes || sess.Era() != mcp.EraModern {
		t.Errorf("a second Connect probed again: %d -> %d", probes, e.count(mcp.MethodDiscover))
	}
}

func TestInvalidHeaderToolDroppedOverHTTPOnly(t *testing.T) {
	e := newEngine(t, nil)
	// A tool the server would refuse to register: put it past AddTool's
	// checks with a middleware that rewrites the list, as a foreign
	// server would send it.
	e.Use(func(next server.HandlerFunc) server.HandlerFunc {
		return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
			m, err := next(ctx, req)
			if r, ok := m.(*mcp.ListToolsResult); ok && err == nil {
				var bad mcp.Tool
				json.Unmarshal([]byte(`{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}`), &bad)
				out := *r
				out.Tools = append(append([]mcp.Tool(nil), r.Tools...), bad)
				return &out, nil
			}
			return m, err
		}
	})
	names := func(sess *client.Session) string {
		r, err := sess.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tool := range r.Tools {
			n = append(n, tool.Name)
		}
		return strings.Join(n, ",")
	}
	h := streamable.NewHandler(e, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	sess, err := newModernClient(nil).Connect(context.Background(), streamable.NewClientTransport(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if got := names(sess); strings.Contains(got, "bad") || !strings.Contains(got, "echo") {
		t.Errorf("over HTTP: %s", got)
	}
	stdio, err := newModernClient(nil).Connect(context.Background(), serveStream(t, e))
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()
	if got := names(stdio); !strings.Contains(got, "bad") {
		t.Errorf("over a stream, which mirrors no headers: %s", got)
	}
}

func TestSubscription(t *testing.T) {
	for _, over := range []string{"stream", "http"} {
		t.Run(over, func(t *testing.T) {
			e := newEngine(t, nil)
			var tr jsonrpc.Transport
			if over == "stream" {
				tr = serveStream(t, e)
			} else {
				h := streamable.NewHandler(e, nil)
				ts := httptest.NewServer(h)
				defer ts.Close()
				defer h.Close()
				tr = streamable.NewClientTransport(ts.URL, nil)
			}
			sess, err := newModernClient(nil).Connect(context.Background(), tr)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
			if err != nil {
				t.Fatal(err)
			}
			if a := sub.Acknowledged(); !a.ToolsListChanged || a.PromptsListChanged {
				t.Errorf("acknowledged %+v (the engine has no prompts)", a)
			}
			e.RemoveTool("shaped")
			c, err := sub.Next(ctx)
			if err != nil || c.Method != mcp.MethodToolListChangedNotification {
				t.Errorf("change %+v %v", c, err)
			}
			sub.Close()
			if _, err := sub.Next(ctx); !errors.Is(err, client.ErrSubscriptionEnded) {
				t.Errorf("after Close: %v", err)
			}
		})
	}
}

func TestListCache(t *testing.T) {
	e := newEngine(t, &server.Options{Caching: server.Caching{TTL: time.Minute}})
	sess, err := newModernClient(&client.Options{CacheLists: true}).Connect(context.Background(), serveStream(t, e))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for range 3 {
		if _, err := sess.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(mcp.MethodListTools); n != 1 {
		t.Errorf("%d tools/list requests reached the server, want 1", n)
	}
}
