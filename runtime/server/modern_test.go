package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/shared"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The 2026-07-28 era served on a stream: no initialize, every request
// carrying its own _meta. These tests speak raw JSON-RPC to the engine over
// an in-memory pipe, as a stdio client would.

// modernMeta is the _meta of a 2026-07-28 request declaring caps.
func modernMeta(caps string) string {
	if caps == "" {
		caps = "{}"
	}
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

// modern calls method with params (a JSON object's members, without braces)
// and the _meta of a client declaring caps.
func (p *peer) modern(t *testing.T, method, caps, members string) (json.RawMessage, error) {
	t.Helper()
	params := "{" + modernMeta(caps)
	if members != "" {
		params += "," + members
	}
	return p.call(t, method, params+"}")
}

// startWith serves s over a pipe with a Serve ctx of its own (holding a
// principal, say) and returns the client side.
func startWith(t *testing.T, s *Server, ctx context.Context) *peer {
	t.Helper()
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, a) }()
	p := &peer{notes: make(chan *jsonrpc.Request, 64)}
	p.Conn = jsonrpc.NewConn(b, p, jsonrpc.Options{OnCancel: func(id jsonrpc.ID) {
		// What a stdio client does when it gives up on a request.
		n, _ := id.Int()
		p.Notify(context.Background(), mcp.MethodCancelledNotification, fmt.Appendf(nil, `{"requestId":%d}`, n))
	}})
	go p.Run(ctx)
	t.Cleanup(func() {
		p.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		p.Wait()
	})
	return p
}

func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a JSON-RPC error", err)
	}
	return e
}

func addTool(t *testing.T, s *Server, name string, h ToolHandler, opts ...ToolOption) {
	t.Helper()
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(def, h, opts...); err != nil {
		t.Fatal(err)
	}
}

func textOf(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
}

func nameQuestion(message string) *mcp.ElicitRequestParams {
	return &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message: message,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}},
			Required:   []string{"name"},
		},
	}}
}

func nameOf(r *mcp.ElicitResult) string {
	v, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
	return string(v)
}

func TestModernWithoutInitialize(t *testing.T) {
	s := newServer(&Options{Instructions: "be nice"})
	echoTool(t, s)
	p := start(t, s)

	out, err := p.modern(t, "server/discover", "", "")
	if err != nil {
		t.Fatalf("server/discover: %v", err)
	}
	var d mcp.DiscoverResult
	if err := d.UnmarshalJSON(out); err != nil {
		t.Fatal(err)
	}
	if err := d.ValidateVersion(mcp.Version20260728); err != nil {
		t.Errorf("discover result: %v: %s", err, out)
	}
	if d.ResultType != "complete" || d.Instructions != "be nice" || d.Meta == nil || d.Meta.ServerInfo == nil || d.Meta.ServerInfo.Name != "test-server" {
		t.Errorf("discover result: %s", out)
	}
	if len(d.SupportedVersions) == 0 || d.SupportedVersions[0] != "2026-07-28" || d.Capabilities.Tools == nil {
		t.Errorf("discover result: %s", out)
	}

	out, err = p.modern(t, "tools/call", "", `"name":"echo","arguments":{"text":"hi"}`)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON(out); err != nil {
		t.Fatal(err)
	}
	if err := r.ValidateVersion(mcp.Version20260728); err != nil || r.ResultType != "complete" || r.Meta == nil || r.Meta.ServerInfo.Version != "1.0.0" {
		t.Errorf("tools/call result: %v: %s", err, out)
	}

	// A legacy request on the same stream is still held to the legacy
	// lifecycle: the modern ones did not initialize anything.
	if _, err := p.call(t, "tools/list", ``); code(t, err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("legacy tools/list before initialize: %v", err)
	}
}

