package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/validator"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// peer is the client side of a test: a raw jsonrpc.Conn that records the
// notifications it receives and answers server→client requests.
type peer struct {
	*jsonrpc.Conn
	notes    chan *jsonrpc.Request
	requests func(ctx context.Context, req *jsonrpc.Request) ([]byte, error)
}

func (p *peer) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		c := *req
		c.Params = append([]byte(nil), req.Params...)
		select {
		case p.notes <- &c:
		default:
		}
		return nil, nil
	}
	if p.requests != nil {
		return p.requests(ctx, req)
	}
	return nil, jsonrpc.ErrMethodNotFound(req.Method)
}

// start serves s over an in-memory pipe and returns the client side.
func start(t *testing.T, s *Server) *peer {
	t.Helper()
	return startWith(t, s, context.Background())
}

func (p *peer) call(t *testing.T, method, params string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var raw []byte
	if params != "" {
		raw = []byte(params)
	}
	return p.Call(ctx, method, raw)
}

func (p *peer) initialize(t *testing.T, version, caps string) *mcp.InitializeResult {
	t.Helper()
	if caps == "" {
		caps = "{}"
	}
	out, err := p.call(t, "initialize", `{"protocolVersion":"`+version+`","capabilities":`+caps+`,"clientInfo":{"name":"test","version":"1"}}`)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var r mcp.InitializeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if err := p.Notify(context.Background(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return &r
}

func (p *peer) note(t *testing.T, method string) *jsonrpc.Request {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case n := <-p.notes:
			if n.Method == method {
				return n
			}
		case <-timeout:
			t.Fatalf("no %s notification", method)
		}
	}
}

// next returns the next notification, whatever it is.
func (p *peer) next(t *testing.T) *jsonrpc.Request {
	t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
		return nil
	}
}

func code(t *testing.T, err error) int64 {
	t.Helper()
	return rpcError(t, err).Code
}

func echoTool(t testing.TB, s *Server) {
	t.Helper()
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`), &def); err != nil {
		t.Fatal(err)
	}
	err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return nil, err
		}
		switch in.Text {
		case "fail":
			return nil, errors.New("it failed as asked")
		case "panic":
			panic("as asked")
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: in.Text}}}}, nil
	}, rawSchemas())
	if err != nil {
		t.Fatal(err)
	}
}

// rawSchemas validates a test tool against its own schemas, as
// rawschema.Validate does (which imports this package, so its tests cannot).
func rawSchemas() ToolOption { return WithSchemaCompiler(validator.Compile) }

func newServer(opts *Options) *Server {
	return New(mcp.Implementation{Name: "test-server", Version: "1.0.0"}, opts)
}

func TestLifecycle(t *testing.T) {
	s := newServer(&Options{Instructions: "be nice"})
	echoTool(t, s)
	p := start(t, s)
	if _, err := p.call(t, "tools/list", ``); code(t, err) != jsonrpc.CodeInvalidRequest {
		t.Fatalf("tools/list before initialize: %v", err)
	}
	if out, err := p.call(t, "ping", ``); err != nil || string(out) != `{}` {
		t.Fatalf("ping before initialize: %s %v", out, err)
	}
	r := p.initialize(t, "2025-06-18", "")
	if r.ProtocolVersion != "2025-06-18" || r.ServerInfo.Name != "test-server" || r.Instructions != "be nice" {
		t.Fatalf("initialize result %+v", r)
	}
	if r.Capabilities.Tools == nil || r.Capabilities.Prompts != nil || r.Capabilities.Resources != nil {
		t.Fatalf("capabilities %+v", r.Capabilities)
	}
	if _, err := p.call(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}`); code(t, err) != jsonrpc.CodeInvalidRequest {
		t.Fatalf("second initialize: %v", err)
	}
	if _, err := p.call(t, "tools/list", `{}`); err != nil {
		t.Fatal(err)
	}
}

