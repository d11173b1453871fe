package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The 2026-07-28 fixtures, spoken to as a stdio client of that era would:
// raw JSON-RPC, no initialize, every request with its _meta. The same
// process answers the legacy tests of everything_test.go.

// modernClient is the client end of a fresh everything server.
type modernClient struct {
	t     *testing.T
	conn  *jsonrpc.Conn
	notes chan *jsonrpc.Request
}

func (c *modernClient) Handle(_ context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		n := *req
		n.Params = append([]byte(nil), req.Params...)
		select {
		case c.notes <- &n:
		default:
		}
		return nil, nil
	}
	c.t.Errorf("the server sent a 2026-07-28 client the request %s", req.Method)
	return nil, jsonrpc.ErrMethodNotFound(req.Method)
}

func connectModern(t *testing.T) (*everything, *modernClient) {
	t.Helper()
	e, err := newEverything(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, a) }()
	c := &modernClient{t: t, notes: make(chan *jsonrpc.Request, 16)}
	c.conn = jsonrpc.NewConn(b, c, jsonrpc.Options{})
	go c.conn.Run(ctx)
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return e, c
}

// call sends a 2026-07-28 request declaring caps, with the params' other
// members, and returns its raw result.
func (c *modernClient) call(method, caps, members string) (json.RawMessage, error) {
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if members != "" {
		params += "," + members
	}
	return c.conn.Call(testContext(c.t), method, []byte(params+"}"))
}

// inputRequired makes a request whose answer must be an
// InputRequiredResult, and decodes it.
func (c *modernClient) inputRequired(method, caps, members string) *mcp.InputRequiredResult {
	t := c.t
	t.Helper()
	out, err := c.call(method, caps, members)
	if err != nil {
		t.Fatal(err)
	}
	var ir mcp.InputRequiredResult
	if err := ir.UnmarshalJSON(out); err != nil || ir.ResultType != "input_required" {
		t.Fatalf("not an InputRequiredResult: %s %v", out, err)
	}
	if err := ir.ValidateVersion(mcp.Version20260728); err != nil {
		t.Errorf("InputRequiredResult: %v", err)
	}
	return &ir
}

// completeText makes a tools/call whose answer must be complete, and
// returns its text.
func (c *modernClient) completeText(caps, members string) string {
	t := c.t
	t.Helper()
	out, err := c.call("tools/call", caps, members)
	if err != nil {
		t.Fatal(err)
	}
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON(out); err != nil || r.ResultType != "complete" || r.IsError {
		t.Fatalf("not a complete result: %s %v", out, err)
	}
	return onlyText(t, r.Content)
}

const allCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

func TestModernElicitationRounds(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_elicitation","arguments":{}`)
	q, ok := ir.InputRequests["user_name"].Value.(*mcp.ElicitRequest)
	if !ok {
		t.Fatalf("inputRequests: %v", ir.InputRequests)
	}
	if form, _ := q.Params.Value.(*mcp.ElicitRequestFormParams); form == nil || form.Message != "What is your name?" {
		t.Errorf("question %+v", q.Params.Value)
	}
	got := c.completeText(allCaps, `"name":"test_input_required_result_elicitation","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+ir.RequestState+`"`)
	if got != "Hello, Alice!" {
		t.Errorf("round 2: %q", got)
	}
}

func TestModernSamplingAndRoots(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_sampling"`)
	if _, ok := ir.InputRequests["capital_question"].Value.(*mcp.CreateMessageRequest); !ok {
		t.Fatalf("inputRequests: %v", ir.InputRequests)
	}
	got := c.completeText(allCaps, `"name":"test_input_required_result_sampling","inputResponses":{"capital_question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"}},"requestState":"`+ir.RequestState+`"`)
	if got != "Paris" {
		t.Errorf("sampling: %q", got)
	}
	ir = c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_list_roots"`)
	if _, ok := ir.InputRequests["client_roots"].Value.(*mcp.ListRootsRequest); !ok {
		t.Fatalf("inputRequests: %v", ir.InputRequests)
	}
	got = c.completeText(allCaps, `"name":"test_input_required_result_list_roots","inputResponses":{"client_roots":{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}},"requestState":"`+ir.RequestState+`"`)
	if !strings.Contains(got, "file:///test/root") {
		t.Errorf("roots: %q", got)
	}
}

func TestModernMultipleAndMultiRound(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_multiple_inputs"`)
	if len(ir.InputRequests) != 3 || ir.RequestState == "" {
		t.Fatalf("one round of three questions: %v", ir.InputRequests)
	}
	got := c.completeText(allCaps, `"name":"test_input_required_result_multiple_inputs","inputResponses":{`+
		`"user_name":{"action":"accept","content":{"name":"Alice"}},`+
		`"greeting":{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"m"},`+
		`"client_roots":{"roots":[{"uri":"file:///r"}]}},"requestState":"`+ir.RequestState+`"`)
	if got != "Hello there!, Alice (roots: file:///r)" {
		t.Errorf("multiple: %q", got)
	}

	ir = c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_multi_round"`)
	if ir.InputRequests["step1"].Value == nil {
		t.Fatalf("round 1: %v", ir.InputRequests)
	}
	ir2 := c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_multi_round","inputResponses":{"step1":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+ir.RequestState+`"`)
	if ir2.InputRequests["step2"].Value == nil || len(ir2.InputRequests) != 1 || ir2.RequestState == ir.RequestState {
		t.Fatalf("round 2: %v", ir2.InputRequests)
	}
	got = c.completeText(allCaps, `"name":"test_input_required_result_multi_round","inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"`+ir2.RequestState+`"`)
	if got != "Alice likes blue" {
		t.Errorf("round 3: %q", got)
	}
}

func TestModernStateChecks(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("tools/call", allCaps, `"name":"test_input_required_result_tampered_state"`)
	answer := `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`
	refused := func(what string, err error) {
		t.Helper()
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
			t.Errorf("%s: %v, want -32602 naming requestState", what, err)
		}
	}
	_, err := c.call("tools/call", allCaps, `"name":"test_input_required_result_tampered_state",`+answer+`,"requestState":"`+ir.RequestState+`-TAMPERED"`)
	refused("a tampered requestState", err)
	// The state of one tool does not complete another.
	_, err = c.call("tools/call", allCaps, `"name":"test_input_required_result_request_state",`+answer+`,"requestState":"`+ir.RequestState+`"`)
	refused("a requestState on another tool", err)
	got := c.completeText(allCaps, `"name":"test_input_required_result_tampered_state",`+answer+`,"requestState":"`+ir.RequestState+`"`)
	if !strings.Contains(got, "state-ok") {
		t.Errorf("the untouched state: %q", got)
	}
}