func TestModernRequestErrors(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	p := start(t, s)
	cases := []struct {
		name, method, params string
		code                 int64
		msg                  string
	}{
		{"no params", "server/discover", ``, jsonrpc.CodeInvalidParams, "_meta: required"},
		{"no _meta", "server/discover", `{}`, jsonrpc.CodeInvalidParams, "_meta: required"},
		{"no version", "tools/list", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, jsonrpc.CodeInvalidParams, "protocolVersion: required"},
		{"no capabilities", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, jsonrpc.CodeInvalidParams, "clientCapabilities: required"},
		{"version not a string", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":2026,"io.modelcontextprotocol/clientCapabilities":{}}}`, jsonrpc.CodeInvalidParams, "must be a string"},
		{"bad log level", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}`, jsonrpc.CodeInvalidParams, "logLevel"},
		{"bad capabilities", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`, jsonrpc.CodeInvalidParams, "clientCapabilities"},
		{"unknown version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}`, mcp.CodeUnsupportedProtocolVersion, "v999.0.0"},
		{"legacy version per request", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, mcp.CodeUnsupportedProtocolVersion, "2025-11-25"},
		{"initialize", "initialize", `{` + modernMeta("") + `,"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, jsonrpc.CodeMethodNotFound, "initialize"},
		{"ping", "ping", `{` + modernMeta("") + `}`, jsonrpc.CodeMethodNotFound, "ping"},
		{"setLevel", "logging/setLevel", `{` + modernMeta("") + `,"level":"debug"}`, jsonrpc.CodeMethodNotFound, "logging/setLevel"},
		{"subscribe", "resources/subscribe", `{` + modernMeta("") + `,"uri":"x:y"}`, jsonrpc.CodeMethodNotFound, "resources/subscribe"},
		{"unknown method", "no/such", `{` + modernMeta("") + `}`, jsonrpc.CodeMethodNotFound, "no/such"},
		{"unknown tool", "tools/call", `{` + modernMeta("") + `,"name":"nope"}`, jsonrpc.CodeInvalidParams, "unknown tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := p.call(t, c.method, c.params)
			e := rpcError(t, err)
			if e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Errorf("%s: %d %q, want %d containing %q", c.method, e.Code, e.Message, c.code, c.msg)
			}
		})
	}
	_, err := p.call(t, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}`)
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if err := json.Unmarshal(rpcError(t, err).Data, &data); err != nil || len(data.Supported) == 0 || data.Supported[0] != "2026-07-28" || data.Requested != "v999.0.0" {
		t.Errorf("unsupported version data: %s (%v)", rpcError(t, err).Data, err)
	}
}

// TestErasInterleavedOnOneStream runs a legacy session and 2026-07-28
// requests side by side on one stream, each asking its client for input
// the way its era does, from the same handler code.
func TestErasInterleavedOnOneStream(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "greet", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if err := Progress(ctx, 1, 2, "asking"); err != nil {
			return nil, err
		}
		r, err := Elicit(ctx, nameQuestion("Your name?"), InputKey("who"))
		if err != nil {
			return nil, err
		}
		return textOf(fmt.Sprintf("hello %s (%s)", nameOf(r), ProtocolVersion(ctx))), nil
	})
	p := start(t, s)
	p.requests = func(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
		if req.Method != mcp.MethodElicit {
			return nil, jsonrpc.ErrMethodNotFound(req.Method)
		}
		return []byte(`{"action":"accept","content":{"name":"Legacy"}}`), nil
	}
	p.initialize(t, "2025-11-25", `{"elicitation":{}}`)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			out, err := p.call(t, "tools/call", `{"name":"greet"}`)
			if err != nil || !strings.Contains(string(out), "hello Legacy (2025-11-25)") {
				errs <- fmt.Errorf("legacy call %d: %s %v", i, out, err)
			}
		}()
		go func() {
			defer wg.Done()
			out, err := p.modern(t, "tools/call", `{"elicitation":{}}`, `"name":"greet"`)
			if err != nil {
				errs <- fmt.Errorf("modern round 1 %d: %v", i, err)
				return
			}
			var ir mcp.InputRequiredResult
			if err := ir.UnmarshalJSON(out); err != nil || ir.ResultType != "input_required" || ir.InputRequests["who"].Value == nil || ir.RequestState == "" {
				errs <- fmt.Errorf("modern round 1 %d: %s %v", i, out, err)
				return
			}
			name := fmt.Sprintf("Modern%d", i)
			out, err = p.modern(t, "tools/call", `{"elicitation":{}}`, `"name":"greet","inputResponses":{"who":{"action":"accept","content":{"name":"`+name+`"}}},"requestState":"`+ir.RequestState+`"`)
			if err != nil || !strings.Contains(string(out), "hello "+name+" (2026-07-28)") || !strings.Contains(string(out), `"resultType":"complete"`) {
				errs <- fmt.Errorf("modern round 2 %d: %s %v", i, out, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// roundsTool registers a tool whose handler is f, for the round tests.
func roundsServer(t *testing.T, opts *Options, f ToolHandler) (*Server, *peer) {
	t.Helper()
	s := newServer(opts)
	addTool(t, s, "ask", f)
	addTool(t, s, "other", f)
	return s, start(t, s)
}

// round calls the tool ask with members and returns its decoded result: an
// InputRequiredResult or a CallToolResult.
func round(t *testing.T, p *peer, caps, members string) (*mcp.InputRequiredResult, *mcp.CallToolResult, error) {
	t.Helper()
	m := `"name":"ask"`
	if members != "" {
		m += "," + members
	}
	out, err := p.modern(t, "tools/call", caps, m)
	if err != nil {
		return nil, nil, err
	}
	if strings.Contains(string(out), `"resultType":"input_required"`) {
		var ir mcp.InputRequiredResult
		if err := ir.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		if err := ir.ValidateVersion(mcp.Version20260728); err != nil {
			t.Errorf("InputRequiredResult: %v: %s", err, out)
		}
		return &ir, nil, nil
	}
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON(out); err != nil {
		t.Fatal(err)
	}
	return nil, &r, nil
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestInputRounds(t *testing.T) {
	const all = `{"elicitation":{},"sampling":{},"roots":{}}`
	runs := 0
	var mu sync.Mutex
	_, p := roundsServer(t, nil, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		first, err := Elicit(ctx, nameQuestion("First?"), InputKey("first"))
		if err != nil {
			return nil, err
		}
		// Two questions in one round.
		second, err2 := Elicit(ctx, nameQuestion("Second?"), InputKey("second"))
		roots, err3 := ListRoots(ctx)
		if err := errors.Join(err2, err3); err != nil {
			return nil, err
		}
		return textOf(nameOf(first) + "," + nameOf(second) + "," + roots.Roots[0].URI), nil
	})
	accept := func(name string) string { return `{"action":"accept","content":{"name":"` + name + `"}}` }

	ir, _, err := round(t, p, all, "")
	if err != nil || ir == nil || len(ir.InputRequests) != 1 || ir.InputRequests["first"].Value == nil {
		t.Fatalf("round 1: %+v %v", ir, err)
	}
	if _, ok := ir.InputRequests["first"].Value.(*mcp.ElicitRequest); !ok {
		t.Errorf("round 1 asks %T", ir.InputRequests["first"].Value)
	}
	state1 := ir.RequestState

	// The answer to the first question, and an extra one that is ignored.
	ir, _, err = round(t, p, all, `"inputResponses":{"first":`+accept("A")+`,"extra":`+accept("X")+`},"requestState":"`+state1+`"`)
	if err != nil || ir == nil {
		t.Fatalf("round 2: %v", err)
	}
	got := keys(ir.InputRequests)
	if len(got) != 2 || ir.InputRequests["second"].Value == nil {
		t.Fatalf("round 2 asks %v, want second and a derived roots key", got)
	}
	var rootsKey string
	for k, v := range ir.InputRequests {
		if _, ok := v.Value.(*mcp.ListRootsRequest); ok {
			rootsKey = k
		}
	}
	if !strings.HasPrefix(rootsKey, "roots-") {
		t.Fatalf("the roots question has key %q", rootsKey)
	}
	if ir.RequestState == state1 {
		t.Error("round 2 gave back the state of round 1")
	}
	state2 := ir.RequestState

	// Only one of the two answered: the other is asked again, and the
	// first answer travels in the state, not the retry.
	ir, _, err = round(t, p, all, `"inputResponses":{"second":`+accept("B")+`},"requestState":"`+state2+`"`)
	if err != nil || ir == nil || len(ir.InputRequests) != 1 || ir.InputRequests[rootsKey].Value == nil {
		t.Fatalf("round 3: %+v %v", ir, err)
	}
	// An answer of the wrong kind is asked again too.
	ir, _, err = round(t, p, all, `"inputResponses":{"`+rootsKey+`":`+accept("not roots")+`},"requestState":"`+ir.RequestState+`"`)
	if err != nil || ir == nil || ir.InputRequests[rootsKey].Value == nil {
		t.Fatalf("round 4 (wrong answer): %+v %v", ir, err)
	}
	_, r, err := round(t, p, all, `"inputResponses":{"`+rootsKey+`":{"roots":[{"uri":"file:///r"}]}},"requestState":"`+ir.RequestState+`"`)
	if err != nil || r == nil || r.IsError || r.Content[0].Value.(*mcp.TextContent).Text != "A,B,file:///r" {
		t.Fatalf("round 5: %+v %v", r, err)
	}
	if r.ResultType != "complete" {
		t.Errorf("final resultType %q", r.ResultType)
	}
	if runs != 5 {
		t.Errorf("the handler ran %d times, want 5 (once per round)", runs)
	}

	// A state echoed on another request, or altered, never reaches the
	// handler.
	forged := []struct{ name, members string }{
		{"tampered", `"requestState":"` + state1 + `x"`},
		{"garbage", `"requestState":"not a state"`},
		{"other args", `"arguments":{"a":1},"requestState":"` + state1 + `"`},
		{"truncated", `"requestState":"` + state1[:len(state1)-2] + `"`},
		{"cursor as state", `"requestState":"` + s1cursor(t) + `"`},
	}
	for _, tt := range forged {
		t.Run(tt.name, func(t *testing.T) {
			runsBefore := runs
			_, _, err := round(t, p, all, tt.members)
			if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
				t.Errorf("round: %v", err)
			}
			if runs != runsBefore {
				t.Error("the handler ran")
			}
		})
	}
	out, err := p.modern(t, "tools/call", all, `"name":"other","requestState":"`+state1+`"`)
	if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "another request") {
		t.Errorf("state of ask on other: %s %v", out, err)
	}
}

// s1cursor is a sealed cursor of some other server, which no server of
// these tests can open.
func s1cursor(t *testing.T) string {
	s := newServer(&Options{PageSize: 1})
	echoTool(t, s)
	addTool(t, s, "b", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil })
	p := start(t, s)
	out, err := p.modern(t, "tools/list", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var r mcp.ListToolsResult
	if err := r.UnmarshalJSON(out); err != nil || r.NextCursor == "" {
		t.Fatalf("no cursor: %s %v", out, err)
	}
	return r.NextCursor
}

func TestInputRoundsWithoutState(t *testing.T) {
	// A client may answer without a requestState (it never had one): the
	// answers are taken by key, and a wrong key is asked again.
	_, p := roundsServer(t, nil, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("user_name"))
		if err != nil {
			return nil, err
		}
		return textOf("Hello, " + nameOf(r)), nil
	})
	caps := `{"elicitation":{}}`
	if ir, _, err := round(t, p, caps, `"inputResponses":{"wrong_key":{"action":"accept","content":{"x":"y"}}}`); err != nil || ir == nil || ir.InputRequests["user_name"].Value == nil {
		t.Errorf("wrong key: %+v %v", ir, err)
	}
	if _, r, err := round(t, p, caps, `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}},"x":{"action":"decline"}}`); err != nil || r == nil || r.Content[0].Value.(*mcp.TextContent).Text != "Hello, Alice" {
		t.Errorf("right key: %+v %v", r, err)
	}
	for _, bad := range []string{`"inputResponses":{"user_name":12345}`, `"inputResponses":null`, `"inputResponses":[]`} {
		if _, _, err := round(t, p, caps, bad); rpcError(t, err).Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestInputRoundLimitsAndState(t *testing.T) {
	_, p := roundsServer(t, &Options{MaxInputRounds: 3}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		// A handler that keeps its own state across rounds, and never
		// gets what it wants.
		n := len(RoundState(ctx))
		if err := SetRoundState(ctx, []byte(strings.Repeat("x", n+1))); err != nil {
			return nil, err
		}
		_, err := Elicit(ctx, nameQuestion(fmt.Sprintf("Try %d", n)))
		return textOf(fmt.Sprint(n)), err
	})
	caps := `{"elicitation":{}}`
	ir, _, err := round(t, p, caps, "")
	if err != nil || ir == nil {
		t.Fatalf("round 1: %v", err)
	}
	// The question changes every round (its message has the count): a
	// derived key names it anew, so the old answer does not fit it.
	for i := 2; i <= 3; i++ {
		var key string
		for k := range ir.InputRequests {
			key = k
		}
		ir, _, err = round(t, p, caps, `"inputResponses":{"`+key+`":{"action":"accept","content":{"name":"n"}}},"requestState":"`+ir.RequestState+`"`)
		if err != nil || ir == nil {
			t.Fatalf("round %d: %v", i, err)
		}
		asked, _ := json.Marshal(ir.InputRequests)
		if !strings.Contains(string(asked), fmt.Sprintf("Try %d", i-1)) {
			t.Errorf("round %d asks %v: the handler's state did not come back", i, ir.InputRequests)
		}
	}
	if _, _, err := round(t, p, caps, `"requestState":"`+ir.RequestState+`"`); !strings.Contains(rpcError(t, err).Message, "rounds") {
		t.Errorf("past the bound: %v", err)
	}
}