func TestVersionNegotiation(t *testing.T) {
	tests := []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"}, {"2025-03-26", "2025-03-26"}, {"2025-11-25", "2025-11-25"},
		{"2099-01-01", "2025-11-25"}, {"2026-07-28", "2025-11-25"}, {"garbage", "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.asked, func(t *testing.T) {
			p := start(t, newServer(nil))
			if got := p.initialize(t, tt.asked, "").ProtocolVersion; got != tt.want {
				t.Errorf("client asked %s, got %s, want %s", tt.asked, got, tt.want)
			}
		})
	}
	p := start(t, newServer(nil))
	if _, err := p.call(t, "initialize", `{"protocolVersion":"2025-06-18"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("initialize without clientInfo: %v", err)
	}
	// A failed initialize leaves the session waiting for a good one.
	p.initialize(t, "2025-06-18", "")
}

func callTool(t *testing.T, p *peer, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	out, err := p.call(t, "tools/call", `{"name":"echo","arguments":`+args+`}`)
	if err != nil {
		return nil, err
	}
	var r mcp.CallToolResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return &r, nil
}

func text(r *mcp.CallToolResult) string {
	if r == nil {
		return "<no result>"
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.Value.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestTools(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	r, err := callTool(t, p, `{"text":"hello"}`)
	if err != nil || r.IsError || text(r) != "hello" {
		t.Fatalf("echo: %+v %v", r, err)
	}
	r, err = callTool(t, p, `{"text":7}`)
	if err != nil || !r.IsError || !strings.Contains(text(r), "invalid arguments for tool echo: at /text") {
		t.Fatalf("bad arguments: %q %v", text(r), err)
	}
	r, err = callTool(t, p, `{"text":"fail"}`)
	if err != nil || !r.IsError || text(r) != "it failed as asked" {
		t.Fatalf("failing tool: %q %v", text(r), err)
	}
	r, err = callTool(t, p, `{"text":"panic"}`)
	if err != nil || !r.IsError || !strings.Contains(text(r), "internal error") {
		t.Fatalf("panicking tool: %q %v", text(r), err)
	}
	if _, err := p.call(t, "tools/call", `{"name":"nope"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err := p.call(t, "tools/call", `{"arguments":{}}`); code(t, err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "name: required") {
		t.Fatalf("no name: %v", err)
	}
	if _, err := p.call(t, "no/such", `{}`); code(t, err) != jsonrpc.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	// The server still works after the panic.
	if r, err := callTool(t, p, `{"text":"again"}`); err != nil || text(r) != "again" {
		t.Fatalf("after panic: %v", err)
	}
}

func TestOutputSchema(t *testing.T) {
	s := newServer(nil)
	var def mcp.Tool
	json.Unmarshal([]byte(`{"name":"weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}}`), &def)
	err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		out := `{"temp":21.5}`
		if string(p.Arguments) == `{"broken":true}` {
			out = `{"temp":"warm"}`
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: out}}}, StructuredContent: json.RawMessage(out)}, nil
	}, rawSchemas())
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, s)
	p.initialize(t, "2025-06-18", "")
	if _, err := p.call(t, "tools/call", `{"name":"weather","arguments":{}}`); err != nil {
		t.Fatal(err)
	}
	_, err = p.call(t, "tools/call", `{"name":"weather","arguments":{"broken":true}}`)
	if code(t, err) != jsonrpc.CodeInternalError || !strings.Contains(err.Error(), "does not match its outputSchema") {
		t.Fatalf("mismatching output: %v", err)
	}
	var bad mcp.Tool
	json.Unmarshal([]byte(`{"name":"bad","inputSchema":{"type":"object","properties":{"x":{"type":"nonsense"}}}}`), &bad)
	if err := s.AddTool(bad, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }, rawSchemas()); err == nil {
		t.Fatal("a tool with an invalid input schema was accepted")
	}
}

