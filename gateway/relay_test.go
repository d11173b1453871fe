package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestRelayRound checks that a 2026-07-28 upstream's InputRequiredResult
// reaches a 2026-07-28 client as it came: all its questions at once under
// the upstream's keys, with a requestState of the gateway's that the
// client cannot forge, and that the retry completes the call.
func TestRelayRound(t *testing.T) {
	g := startBridge(t, false)
	d := connectDown(t, g, mcp.EraModern)
	ctx := client.ManualInput(context.Background())
	_, err := d.s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "all"})
	ire, ok := errors.AsType[*client.InputRequiredError](err)
	if !ok {
		t.Fatalf("all: err = %v, want an InputRequiredError", err)
	}
	keys := slices.Sorted(maps.Keys(ire.Result.InputRequests))
	if want := []string{"confirm", "model", "where"}; !slices.Equal(keys, want) {
		t.Fatalf("input requests %q, want %q at once", keys, want)
	}
	if ire.Result.RequestState == "" {
		t.Fatal("no requestState")
	}
	answers := mcp.InputResponses{}
	for k, v := range map[string]mcp.Message{
		"confirm": &mcp.ElicitResult{Action: "accept"},
		"model":   &mcp.CreateMessageResult{Model: "m9", Role: "assistant", Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "x"}}},
		"where":   &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///r"}}},
	} {
		raw, err := v.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var a mcp.InputResponse
		if err := a.UnmarshalJSON(raw); err != nil {
			t.Fatal(err)
		}
		answers[k] = a
	}
	// A forged state is refused by the gateway, never sent upstream.
	_, err = d.s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "all", InputResponses: answers, RequestState: "forged"})
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
		t.Fatalf("forged requestState: err = %v, want -32602 about requestState", err)
	}
	r, err := d.s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "all", InputResponses: answers, RequestState: ire.Result.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := firstText(r); got != "accept/m9/1" {
		t.Fatalf("all after the retry: %q", got)
	}
}

// TestRelayCapabilities checks that the upstream sees the capabilities of
// the gateway's client, not the gateway's own: a client that cannot
// elicit is refused by the upstream, which never asks it.
func TestRelayCapabilities(t *testing.T) {
	g := startBridge(t, false)
	s := connect(t, g, &client.Options{Era: mcp.EraModern})
	_, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "ask"})
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("ask without elicitation: err = %v, want -32021", err)
	}
}

// TestRelayTask checks that a 2026-07-28 client's task on a 2026-07-28
// upstream is the upstream's: its id is wrapped, bound to the caller, and
// tasks/get through the gateway follows it to its result, a round of
// input before the task included.
func TestRelayTask(t *testing.T) {
	g := startBridge(t, false)
	d := connectDown(t, g, mcp.EraModern)
	ctx := context.Background()
	task, err := d.s.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(task.ID(), "up~") {
		t.Fatalf("task id %q, want the upstream's, wrapped", task.ID())
	}
	r, err := task.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := firstText(r); got != "job ran as task" {
		t.Fatalf("job: %q", got)
	}
	task, err = d.s.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "job_ask"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := firstText(r); got != "job_ask as task: accept" {
		t.Fatalf("job_ask: %q", got)
	}

	v := g.virtuals["default"]
	u := v.ups[0]
	alice := server.WithPrincipal(ctx, "alice")
	id := u.wrapTask(alice, "T1")
	if got, up, ok := v.unwrapTask(alice, id); !ok || got != u || up != "T1" {
		t.Fatalf("unwrap for its caller: %v %q %v", got, up, ok)
	}
	if _, _, ok := v.unwrapTask(server.WithPrincipal(ctx, "bob"), id); ok {
		t.Fatal("another caller unwrapped alice's task id")
	}
	if _, _, ok := v.unwrapTask(alice, strings.Replace(id, "T1", "T2", 1)); ok {
		t.Fatal("a task id with another upstream id kept its tag")
	}
}

// TestLocalTasks checks the tasks the gateway runs itself: a legacy
// client's task on a 2026-07-28 upstream, and a 2026-07-28 client's on a
// legacy upstream, whose questions reach the client as the task's.
func TestLocalTasks(t *testing.T) {
	for _, e := range []struct {
		name   string
		down   mcp.Era
		legacy bool
		want   string
	}{
		{"legacy-to-modern", mcp.EraLegacy, false, "job_ask as task: accept"},
		{"modern-to-legacy", mcp.EraModern, true, "job_ask at once: accept"},
	} {
		t.Run(e.name, func(t *testing.T) {
			g := startBridge(t, e.legacy)
			d := connectDown(t, g, e.down)
			ctx := context.Background()
			task, err := d.s.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "job_ask"})
			if err != nil {
				t.Fatal(err)
			}
			if task.ID() == "" || strings.Contains(task.ID(), "~") {
				t.Fatalf("task id %q, want one of the gateway's own", task.ID())
			}
			r, err := task.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := firstText(r); got != e.want {
				t.Fatalf("job_ask: %q, want %q", got, e.want)
			}
		})
	}
}