func TestInputRoundExpiry(t *testing.T) {
	_, p := roundsServer(t, &Options{StateTTL: time.Millisecond}, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		_, err := Elicit(ctx, nameQuestion("Name?"))
		return textOf("done"), err
	})
	ir, _, err := round(t, p, `{"elicitation":{}}`, "")
	if err != nil || ir == nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // past the state's lifetime, not a speed check
	if _, _, err := round(t, p, `{"elicitation":{}}`, `"requestState":"`+ir.RequestState+`"`); !strings.Contains(rpcError(t, err).Message, "expired") {
		t.Errorf("expired state: %v", err)
	}
}

func TestStateBoundToPrincipal(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "ask", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("n"))
		if err != nil {
			return nil, err
		}
		return textOf(nameOf(r) + " for " + fmt.Sprint(PrincipalFrom(ctx))), nil
	})
	alice := startWith(t, s, WithPrincipal(context.Background(), "alice"))
	bob := startWith(t, s, WithPrincipal(context.Background(), "bob"))
	caps := `{"elicitation":{}}`
	ir, _, err := round(t, alice, caps, "")
	if err != nil || ir == nil {
		t.Fatal(err)
	}
	answer := `"inputResponses":{"n":{"action":"accept","content":{"name":"x"}}},"requestState":"` + ir.RequestState + `"`
	if _, _, err := round(t, bob, caps, answer); !strings.Contains(rpcError(t, err).Message, "another request") {
		t.Errorf("alice's state used by bob: %v", err)
	}
	if _, r, err := round(t, alice, caps, answer); err != nil || r == nil || r.Content[0].Value.(*mcp.TextContent).Text != "x for alice" {
		t.Errorf("alice's state used by alice: %+v %v", r, err)
	}
}