func TestPagination(t *testing.T) {
	s := newServer(&Options{PageSize: 2})
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		def := mcp.Tool{Name: name}
		def.InputSchema.Properties = map[string]json.RawMessage{}
		if err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	c := &mcp.Client{Caller: p.Conn}
	var names []string
	for tool, err := range c.AllTools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if strings.Join(names, "") != "abcde" {
		t.Fatalf("AllTools = %v", names)
	}
	if _, err := p.call(t, "tools/list", `{"cursor":"bogus"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestProgressAndLogging(t *testing.T) {
	s := newServer(nil)
	var def mcp.Tool
	json.Unmarshal([]byte(`{"name":"slow","inputSchema":{"type":"object"}}`), &def)
	s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := Progress(ctx, 1, 2, "half"); err != nil {
			return nil, err
		}
		Log(ctx, mcp.LoggingLevelDebug, "slow", "debug detail")
		Log(ctx, mcp.LoggingLevelWarning, "slow", map[string]int{"n": 1})
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
	})
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	if _, err := p.call(t, "logging/setLevel", `{"level":"info"}`); err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{`"tok-1"`, `7`, `12345678901234567890`} {
		if _, err := p.call(t, "tools/call", `{"name":"slow","_meta":{"progressToken":`+token+`}}`); err != nil {
			if token == `12345678901234567890` {
				continue // beyond int64: the params do not validate
			}
			t.Fatal(err)
		}
		n := p.note(t, "notifications/progress")
		want := `{"progressToken":` + token + `,"progress":1,"total":2,"message":"half"}`
		if string(n.Params) != want {
			t.Fatalf("progress %s, want %s", n.Params, want)
		}
		logged := p.note(t, "notifications/message")
		if !strings.Contains(string(logged.Params), `"level":"warning"`) {
			t.Fatalf("the debug message was not filtered out: %s", logged.Params)
		}
	}
	// Without a token there is no progress.
	if _, err := p.call(t, "tools/call", `{"name":"slow"}`); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-p.notes:
		if n.Method == "notifications/progress" {
			t.Fatalf("progress without a token: %s", n.Params)
		}
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := p.call(t, "logging/setLevel", `{"level":"loud"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("bad level: %v", err)
	}
}

func TestCancellation(t *testing.T) {
	s := newServer(nil)
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	var def mcp.Tool
	json.Unmarshal([]byte(`{"name":"wait","inputSchema":{"type":"object"}}`), &def)
	s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	})
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(ctx, "tools/call", []byte(`{"name":"wait"}`))
		done <- err
	}()
	<-started
	// The raw conn numbers its calls from 1: initialize was 1, this is 2.
	if err := p.Notify(context.Background(), "notifications/cancelled", []byte(`{"requestId":2,"reason":"user"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ctx ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's ctx was not cancelled")
	}
	cancel()
	<-done
}

func TestElicitation(t *testing.T) {
	s := newServer(nil)
	var def mcp.Tool
	json.Unmarshal([]byte(`{"name":"ask","inputSchema":{"type":"object"}}`), &def)
	s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var params mcp.ElicitRequestParams
		if err := json.Unmarshal([]byte(`{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`), &params); err != nil {
			return nil, err
		}
		r, err := Elicit(ctx, &params)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(r.Action) + ":" + string(r.Content["name"].Value.(mcp.ElicitResultContentValueString))}}}}, nil
	})
	p := start(t, s)
	p.requests = func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Method != "elicitation/create" {
			return nil, jsonrpc.ErrMethodNotFound(req.Method)
		}
		return []byte(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}
	p.initialize(t, "2025-11-25", `{"elicitation":{}}`)
	out, err := p.call(t, "tools/call", `{"name":"ask"}`)
	if err != nil || !strings.Contains(string(out), "accept:Ada") {
		t.Fatalf("elicit: %s %v", out, err)
	}

	q := start(t, s)
	q.initialize(t, "2025-11-25", "")
	out, err = q.call(t, "tools/call", `{"name":"ask"}`)
	if err != nil || !strings.Contains(string(out), "does not support elicitation") {
		t.Fatalf("elicit without the capability: %s %v", out, err)
	}
}

func TestListChangedAndResources(t *testing.T) {
	s := newServer(nil)
	if err := s.AddResource(mcp.Resource{URI: "test://static", Name: "static"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	var got sync.Map
	if err := s.AddResourceTemplate(mcp.ResourceTemplate{Name: "item", URITemplate: "test://items/{id}/data"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
		got.Store("id", vars["id"])
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	p := start(t, s)
	r := p.initialize(t, "2025-11-25", "")
	if r.Capabilities.Resources == nil || !r.Capabilities.Resources.Subscribe {
		t.Fatalf("resources capability %+v", r.Capabilities.Resources)
	}
	if _, err := p.call(t, "resources/read", `{"uri":"test://static"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.call(t, "resources/read", `{"uri":"test://items/42/data"}`); err != nil {
		t.Fatal(err)
	}
	if id, _ := got.Load("id"); id != "42" {
		t.Fatalf("template variable id = %v", id)
	}
	if _, err := p.call(t, "resources/read", `{"uri":"test://nothing"}`); code(t, err) != CodeResourceNotFound {
		t.Fatalf("missing resource: %v", err)
	}
	if _, err := p.call(t, "resources/subscribe", `{"uri":"test://static"}`); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(context.Background(), "test://static")
	if n := p.note(t, "notifications/resources/updated"); string(n.Params) != `{"uri":"test://static"}` {
		t.Fatalf("updated %s", n.Params)
	}
	echoTool(t, s)
	p.note(t, "notifications/tools/list_changed")
}

func TestMiddleware(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	var seen []string
	var mu sync.Mutex
	s.Use(func(next HandlerFunc) HandlerFunc {
		return func(ctx context.Context, req *Request) (mcp.Message, error) {
			r, err := next(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			if res, ok := r.(*mcp.CallToolResult); ok {
				seen = append(seen, req.Method+" "+string(req.Params)+" -> "+text(res))
			} else {
				seen = append(seen, req.Method)
			}
			return r, err
		}
	})
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	callTool(t, p, `{"text":"hi"}`)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != `tools/call {"name":"echo","arguments":{"text":"hi"}} -> hi` {
		t.Fatalf("middleware saw %q", seen)
	}
}

func TestBatches(t *testing.T) {
	tests := []struct {
		version string
		allowed bool
	}{
		{"2025-03-26", true}, {"2025-06-18", false}, {"2024-11-05", false},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) { testBatches(t, tt.version, tt.allowed) })
	}
}

// testBatches checks that a session of version answers a batch with a
// batch if allowed, and refuses it before initialize whatever the version.
func testBatches(t *testing.T, version string, allowed bool) {
	s := newServer(nil)
	echoTool(t, s)
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, a) }()
	// The server stops on every way out, a failed send's too.
	defer func() {
		cancel()
		b.Close()
		<-done
	}()
	send := func(frame string) string {
		if err := b.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		out, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	// A batch before initialize is refused whatever the version.
	if got := send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); !strings.Contains(got, `-32600`) {
		t.Fatalf("batch before initialize: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	b.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	got := send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`)
	if allowed != strings.HasPrefix(got, "[") {
		t.Errorf("batch answered with %s", got)
	}
}

func TestInitializeIsNotCancelled(t *testing.T) {
	s := newServer(nil)
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, a) }()
	b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	b.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
	out, err := b.Read(ctx)
	if err != nil || !strings.Contains(string(out), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize answer: %s %v", out, err)
	}
	b.Close()
	<-done
}

