package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// TestTaskStatusNotifications checks notifications/tasks on a
// subscriptions/listen stream: the server agrees only to the requestor's
// own tasks, sends each one's state after the acknowledgement, then each
// change, the last with the result inline.
func TestTaskStatusNotifications(t *testing.T) {
	g := newGate()
	s := taskServer(t, nil, g)
	p := start(t, s)
	ctx := context.Background()

	raw, err := p.modern(t, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	mine := decodeTask(t, raw).TaskID
	raw, err = modernCall(t, WithPrincipal(ctx, "alice"), s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	alices := decodeTask(t, raw).TaskID

	// Without the extension, asking for task notifications is refused.
	if _, err := p.modern(t, "subscriptions/listen", "{}", `"notifications":{"taskIds":["`+mine+`"]}`); code(t, err) != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("listen for tasks without the extension: %v", err)
	}
	if _, err := p.modern(t, "subscriptions/listen", tasksCaps, `"notifications":{"taskIds":"`+mine+`"}`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Fatalf("listen with taskIds not an array: %v", err)
	}

	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Call(lctx, "subscriptions/listen", []byte(`{`+modernMeta(tasksCaps)+`,"notifications":{"taskIds":["`+alices+`","no-such-task","`+mine+`","`+mine+`"]}}`))
		done <- err
	}()
	ack := p.note(t, mcp.MethodSubscriptionsAcknowledgedNotification)
	var params mcp.SubscriptionsAcknowledgedNotificationParams
	if err := params.UnmarshalJSON(ack.Params); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := json.Unmarshal(params.Notifications.Extra["taskIds"], &ids); err != nil || !slices.Equal(ids, []string{mine}) {
		t.Fatalf("acknowledged taskIds %s; want only the requestor's own task, once", ack.Params)
	}

	status := func(want string) mcptasks.DetailedTask {
		t.Helper()
		n := p.note(t, mcptasks.MethodTaskStatusNotification)
		if !strings.Contains(string(n.Params), `"io.modelcontextprotocol/subscriptionId"`) {
			t.Errorf("notifications/tasks without the subscription id: %s", n.Params)
		}
		var d mcptasks.DetailedTask
		if err := d.UnmarshalJSON(n.Params); err != nil {
			t.Fatalf("notifications/tasks params %s: %v", n.Params, err)
		}
		var v taskView
		json.Unmarshal(n.Params, &v)
		if v.TaskID != mine || v.Status != want {
			t.Fatalf("notifications/tasks %s; want task %s %s", n.Params, mine, want)
		}
		return d
	}
	status("working") // the state when listening began
	close(g.release)
	d := status("completed")
	c, ok := d.Value.(*mcptasks.CompletedTask)
	if !ok || !strings.Contains(string(c.Result), `"text":"done"`) {
		t.Fatalf("completed notification %#v; want the result inline", d.Value)
	}
	cancel()
	<-done
}

// TestTaskGetMatchesNotification checks that tasks/get and the
// notification carry the same DetailedTask: one view of a record.
func TestTaskGetMatchesNotification(t *testing.T) {
	g := newGate()
	s := taskServer(t, nil, g)
	ctx := context.Background()
	raw, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	id := decodeTask(t, raw).TaskID
	close(g.release)
	get := func() ([]byte, error) { return modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`) }
	waitStatus(t, get, "completed")
	raw, err = get()
	if err != nil {
		t.Fatal(err)
	}
	var res mcptasks.GetTaskResult
	if err := res.UnmarshalJSON(raw); err != nil {
		t.Fatalf("tasks/get %s does not decode as a GetTaskResult: %v", raw, err)
	}
	if _, ok := res.Value.(*mcptasks.GetTaskResultCompleted); !ok {
		t.Fatalf("tasks/get %s: variant %T", raw, res.Value)
	}
	if err := res.Validate(); err != nil {
		t.Fatalf("tasks/get %s: %v", raw, err)
	}
	if !strings.Contains(string(raw), `"io.modelcontextprotocol/serverInfo":{"name":"tasks"`) {
		t.Errorf("tasks/get %s: no serverInfo in _meta", raw)
	}
	if _, err := modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":7`); code(t, err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/get with a number as taskId: %v", err)
	}
}