func TestSharedStateKeys(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	handler := func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := Elicit(ctx, nameQuestion("Name?"), InputKey("n"))
		if err != nil {
			return nil, err
		}
		return textOf(nameOf(r)), nil
	}
	replica := func(keys ...[]byte) *peer {
		s, p := roundsServer(t, nil, handler)
		if len(keys) > 0 {
			if err := s.SetStateKeys(keys...); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	a, b, c := replica(key), replica(make([]byte, 32), key), replica()
	caps := `{"elicitation":{}}`
	ir, _, err := round(t, a, caps, "")
	if err != nil || ir == nil {
		t.Fatal(err)
	}
	answer := `"inputResponses":{"n":{"action":"accept","content":{"name":"moved"}}},"requestState":"` + ir.RequestState + `"`
	if _, r, err := round(t, b, caps, answer); err != nil || r == nil {
		t.Errorf("a replica holding the key as its second: %v", err)
	}
	if _, _, err := round(t, c, caps, answer); rpcError(t, err).Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a replica with another key: %v", err)
	}
	if err := newServer(nil).SetStateKeys([]byte("short")); err == nil || !strings.Contains(err.Error(), "32") {
		t.Errorf("a short key: %v", err)
	}
}

func TestMissingCapability(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "sample", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		_, err := CreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 5})
		return textOf("sampled"), fmt.Errorf("sampling: %w", err)
	})
	p := start(t, s)
	_, err := p.modern(t, "tools/call", `{"elicitation":{}}`, `"name":"sample"`)
	e := rpcError(t, err)
	if e.Code != mcp.CodeMissingRequiredClientCapability || string(e.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("undeclared sampling: %d %s %s", e.Code, e.Message, e.Data)
	}
	// A legacy client without the capability gets an isError result, as
	// its versions define no error for it.
	p.initialize(t, "2025-11-25", "")
	out, err := p.call(t, "tools/call", `{"name":"sample"}`)
	if err != nil || !strings.Contains(string(out), `"isError":true`) || !strings.Contains(string(out), "does not support sampling") {
		t.Errorf("legacy: %s %v", out, err)
	}
}