// TestToolValidators checks what holds a tool's values to its schemas
// when no validator of its own comes with it: a schema compiler given with
// WithSchemaCompiler, nothing for a schema that accepts any object, and
// otherwise a refusal at AddTool naming the way out, rather than values
// let through unchecked.
func TestToolValidators(t *testing.T) {
	s := newServer(nil)
	tool := func(name, schemas string) mcp.Tool {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(`{"name":"`+name+`",`+schemas+`}`), &def); err != nil {
			t.Fatal(err)
		}
		return def
	}
	structured := map[string]string{} // tool name -> the structuredContent it answers with
	h := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{}, StructuredContent: json.RawMessage(structured[p.Name])}, nil
	}
	typed := `"inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}`

	// Nothing would check n: refused, with the way out.
	err := s.AddTool(tool("typed", typed), h)
	if err == nil || !strings.Contains(err.Error(), "rawschema.Validate()") {
		t.Fatalf("a constraining schema without a validator: %v, want a refusal naming rawschema.Validate()", err)
	}
	err = s.AddTool(tool("typedOut", `"inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["n"]}`), h)
	if err == nil || !strings.Contains(err.Error(), "output schema") {
		t.Fatalf("a constraining output schema without a validator: %v, want a refusal", err)
	}
	// A validator of its own, or none needed, is enough; the 2026-07-28
	// rules hold either way.
	if err := s.AddTool(tool("own", typed), h, InputCheckedByHandler()); err != nil {
		t.Fatalf("a tool with its own validator: %v", err)
	}
	err = s.AddTool(tool("old", `"inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`), h, InputCheckedByHandler())
	if err == nil || !strings.Contains(err.Error(), "draft-04") {
		t.Fatalf("a draft-04 schema with a validator of its own: %v, want it refused", err)
	}
	structured["plain"] = `[1]`
	if err := s.AddTool(tool("plain", `"inputSchema":{"type":"object","title":"any"},"outputSchema":{"type":"object"}`), h); err != nil {
		t.Fatalf("schemas that accept any object: %v", err)
	}

	// A compiler makes both validators, once; absent arguments reach the
	// input validator as {}.
	var compiled []string
	var seen []string
	compile := func(name string, schema []byte) (func([]byte) error, error) {
		compiled = append(compiled, name+" "+string(schema))
		return func(v []byte) error {
			seen = append(seen, name+" "+string(v))
			if string(v) == `{"n":"x"}` || string(v) == `{"bad":true}` {
				return errors.New("off the schema")
			}
			return nil
		}, nil
	}
	structured["compiled"] = `{"bad":true}`
	if err := s.AddTool(tool("compiled", typed+`,"outputSchema":{"type":"object"}`), h, WithSchemaCompiler(compile)); err != nil {
		t.Fatal(err)
	}
	want := []string{`compiled/input {"type":"object","properties":{"n":{"type":"integer"}}}`, `compiled/output {"type":"object"}`}
	if !slices.Equal(compiled, want) {
		t.Errorf("compiled %q, want %q", compiled, want)
	}
	failing := func(name string, schema []byte) (func([]byte) error, error) { return nil, errors.New("cannot compile") }
	if err := s.AddTool(tool("uncompiled", typed), h, WithSchemaCompiler(failing)); err == nil || !strings.Contains(err.Error(), "cannot compile") {
		t.Errorf("a schema the compiler refuses: %v", err)
	}

	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	callOf := func(name, args string) (*mcp.CallToolResult, error) {
		t.Helper()
		out, err := p.call(t, "tools/call", `{"name":"`+name+`"`+args+`}`)
		if err != nil {
			return nil, err
		}
		var r mcp.CallToolResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return &r, nil
	}
	if r, err := callOf("compiled", `,"arguments":{"n":"x"}`); err != nil || !r.IsError || !strings.Contains(text(r), "off the schema") {
		t.Errorf("arguments the compiled validator refuses: %s, %v", text(r), err)
	}
	if _, err := callOf("compiled", ``); code(t, err) != jsonrpc.CodeInternalError || !strings.Contains(err.Error(), "off the schema") {
		t.Errorf("structuredContent the compiled validator refuses: %v", err)
	}
	if want := []string{`compiled/input {"n":"x"}`, `compiled/input {}`, `compiled/output {"bad":true}`}; !slices.Equal(seen, want) {
		t.Errorf("the validators saw %q, want %q", seen, want)
	}
	if r, err := callOf("plain", `,"arguments":{"anything":[true]}`); err == nil {
		t.Errorf("structuredContent [1] under an object output schema was sent: %+v", r)
	} else if code(t, err) != jsonrpc.CodeInternalError {
		t.Errorf("structuredContent [1]: %v, want an internal error", err)
	}
	structured["plain"] = `{"k":1}`
	if r, err := callOf("plain", `,"arguments":{"anything":[true]}`); err != nil || r.IsError {
		t.Errorf("any object under a schema that accepts any: %+v, %v", r, err)
	}
}