// TestBridgeRounds drives the era bridge's rounds by hand: a legacy
// upstream's question comes as a round, a retry without its answer is
// asked again, and a call left parked past ParkTimeout is gone, which the
// retry is told.
func TestBridgeRounds(t *testing.T) {
	g := startBridge(t, true)
	d := connectDown(t, g, mcp.EraModern)
	u := g.virtuals["default"].ups[0]
	ctx := client.ManualInput(context.Background())
	round := func(p *mcp.CallToolRequestParams) (*mcp.CallToolResult, *mcp.InputRequiredResult, error) {
		r, err := d.s.CallTool(ctx, p)
		if ire, ok := errors.AsType[*client.InputRequiredError](err); ok {
			return nil, ire.Result, nil
		}
		return r, nil, err
	}
	_, ir, err := round(&mcp.CallToolRequestParams{Name: "ask"})
	if err != nil || ir == nil {
		t.Fatalf("ask: %v %v, want a round", ir, err)
	}
	if keys := slices.Collect(maps.Keys(ir.InputRequests)); !slices.Equal(keys, []string{"elicitation-1"}) {
		t.Fatalf("keys %q", keys)
	}
	_, ir2, err := round(&mcp.CallToolRequestParams{Name: "ask", RequestState: ir.RequestState})
	if err != nil || ir2 == nil || ir2.InputRequests["elicitation-1"].Value == nil || ir2.RequestState == ir.RequestState {
		t.Fatalf("a retry without the answer: %v %v, want the question again with a new state", ir2, err)
	}
	var accept mcp.InputResponse
	if err := accept.UnmarshalJSON([]byte(`{"action":"accept","content":{"name":"Bo"}}`)); err != nil {
		t.Fatal(err)
	}
	r, _, err := round(&mcp.CallToolRequestParams{Name: "ask", RequestState: ir2.RequestState, InputResponses: mcp.InputResponses{"elicitation-1": accept}})
	if err != nil || firstText(r) != "accept:Bo" {
		t.Fatalf("the answered retry: %q %v", firstText(r), err)
	}

	old := ParkTimeout
	ParkTimeout = 20 * time.Millisecond
	t.Cleanup(func() { ParkTimeout = old })
	_, ir, err = round(&mcp.CallToolRequestParams{Name: "ask"})
	if err != nil || ir == nil {
		t.Fatalf("ask: %v %v, want a round", ir, err)
	}
	waitFor(t, func() bool {
		u.mu.Lock()
		defer u.mu.Unlock()
		return len(u.parked) == 0
	}, "the parked call to time out")
	_, _, err = round(&mcp.CallToolRequestParams{Name: "ask", RequestState: ir.RequestState, InputResponses: mcp.InputResponses{"elicitation-1": accept}})
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "ended") {
		t.Fatalf("a retry after the timeout: %v, want -32602 saying the call ended", err)
	}
}

// TestAnswered checks which forward errors are answers, not failures.
func TestAnswered(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{server.ErrInputRequired, true},
		{server.RelayResult(&mcp.Result{ResultType: "task"}), true},
		{errors.New("upstream a: tools/call x: broken"), false},
		{jsonrpc.ErrInvalidParams("invalid params"), false},
		{nil, false},
	} {
		if got := answered(c.err); got != c.want {
			t.Errorf("answered(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestApprovalThenUpstreamQuestion checks that the gateway's own question
// (the approval of a tool marked destructive) and the upstream's come to
// the client one after the other, in every pair of eras, and that the
// approval's answer is the gateway's alone.
func TestApprovalThenUpstreamQuestion(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			env := "{GATEWAY_TEST_BRIDGE: up}"
			if e.legacy {
				env = "{GATEWAY_TEST_BRIDGE: up, GATEWAY_TEST_LEGACY: \"1\"}"
			}
			g, err := startGateway(t, fmt.Sprintf("      - name: up\n        command: [%q]\n        env: %s\n        prefix: \"\"\n", exe, env)+
				"    policy:\n      approval: [{tool: ask, require: true}]\n")
			if err != nil {
				t.Fatal(err)
			}
			d := connectDown(t, g, e.down)
			if got := callText(t, d.s, "ask"); got != "accept:Ada" {
				t.Errorf("ask: %q", got)
			}
			if got := d.snapshot(&d.asked); !slices.Equal(got, []string{"elicit", "elicit"}) {
				t.Errorf("the client was asked %q, want the approval then the upstream's question", got)
			}
		})
	}
}

// TestLocalTaskAudit: a legacy client's task that the gateway runs itself
// gets one audit line, admit's, and not a second one written when the
// engine answered with the task's handle before its handler ran.
func TestLocalTaskAudit(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	up := fmt.Sprintf("      - name: up\n        command: [%q]\n        env: {GATEWAY_TEST_BRIDGE: up}\n        prefix: \"\"\n", exe)
	gv := startGoverned(t, "", up, true, "", nil)
	s := gv.connectAs(t, "", &client.Options{Era: mcp.EraLegacy})
	ctx := context.Background()
	task, err := s.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range gv.auditLines(t) {
		if l["name"] == "job" {
			lines = append(lines, fmt.Sprint(l["decision"], " ", l["reason"]))
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "allowed") {
		t.Fatalf("audit lines of the task's call: %q, want one allowed", lines)
	}
}