func TestInputOnlyWhereRoundsAre(t *testing.T) {
	s := newServer(nil)
	s.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
		_, err := Elicit(ctx, nameQuestion("?"))
		return nil, err
	})
	s.AddPrompt(mcp.Prompt{Name: "p"}, func(ctx context.Context, _ *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		r, err := Elicit(ctx, nameQuestion("Context?"), InputKey("ctx"))
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: nameOf(r)}}}}}, nil
	})
	s.AddResource(mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		r, err := Elicit(ctx, nameQuestion("Which?"), InputKey("which"))
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: nameOf(r)}}}}, nil
	})
	p := start(t, s)
	caps := `{"elicitation":{}}`
	_, err := p.modern(t, "completion/complete", caps, `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}`)
	if e := rpcError(t, err); e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "tools/call, prompts/get or resources/read") {
		t.Errorf("input from completion: %v", err)
	}
	for _, c := range []struct{ method, members, key, want string }{
		{"prompts/get", `"name":"p"`, "ctx", `"text":"P"`},
		{"resources/read", `"uri":"test://r"`, "which", `"text":"P"`},
	} {
		out, err := p.modern(t, c.method, caps, c.members)
		var ir mcp.InputRequiredResult
		if err != nil || ir.UnmarshalJSON(out) != nil || ir.InputRequests[c.key].Value == nil {
			t.Fatalf("%s round 1: %s %v", c.method, out, err)
		}
		out, err = p.modern(t, c.method, caps, c.members+`,"inputResponses":{"`+c.key+`":{"action":"accept","content":{"name":"P"}}},"requestState":"`+ir.RequestState+`"`)
		if err != nil || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), `"resultType":"complete"`) {
			t.Errorf("%s round 2: %s %v", c.method, out, err)
		}
	}
}

// TestInputRequestsMatchTheSpecExample asks the questions of the official
// InputRequiredResult example and checks that the engine puts them on the
// wire as the example does.
func TestInputRequestsMatchTheSpecExample(t *testing.T) {
	var example mcp.InputRequiredResult
	readExample(t, "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json", &example)
	_, p := roundsServer(t, nil, func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		login := example.InputRequests["github_login"].Value.(*mcp.ElicitRequest)
		capital := example.InputRequests["capital_of_france"].Value.(*mcp.CreateMessageRequest)
		_, err1 := Elicit(ctx, &login.Params, InputKey("github_login"))
		_, err2 := CreateMessage(ctx, &capital.Params, InputKey("capital_of_france"))
		return nil, errors.Join(err1, err2)
	})
	out, err := p.modern(t, "tools/call", `{"elicitation":{},"sampling":{}}`, `"name":"ask"`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		InputRequests json.RawMessage `json:"inputRequests"`
	}
	json.Unmarshal(out, &got)
	want, _ := example.InputRequests["github_login"].MarshalJSON()
	if !strings.Contains(string(got.InputRequests), string(want)) {
		t.Errorf("inputRequests %s\ndo not hold the example's %s", got.InputRequests, want)
	}
	want, _ = example.InputRequests["capital_of_france"].MarshalJSON()
	if !strings.Contains(string(got.InputRequests), string(want)) {
		t.Errorf("inputRequests %s\ndo not hold the example's %s", got.InputRequests, want)
	}
}