func TestInputCheckedByHandler(t *testing.T) {
	s := newServer(nil)
	var def mcp.Tool
	json.Unmarshal([]byte(`{"name":"strict","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`), &def)
	var calls int
	var mu sync.Mutex
	err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return nil, errors.New("the handler judged the arguments itself")
	}, InputCheckedByHandler())
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	out, err := p.call(t, "tools/call", `{"name":"strict","arguments":{"text":7}}`)
	if err != nil || !strings.Contains(string(out), "the handler judged the arguments itself") {
		t.Fatalf("result %s, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Fatalf("the handler ran %d times; the server must leave the arguments to it", calls)
	}
}

// TestToolDefinitionCompacted registers a tool whose schema was written
// indented and checks that tools/list sends it on one line, as stdio's
// framing needs.
func TestToolDefinitionCompacted(t *testing.T) {
	s := newServer(nil)
	var def mcp.Tool
	if err := json.Unmarshal([]byte("{\"name\":\"x\",\"inputSchema\":{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"string\"}\n  }\n}}"), &def); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }, rawSchemas()); err != nil {
		t.Fatal(err)
	}
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	out, err := p.call(t, "tools/list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(out), "\n\r") || !strings.Contains(string(out), `"properties":{"a":{"type"`) {
		t.Fatalf("tools/list = %s", out)
	}
}

// TestToolForbiddenTaskSupportUnsaid registers tools decoded from another
// server's tools/list, as a gateway does, and checks that forbidden task
// support, the default, is left out rather than written as "".
func TestToolForbiddenTaskSupportUnsaid(t *testing.T) {
	s := newServer(nil)
	for _, raw := range []string{
		`{"name":"forbidden","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}}`,
		`{"name":"extra","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden","x-note":1}}`,
	} {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(raw), &def); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	out, err := p.call(t, "tools/list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `"taskSupport"`) || !strings.Contains(string(out), `"execution":{"x-note":1}`) {
		t.Fatalf("tools/list = %s", out)
	}
}