func TestModernCapabilities(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("tools/call", `{"sampling":{}}`, `"name":"test_input_required_result_capabilities"`)
	for k, v := range ir.InputRequests {
		if _, ok := v.Value.(*mcp.ElicitRequest); ok {
			t.Errorf("asked %s by elicitation, which the client did not declare", k)
		}
	}
	if len(ir.InputRequests) != 1 {
		t.Errorf("inputRequests: %v", ir.InputRequests)
	}
	_, err := c.call("tools/call", `{}`, `"name":"test_missing_capability"`)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeMissingRequiredClientCapability || !strings.Contains(string(e.Data), `"sampling":{}`) {
		t.Errorf("test_missing_capability: %v", err)
	}
}

func TestModernPromptRounds(t *testing.T) {
	_, c := connectModern(t)
	ir := c.inputRequired("prompts/get", allCaps, `"name":"test_input_required_result_prompt"`)
	out, err := c.call("prompts/get", allCaps, `"name":"test_input_required_result_prompt","inputResponses":{"user_context":{"action":"accept","content":{"context":"tests"}}},"requestState":"`+ir.RequestState+`"`)
	if err != nil || !strings.Contains(string(out), "Use this context: tests") || !strings.Contains(string(out), `"resultType":"complete"`) {
		t.Errorf("prompt round 2: %s %v", out, err)
	}
}

func TestModernListChanges(t *testing.T) {
	e, c := connectModern(t)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	go c.conn.Call(ctx, "subscriptions/listen", []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true,"promptsListChanged":true}}`))
	next := func(method string) *jsonrpc.Request {
		for {
			select {
			case n := <-c.notes:
				if n.Method == method {
					return n
				}
			case <-ctx.Done():
				t.Fatalf("no %s", method)
			}
		}
	}
	next(mcp.MethodSubscriptionsAcknowledgedNotification)
	for _, tc := range []struct{ tool, note, entry string }{
		{"test_trigger_tool_change", mcp.MethodToolListChangedNotification, dynamicTool},
		{"test_trigger_prompt_change", mcp.MethodPromptListChangedNotification, dynamicPrompt},
	} {
		for _, want := range []string{"added ", "removed "} {
			if got := c.completeText(`{}`, `"name":"`+tc.tool+`"`); got != want+tc.entry {
				t.Errorf("%s: %q", tc.tool, got)
			}
			if n := next(tc.note); !strings.Contains(string(n.Params), "subscriptionId") {
				t.Errorf("%s: %s", tc.note, n.Params)
			}
		}
	}
	// Both lists are as they were: the suite runs the legacy set next.
	if e.srv.RemoveTool(dynamicTool) || e.srv.RemovePrompt(dynamicPrompt) {
		t.Error("a toggled entry was left behind")
	}
}

// TestRoundToolsInLegacySession runs the multi round-trip tools in a
// legacy session: the same handlers ask their questions as requests.
func TestRoundToolsInLegacySession(t *testing.T) {
	rec := &recorder{answer: map[string]mcp.ElicitResultContentValue{
		"name":  {Value: mcp.ElicitResultContentValueString("Bob")},
		"color": {Value: mcp.ElicitResultContentValueString("blue")},
	}}
	_, sess := connect(t, rec)
	if got := onlyText(t, call(t, sess, "test_input_required_result_elicitation", "").Content); got != "Hello, Bob!" {
		t.Errorf("elicitation: %q", got)
	}
	if got := onlyText(t, call(t, sess, "test_input_required_result_sampling", "").Content); got != "This is a test response from the client" {
		t.Errorf("sampling: %q", got)
	}
	if got := onlyText(t, call(t, sess, "test_input_required_result_multi_round", "").Content); got != "Bob likes blue" {
		t.Errorf("multi round: %q", got)
	}
}