func TestSealedCursors(t *testing.T) {
	s := newServer(&Options{PageSize: 1})
	echoTool(t, s)
	addTool(t, s, "b", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil })
	addTool(t, s, "c", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil })
	s.AddPrompt(mcp.Prompt{Name: "p1"}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) { return nil, nil })
	s.AddPrompt(mcp.Prompt{Name: "p2"}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) { return nil, nil })
	alice := startWith(t, s, WithPrincipal(context.Background(), "alice"))
	bob := startWith(t, s, WithPrincipal(context.Background(), "bob"))

	var names []string
	cursor := ""
	for {
		members := ""
		if cursor != "" {
			members = `"cursor":"` + cursor + `"`
		}
		out, err := alice.modern(t, "tools/list", "", members)
		if err != nil {
			t.Fatal(err)
		}
		var r mcp.ListToolsResult
		if err := r.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		for _, tool := range r.Tools {
			names = append(names, tool.Name)
		}
		if r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
		if strings.Contains(cursor, "1") && len(cursor) < 10 {
			t.Errorf("cursor %q looks like an offset", cursor)
		}
	}
	if strings.Join(names, ",") != "echo,b,c" {
		t.Errorf("pages: %v", names)
	}
	out, _ := alice.modern(t, "tools/list", "", "")
	var first mcp.ListToolsResult
	first.UnmarshalJSON(out)
	refused := []struct {
		name          string
		who           *peer
		method, param string
	}{
		{"forged", alice, "tools/list", `"cursor":"MQ"`},
		{"another list", alice, "prompts/list", `"cursor":"` + first.NextCursor + `"`},
		{"another principal", bob, "tools/list", `"cursor":"` + first.NextCursor + `"`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.who.modern(t, tt.method, "", tt.param)
			if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "cursor") {
				t.Errorf("cursor: %v", e)
			}
		})
	}
	// Legacy sessions get sealed cursors too.
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	if _, err := p.call(t, "tools/list", `{"cursor":"MQ"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Errorf("legacy forged cursor: %v", err)
	}
}

func TestCaching(t *testing.T) {
	check := func(t *testing.T, p *peer, method, members, want string) {
		t.Helper()
		out, err := p.modern(t, method, "", members)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: %s, want %s", method, out, want)
		}
	}
	read := func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: "x"}}}}, nil
	}
	t.Run("default", func(t *testing.T) {
		s := newServer(nil)
		echoTool(t, s)
		s.AddResource(mcp.Resource{URI: "test://a", Name: "a"}, read)
		s.AddResource(mcp.Resource{URI: "test://b", Name: "b"}, read, ResourceCaching(Caching{TTL: time.Minute, Public: true}))
		s.AddResource(mcp.Resource{URI: "test://c", Name: "c"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			r, _ := read(ctx, p)
			r.CacheScope = "public"
			r.SetTTLMs(5)
			return r, nil
		})
		p := start(t, s)
		// Immediately stale and private, and the zero is on the wire.
		for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "server/discover"} {
			check(t, p, m, "", `"cacheScope":"private"`)
			check(t, p, m, "", `"ttlMs":0`)
		}
		check(t, p, "resources/read", `"uri":"test://a"`, `"cacheScope":"private","contents":[{"text":"x","uri":"test://a"}],"resultType":"complete","ttlMs":0`)
		check(t, p, "resources/read", `"uri":"test://b"`, `"cacheScope":"public","contents":[{"text":"x","uri":"test://b"}],"resultType":"complete","ttlMs":60000`)
		check(t, p, "resources/read", `"uri":"test://c"`, `"cacheScope":"public","contents":[{"text":"x","uri":"test://c"}],"resultType":"complete","ttlMs":5`)
		// Legacy clients get none of it.
		p.initialize(t, "2025-11-25", "")
		out, _ := p.call(t, "tools/list", ``)
		if strings.Contains(string(out), "cacheScope") || strings.Contains(string(out), "resultType") {
			t.Errorf("legacy tools/list: %s", out)
		}
		// Not even from a resource registered with its own caching.
		out, _ = p.call(t, "resources/read", `{"uri":"test://b"}`)
		if strings.Contains(string(out), "cacheScope") || strings.Contains(string(out), "ttlMs") {
			t.Errorf("legacy resources/read of a ResourceCaching resource: %s", out)
		}
	})
	t.Run("configured", func(t *testing.T) {
		s := newServer(&Options{Caching: Caching{TTL: 90 * time.Second, Public: true}})
		echoTool(t, s)
		p := start(t, s)
		check(t, p, "tools/list", "", `"cacheScope":"public"`)
		check(t, p, "tools/list", "", `"ttlMs":90000`)
	})
}

func TestListen(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	read := func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	if err := s.AddResource(mcp.Resource{URI: "test://watched", Name: "w"}, read); err != nil {
		t.Fatal(err)
	}
	p := start(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(ctx, "subscriptions/listen", []byte(`{`+modernMeta("")+`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://watched","test://other"]}}`))
		done <- err
	}()
	ack := p.note(t, mcp.MethodSubscriptionsAcknowledgedNotification)
	var params mcp.SubscriptionsAcknowledgedNotificationParams
	if err := params.UnmarshalJSON(ack.Params); err != nil {
		t.Fatal(err)
	}
	n := params.Notifications
	if !n.ToolsListChanged || n.PromptsListChanged || len(n.ResourceSubscriptions) != 2 || params.Meta == nil {
		t.Errorf("acknowledged %s (no prompts are registered, so their changes are not offered)", ack.Params)
	}
	subID, ok := params.Meta.SubscriptionID.AsInteger()
	if !ok {
		t.Fatalf("subscription id %s", ack.Params)
	}

	addTool(t, s, "new", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil })
	note := p.note(t, mcp.MethodToolListChangedNotification)
	if !strings.Contains(string(note.Params), fmt.Sprintf(`"io.modelcontextprotocol/subscriptionId":%d`, subID)) {
		t.Errorf("tools/list_changed: %s", note.Params)
	}
	// What the client did not opt into is never sent: the notification
	// after each change is the next one opted into.
	s.ResourceUpdated(context.Background(), "test://unwatched")
	s.ResourceUpdated(context.Background(), "test://watched")
	note = p.next(t)
	if note.Method != mcp.MethodResourceUpdatedNotification || !strings.Contains(string(note.Params), `"uri":"test://watched"`) || !strings.Contains(string(note.Params), "subscriptionId") {
		t.Errorf("after the updates: %s %s, want resources/updated of test://watched", note.Method, note.Params)
	}
	s.ResourceUpdated(context.Background(), "test://unwatched")
	addTool(t, s, "newer", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil })
	if note = p.next(t); note.Method != mcp.MethodToolListChangedNotification {
		t.Errorf("after an unwatched update and a new tool: %s %s, want tools/list_changed", note.Method, note.Params)
	}

	cancel() // the client sends notifications/cancelled
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("listen after cancel: %v", err)
	}
	// The listener is gone: a change reaches nobody and blocks nothing. The
	// client stops waiting at once; the server ends the listener when the
	// cancellation arrives, so wait for that, as long as a test may.
	deadline := time.Now().Add(5 * time.Second)
	for s.listenerCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := s.listenerCount(); n != 0 {
		t.Errorf("%d listeners 5s after the cancel", n)
	}
}

func (s *Server) listenerCount() int {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	return len(s.listeners)
}

func TestLoggingPerRequest(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "log", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelWarning, mcp.LoggingLevelError} {
			if err := Log(ctx, l, "t", string(l)); err != nil {
				return nil, err
			}
		}
		return textOf("logged"), nil
	})
	p := start(t, s)
	if _, err := p.modern(t, "tools/call", "", `"name":"log"`); err != nil {
		t.Fatal(err)
	}
	// Notifications are read before the response that follows them, so
	// any the call caused are queued by now.
	select {
	case n := <-p.notes:
		t.Errorf("a request without logLevel heard %s %s", n.Method, n.Params)
	default:
	}
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"},"name":"log"}`
	if _, err := p.call(t, "tools/call", params); err != nil {
		t.Fatal(err)
	}
	var heard []string
	for range 2 {
		n := p.note(t, mcp.MethodLoggingMessageNotification)
		var m mcp.LoggingMessageNotificationParams
		if err := m.UnmarshalJSON(n.Params); err != nil {
			t.Fatalf("%s: %v", n.Params, err)
		}
		heard = append(heard, string(m.Level))
	}
	if strings.Join(heard, ",") != "warning,error" {
		t.Errorf("heard %v", heard)
	}
}

