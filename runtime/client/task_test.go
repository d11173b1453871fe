package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Tasks against scripted servers: the 2026-07-28 extension, then the
// 2025-11-25 task params.

// taskJSON is a 2026-07-28 task of id t1 in status, as the answer of
// resultType rt, with the members more appended.
func taskJSON(rt, status, more string) []byte {
	s := fmt.Sprintf(`{"resultType":%q,"taskId":"t1","status":%q,"createdAt":"2026-07-28T00:00:00Z","lastUpdatedAt":"2026-07-28T00:00:00Z","ttlMs":60000,"pollIntervalMs":1`, rt, status)
	return []byte(s + more + "}")
}

const doneResult = `{"content":[{"type":"text","text":"done"}]}`

// declaresTasks reports whether a 2026-07-28 request's _meta declares the
// tasks extension.
func declaresTasks(t *testing.T, params []byte) bool {
	t.Helper()
	var p struct {
		Meta struct {
			Caps struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	_, ok := p.Meta.Caps.Extensions[client.ExtensionTasks]
	return ok
}

func taskIDOf(t *testing.T, params []byte) string {
	t.Helper()
	var p struct{ TaskID string }
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	return p.TaskID
}

// startCallsDone starts a 2026-07-28 session with a server that answers
// every tools/call with doneResult.
func startCallsDone(t *testing.T) (*client.Session, *scripted) {
	t.Helper()
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return []byte(doneResult), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	return sess, f
}

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestTaskAnsweredAtOnce(t *testing.T) {
	sess, f := startCallsDone(t)
	ctx := timeout(t)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() != "" || task.Status() != mcp.TaskStatusCompleted {
		t.Errorf("id %q status %q, want a completed call with no id", task.ID(), task.Status())
	}
	res, err := task.Wait(ctx)
	if err != nil || text(t, res) != "done" {
		t.Fatalf("Wait: %+v %v", res, err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Errorf("Cancel of a finished call: %v", err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 1 || !declaresTasks(t, calls[0].params) {
		t.Errorf("StartToolTask must declare the extension: %d calls", len(calls))
	}
	if len(f.requests("tasks/get"))+len(f.requests("tasks/cancel")) != 0 {
		t.Error("a call answered at once has no task to ask about")
	}
	// A plain CallTool of a Client without Options.Tasks declares nothing.
	if _, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "quick"}); err != nil {
		t.Fatal(err)
	}
	if calls := f.requests(mcp.MethodCallTool); declaresTasks(t, calls[1].params) {
		t.Error("CallTool without Options.Tasks declared the extension")
	}
}

func TestTaskCompletesAfterPolls(t *testing.T) {
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			if n < 3 {
				return taskJSON("complete", "working", `,"statusMessage":"step `+fmt.Sprint(n)+`"`), nil
			}
			return taskJSON("complete", "completed", `,"result":`+doneResult), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := timeout(t)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() != "t1" || task.Status() != mcp.TaskStatusWorking {
		t.Fatalf("id %q status %q", task.ID(), task.Status())
	}
	if st, err := task.Poll(ctx); err != nil || st != mcp.TaskStatusWorking || task.StatusMessage() != "step 1" {
		t.Fatalf("Poll: %q %q %v", st, task.StatusMessage(), err)
	}
	start := time.Now()
	res, err := task.Wait(ctx)
	if err != nil || text(t, res) != "done" {
		t.Fatalf("Wait: %+v %v", res, err)
	}
	// The server asks for 1ms between polls; the client keeps the floor.
	if d := time.Since(start); d < 2*client.MinTaskPollInterval {
		t.Errorf("two polls in %v, under twice MinTaskPollInterval", d)
	}
	gets := f.requests("tasks/get")
	if len(gets) != 3 {
		t.Fatalf("%d tasks/get, want 3", len(gets))
	}
	for _, g := range gets {
		if taskIDOf(t, g.params) != "t1" || !declaresTasks(t, g.params) {
			t.Errorf("tasks/get params %s", g.params)
		}
	}
	// The outcome is kept: neither Poll nor Wait asks again.
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := task.Poll(ctx); st != mcp.TaskStatusCompleted || len(f.requests("tasks/get")) != 3 {
		t.Errorf("after the end: status %q, %d tasks/get", st, len(f.requests("tasks/get")))
	}
}

func TestTaskInputThroughHandlers(t *testing.T) {
	opts := &client.Options{
		Tasks: true,
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{"name": {Value: mcp.ElicitResultContentValueString("Ada")}}}, nil
		},
	}
	answered := false
	sess, f, err := startScripted(t, opts, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			if !answered {
				return taskJSON("complete", "input_required", `,"inputRequests":{"q":`+askQ+`}`), nil
			}
			return taskJSON("complete", "completed", `,"result":`+doneResult), nil
		case "tasks/update":
			answered = true
			return []byte(`{"resultType":"complete"}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Options.Tasks: CallTool reads as a plain call.
	res, err := sess.CallTool(timeout(t), &mcp.CallToolRequestParams{Name: "ask"})
	if err != nil || text(t, res) != "done" {
		t.Fatalf("CallTool: %+v %v", res, err)
	}
	if calls := f.requests(mcp.MethodCallTool); !declaresTasks(t, calls[0].params) {
		t.Error("CallTool with Options.Tasks did not declare the extension")
	}
	ups := f.requests("tasks/update")
	if len(ups) != 1 {
		t.Fatalf("%d tasks/update, want 1", len(ups))
	}
	var up struct {
		TaskID         string
		InputResponses map[string]struct {
			Action  string
			Content map[string]string
		}
	}
	if err := json.Unmarshal(ups[0].params, &up); err != nil {
		t.Fatal(err)
	}
	if q := up.InputResponses["q"]; up.TaskID != "t1" || q.Action != "accept" || q.Content["name"] != "Ada" {
		t.Errorf("tasks/update params %s", ups[0].params)
	}
}

func TestTaskFailed(t *testing.T) {
	sess, _, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			return taskJSON("complete", "failed", `,"error":{"code":-32603,"message":"boom","data":{"x":1}}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := timeout(t)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "doomed"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = task.Wait(ctx)
	e, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok || e.Code != -32603 || e.Message != "boom" || string(e.Data) != `{"x":1}` {
		t.Fatalf("Wait: %v, want the task's JSON-RPC error", err)
	}
	if task.Status() != mcp.TaskStatusFailed {
		t.Errorf("status %q", task.Status())
	}
}

func TestTaskCancel(t *testing.T) {
	cancelled := make(chan struct{})
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			select {
			case <-cancelled:
				return taskJSON("complete", "cancelled", `,"statusMessage":"by request"`), nil
			default:
				return taskJSON("complete", "working", ""), nil
			}
		case "tasks/cancel":
			close(cancelled)
			return []byte(`{"resultType":"complete"}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := timeout(t)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "long"})
	if err != nil {
		t.Fatal(err)
	}
	// A Wait whose ctx ends leaves the task running.
	short, stop := context.WithTimeout(ctx, 3*client.MinTaskPollInterval)
	_, err = task.Wait(short)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) || len(f.requests("tasks/cancel")) != 0 {
		t.Fatalf("Wait with a short ctx: %v, %d tasks/cancel", err, len(f.requests("tasks/cancel")))
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if c := f.requests("tasks/cancel"); len(c) != 1 || taskIDOf(t, c[0].params) != "t1" || !declaresTasks(t, c[0].params) {
		t.Fatalf("tasks/cancel: %v", c)
	}
	_, err = task.Wait(ctx)
	if !errors.Is(err, client.ErrTaskCancelled) || !strings.Contains(err.Error(), "by request") {
		t.Fatalf("Wait after Cancel: %v", err)
	}
}

func TestTaskCallToolCtxCancelsTask(t *testing.T) {
	sess, f, err := startScripted(t, &client.Options{Tasks: true}, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			return taskJSON("complete", "working", ""), nil
		case "tasks/cancel":
			return []byte(`{"resultType":"complete"}`), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*client.MinTaskPollInterval)
	defer cancel()
	_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "endless"})
	if err != context.DeadlineExceeded {
		t.Fatalf("CallTool: %v, want ctx.Err()", err)
	}
	if c := f.requests("tasks/cancel"); len(c) != 1 || taskIDOf(t, c[0].params) != "t1" {
		t.Fatalf("tasks/cancel after the ctx ended: %d", len(c))
	}
	if len(f.requests("tasks/get")) == 0 {
		t.Error("CallTool never polled")
	}
}

// legacyTasks answers initialize as a 2025-11-25 server that offers tasks
// for tools/call, and tools/list with a tool that may run as a task and one
// that may not.
func legacyTasks(method string) ([]byte, bool) {
	switch method {
	case mcp.MethodInitialize:
		return []byte(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"legacy","version":"1"},"capabilities":{"tools":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}}`), true
	case mcp.MethodListTools:
		return []byte(`{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"plain","inputSchema":{"type":"object"}}]}`), true
	}
	return nil, false
}

// legacyTask is a 2025-11-25 task of id t1 in status.
func legacyTask(status string) string {
	return fmt.Sprintf(`{"taskId":"t1","status":%q,"createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":60000,"pollInterval":1}`, status)
}

func TestTaskLegacy(t *testing.T) {
	var f *scripted
	opts := &client.Options{Era: mcp.EraLegacy, Tasks: true, TaskTTL: time.Minute}
	sess, f, err := startScripted(t, opts, func(method string, params []byte, n int) ([]byte, error) {
		if raw, ok := legacyTasks(method); ok {
			return raw, nil
		}
		switch method {
		case mcp.MethodCallTool:
			if strings.Contains(string(params), `"task"`) {
				return []byte(`{"task":` + legacyTask("working") + `}`), nil
			}
			return []byte(doneResult), nil
		case "tasks/get":
			if n < 2 {
				return []byte(legacyTask("working")), nil
			}
			return []byte(legacyTask("input_required")), nil
		case "tasks/result":
			// The task asks its question on the session, as a plain call
			// would, and the result follows the answer.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			raw, err := f.conn.Call(ctx, mcp.MethodElicit, []byte(`{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}`))
			if err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"content":[{"type":"text","text":%q}]}`, raw), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := timeout(t)
	if _, err := sess.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow"})
	if err != nil || text(t, res) != `{"action":"accept"}` {
		t.Fatalf("CallTool slow: %+v %v", res, err)
	}
	calls := f.requests(mcp.MethodCallTool)
	var p struct{ Task *struct{ TTL int64 } }
	if err := json.Unmarshal(calls[0].params, &p); err != nil || p.Task == nil || p.Task.TTL != 60000 {
		t.Errorf("tools/call params %s: want task.ttl 60000", calls[0].params)
	}
	if n := len(f.requests("tasks/get")); n != 2 {
		t.Errorf("%d tasks/get, want 2: working, then input_required hands over to tasks/result", n)
	}
	if r := f.requests("tasks/result"); len(r) != 1 || taskIDOf(t, r[0].params) != "t1" {
		t.Errorf("tasks/result: %v", r)
	}
	// A tool whose execution forbids tasks is called plainly.
	res, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "plain"})
	if err != nil || text(t, res) != "done" {
		t.Fatalf("CallTool plain: %+v %v", res, err)
	}
	if calls := f.requests(mcp.MethodCallTool); strings.Contains(string(calls[1].params), `"task"`) {
		t.Errorf("a call of a tool without taskSupport asked for a task: %s", calls[1].params)
	}
}

func TestTaskLegacyFailedAndCancelled(t *testing.T) {
	sess, f, err := startScripted(t, &client.Options{Era: mcp.EraLegacy}, func(method string, params []byte, n int) ([]byte, error) {
		if raw, ok := legacyTasks(method); ok {
			return raw, nil
		}
		name := ""
		if method == mcp.MethodCallTool {
			name = string(params)
		}
		switch {
		case method == mcp.MethodCallTool && strings.Contains(name, `"doomed"`):
			return []byte(`{"task":` + legacyTask("working") + `}`), nil
		case method == mcp.MethodCallTool:
			return []byte(`{"task":` + strings.Replace(legacyTask("working"), "t1", "t2", 1) + `}`), nil
		case method == "tasks/get" && taskIDOfRaw(params) == "t1":
			return []byte(legacyTask("failed")), nil
		case method == "tasks/get":
			return []byte(strings.Replace(legacyTask("working"), "t1", "t2", 1)), nil
		case method == "tasks/result":
			return nil, &jsonrpc.Error{Code: -32603, Message: "boom"}
		case method == "tasks/cancel":
			return []byte(strings.Replace(legacyTask("cancelled"), "t1", "t2", 1)), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := timeout(t)
	// Not listed, so StartToolTask asks for a task: the caller wants one.
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "doomed"})
	if err != nil {
		t.Fatal(err)
	}
	if calls := f.requests(mcp.MethodCallTool); !strings.Contains(string(calls[0].params), `"task":{}`) {
		t.Errorf("StartToolTask params %s: want task {}", calls[0].params)
	}
	_, err = task.Wait(ctx)
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Message != "boom" {
		t.Fatalf("Wait for a failed task: %v", err)
	}
	task, err = sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "long"})
	if err != nil || task.ID() != "t2" {
		t.Fatalf("StartToolTask long: %v", err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("Wait after Cancel: %v", err)
	}
}

func taskIDOfRaw(params []byte) string {
	var p struct{ TaskID string }
	json.Unmarshal(params, &p)
	return p.TaskID
}