func TestProgressEchoesTheToken(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "work", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("done"), Progress(ctx, 1, 0, "")
	})
	p := start(t, s)
	params := `{"_meta":{"progressToken":"tok-\u00e9","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"work"}`
	if _, err := p.call(t, "tools/call", params); err != nil {
		t.Fatal(err)
	}
	if n := p.note(t, mcp.MethodProgressNotification); !strings.Contains(string(n.Params), `"progressToken":"tok-\u00e9"`) {
		t.Errorf("progress: %s", n.Params)
	}
}

func TestErrorCodesByEra(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "code", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Code int64 }
		json.Unmarshal(p.Arguments, &in)
		return nil, jsonrpc.NewError(in.Code, "handler code")
	})
	s.AddResourceTemplate(mcp.ResourceTemplate{Name: "t", URITemplate: "test://t/{id}"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
		return nil, ResourceNotFound(p.URI)
	})
	p := start(t, s)
	for _, c := range []struct {
		code, want int64
	}{
		{-32050, jsonrpc.CodeInternalError}, // reserved, undefined
		{-32021, -32021},                    // defined by the spec
		{-32002, jsonrpc.CodeInvalidParams}, // retired in 2026-07-28
		{-32042, jsonrpc.CodeInternalError}, // retired in 2026-07-28
		{-32010, -32010},                    // legacy range: implementation-defined
		{-1, -1},                            // application range
	} {
		_, err := p.modern(t, "tools/call", "", fmt.Sprintf(`"name":"code","arguments":{"code":%d}`, c.code))
		if e := rpcError(t, err); e.Code != c.want {
			t.Errorf("handler code %d reached a 2026-07-28 client as %d", c.code, e.Code)
		}
	}
	for _, uri := range []string{"test://t/1", "test://nothing"} {
		_, err := p.modern(t, "resources/read", "", `"uri":"`+uri+`"`)
		if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidParams || string(e.Data) != `{"uri":"`+uri+`"}` {
			t.Errorf("modern not found %s: %d %s", uri, e.Code, e.Data)
		}
	}
	p.initialize(t, "2025-11-25", "")
	for _, c := range []struct{ code, want int64 }{{-32050, jsonrpc.CodeInternalError}, {-32002, -32002}, {-32042, -32042}} {
		_, err := p.call(t, "tools/call", fmt.Sprintf(`{"name":"code","arguments":{"code":%d}}`, c.code))
		if e := rpcError(t, err); e.Code != c.want {
			t.Errorf("handler code %d reached a 2025-11-25 client as %d", c.code, e.Code)
		}
	}
	_, err := p.call(t, "resources/read", `{"uri":"test://t/1"}`)
	if e := rpcError(t, err); e.Code != CodeResourceNotFound || string(e.Data) != `{"uri":"test://t/1"}` {
		t.Errorf("legacy not found: %d %s", e.Code, e.Data)
	}
}

func TestCapabilitiesMatchHandlers(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	p := start(t, s)
	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list", "completion/complete"} {
		members := ""
		if m == "completion/complete" {
			members = `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}`
		}
		if _, err := p.modern(t, m, "", members); rpcError(t, err).Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s with nothing of the kind registered: %v", m, err)
		}
	}
}

func TestRegistrationRules(t *testing.T) {
	s := newServer(nil)
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return textOf(""), nil }
	refused := []struct{ name, def, want string }{
		{"draft-04", `{"name":"a","inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}}`, "draft-04"},
		{"network $ref", `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}}`, "https://example.com/x.json"},
		{"bad x-mcp-header", `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}}`, "x-mcp-header"},
		{"reserved _meta", `{"name":"a","_meta":{"io.modelcontextprotocol/mine":1},"inputSchema":{"type":"object"}}`, "reserved"},
		{"malformed _meta", `{"name":"a","_meta":{"-bad":1},"inputSchema":{"type":"object"}}`, "-bad"},
		{"deep schema", `{"name":"a","inputSchema":{"type":"object","properties":{"x":` + strings.Repeat(`{"items":`, 80) + `{}` + strings.Repeat(`}`, 80) + `}}}`, "deep"},
	}
	for _, tt := range refused {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			var def mcp.Tool
			if err := json.Unmarshal([]byte(tt.def), &def); err != nil {
				t.Fatal(err)
			}
			if err := s.AddTool(def, h, rawSchemas()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AddTool = %v, want an error naming %q", err, tt.want)
			}
		})
	}
	accepted := []struct{ name, def string }{
		{"draft-07", `{"name":"b","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}`},
		{"x-mcp-header", `{"name":"c","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`},
		{"own _meta", `{"name":"d","_meta":{"com.example/tier":"gold"},"inputSchema":{"type":"object"}}`},
	}
	for _, tt := range accepted {
		t.Run("accepted/"+tt.name, func(t *testing.T) {
			var d mcp.Tool
			if err := json.Unmarshal([]byte(tt.def), &d); err != nil {
				t.Fatal(err)
			}
			if err := s.AddTool(d, h, rawSchemas()); err != nil {
				t.Errorf("AddTool: %v", err)
			}
		})
	}
	if err := s.AddPrompt(mcp.Prompt{Name: "p", Meta: []byte(`{"dev.mcp/x":1}`)}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) { return nil, nil }); err == nil {
		t.Error("a prompt with a reserved _meta key was registered")
	}
}

// TestSpecExampleRequests serves the official 2026-07-28 example requests
// on a stream and checks each answer is a valid result of its method.
func TestSpecExampleRequests(t *testing.T) {
	s := newServer(nil)
	var weather mcp.Tool
	json.Unmarshal([]byte(`{"name":"get_weather","inputSchema":{"type":"object","properties":{"location":{"type":"string"}}}}`), &weather)
	s.AddTool(weather, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("sunny"), nil
	}, rawSchemas())
	s.AddPrompt(mcp.Prompt{Name: "code_review", Arguments: []mcp.PromptArgument{{Name: "code", Required: true}}}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: p.Arguments["code"]}}}}}, nil
	})
	s.AddResource(mcp.Resource{URI: "file:///project/src/main.rs", Name: "main.rs"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: "fn main() {}"}}}}, nil
	})
	p := start(t, s)
	requests := []struct{ file, result string }{
		{"DiscoverRequest/server-discover-request.json", "DiscoverResult"},
		{"GetPromptRequest/get-prompt-request.json", "GetPromptResult"},
		{"ReadResourceRequest/read-resource-request.json", "ReadResourceResult"},
		{"ListPromptsRequest/list-prompts-request.json", "ListPromptsResult"},
	}
	for _, r := range requests {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		readExample(t, r.file, &req)
		out, err := p.call(t, req.Method, string(req.Params))
		if err != nil {
			t.Errorf("%s: %v", r.file, err)
			continue
		}
		checkResult(t, req.Method, out)
	}
	var params json.RawMessage
	readExample(t, "CallToolRequestParams/get-weather-tool-call-params.json", &params)
	out, err := p.call(t, "tools/call", string(params))
	if err != nil || !strings.Contains(string(out), "sunny") {
		t.Fatalf("get_weather: %s %v", out, err)
	}
	checkResult(t, "tools/call", out)
}

// checkResult decodes a result as the method's result type and validates
// it for 2026-07-28.
func checkResult(t *testing.T, method string, out []byte) {
	t.Helper()
	msg, err := mcp.DecodeResult(method, out)
	if err != nil {
		t.Errorf("%s result %s: %v", method, out, err)
		return
	}
	if err := msg.ValidateVersion(mcp.Version20260728); err != nil {
		t.Errorf("%s result %s: %v", method, out, err)
	}
}

// readExample decodes one of the official 2026-07-28 example messages,
// named by its path under the examples folder.
func readExample(t *testing.T, name string, v any) {
	t.Helper()
	dir, err := shared.ExamplesDir("2026-07-28")
	if err != nil {
		t.Fatalf("the official examples: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestResultMetaKeys(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "meta", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Key string }
		json.Unmarshal(p.Arguments, &in)
		r := textOf("x")
		r.Meta = &mcp.ResultMetaObject{Extra: map[string]json.RawMessage{in.Key: json.RawMessage(`1`)}}
		return r, nil
	})
	p := start(t, s)
	out, err := p.modern(t, "tools/call", "", `"name":"meta","arguments":{"key":"com.example/tier"}`)
	if err != nil || !strings.Contains(string(out), `"com.example/tier":1`) || !strings.Contains(string(out), "io.modelcontextprotocol/serverInfo") {
		t.Errorf("own key: %s %v", out, err)
	}
	for _, key := range []string{"io.modelcontextprotocol/tier", "bad key"} {
		_, err := p.modern(t, "tools/call", "", `"name":"meta","arguments":{"key":"`+key+`"}`)
		if e := rpcError(t, err); e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, key) {
			t.Errorf("key %q: %v", key, err)
		}
	}
}

// TestErrorData checks that the data of -32021 and -32022 is valid JSON
// whatever the names in it hold.
func TestErrorData(t *testing.T) {
	for _, name := range []string{"sampling", "x\x7f\"y", "\u2028"} {
		var e *jsonrpc.Error
		if !errors.As(missingCapability(name), &e) {
			t.Fatalf("missingCapability(%q) is no *jsonrpc.Error", name)
		}
		var raw map[string]map[string]json.RawMessage
		if err := json.Unmarshal(e.Data, &raw); err != nil || raw["requiredCapabilities"][name] == nil {
			t.Errorf("missingCapability(%q): data %s does not name it (%v)", name, e.Data, err)
		}
		if !errors.As(unsupportedVersion(name), &e) {
			t.Fatalf("unsupportedVersion(%q) is no *jsonrpc.Error", name)
		}
		var v mcp.UnsupportedProtocolVersionErrorErrorData
		if err := v.UnmarshalJSON(e.Data); err != nil || v.Requested != name || len(v.Supported) == 0 || v.Supported[0] != string(mcp.LatestVersion) {
			t.Errorf("unsupportedVersion(%q): data %s (%v)", name, e.Data, err)
		}
	}
}

// TestListenNeedsNotifications checks that a transport that carries no
// notifications gets an error for subscriptions/listen, not a request that
// waits in silence for ever.
func TestListenNeedsNotifications(t *testing.T) {
	s := newServer(nil)
	echoTool(t, s)
	params := []byte(`{` + modernMeta("") + `,"notifications":{"toolsListChanged":true}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.ServeCall(ctx, &Call{ID: jsonrpc.IntID(1), Method: mcp.MethodSubscriptionsListen, Params: params})
	if e := rpcError(t, err); e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, "notifications") {
		t.Errorf("listen without Out: %v", err)
	}
}
