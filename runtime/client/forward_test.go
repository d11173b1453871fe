package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// capsOf returns the raw clientCapabilities of a 2026-07-28 request.
func capsOf(t *testing.T, params []byte) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	return string(p.Meta["io.modelcontextprotocol/clientCapabilities"])
}

// TestForward checks that Forward returns a task handle as it came,
// unfollowed, from a tools/call that declared the tasks extension, and
// the raw result of another method.
func TestForward(t *testing.T) {
	sess, f, err := startScripted(t, nil, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		case mcp.MethodCallTool:
			return taskJSON("task", "working", ""), nil
		case "tasks/get":
			return taskJSON("complete", "working", ""), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sess.Forward(timeout(t), mcp.MethodCallTool, []byte(`{"name":"job"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != string(taskJSON("task", "working", "")) {
		t.Errorf("tools/call: %s, want the task handle as it came", raw)
	}
	if !declaresTasks(t, f.requests(mcp.MethodCallTool)[0].params) {
		t.Error("the forwarded tools/call does not declare the tasks extension")
	}
	if raw, err = sess.Forward(timeout(t), "tasks/get", []byte(`{"taskId":"t1"}`)); err != nil || taskIDOf(t, raw) != "t1" {
		t.Errorf("tasks/get: %s %v", raw, err)
	}
	if n := len(f.requests("tasks/get")); n != 1 {
		t.Errorf("%d tasks/get, want the one forwarded: Forward polls nothing", n)
	}
}

// TestWithCapabilities checks that a request declares the capabilities of
// its ctx instead of the Client's, with the tasks extension only where the
// Session adds it.
func TestWithCapabilities(t *testing.T) {
	sess, f := startCallsDone(t)
	tasksExt := `{"extensions":{"` + client.ExtensionTasks + `":{}}}`
	for _, c := range []struct {
		name    string
		caps    string
		forward bool
		want    string
	}{
		{"the client's", "-", false, `{"elicitation":{}}`},
		{"none", ``, false, `{}`},
		{"sampling, as it came", `{"sampling":{ }}`, false, `{"sampling":{ }}`},
		{"tasks dropped", tasksExt, false, `{"extensions":{}}`},
		{"tasks dropped, others kept", `{"extensions":{"x":{},"` + client.ExtensionTasks + `":{}}}`, false, `{"extensions":{"x":{}}}`},
		{"tasks added", `{}`, true, tasksExt},
		{"tasks kept", tasksExt, true, tasksExt},
	} {
		ctx := timeout(t)
		if c.caps != "-" {
			ctx = client.WithCapabilities(ctx, json.RawMessage(c.caps))
		}
		var err error
		if c.forward {
			_, err = sess.Forward(ctx, mcp.MethodCallTool, []byte(`{"name":"x"}`))
		} else {
			_, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "x"})
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		reqs := f.requests(mcp.MethodCallTool)
		if got := capsOf(t, reqs[len(reqs)-1].params); got != c.want {
			t.Errorf("%s: declared %s, want %s", c.name, got, c.want)
		}
	}
}

// TestFlush checks that Flush returns once the callbacks of the
// notifications received before it have run.
func TestFlush(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	release := make(chan struct{})
	var sess *client.Session
	sess, f, err := startScripted(t, &client.Options{OnLog: func(p *mcp.LoggingMessageNotificationParams) {
		<-release
		mu.Lock()
		heard = append(heard, string(p.Data))
		mu.Unlock()
	}}, func(method string, params []byte, n int) ([]byte, error) {
		switch method {
		case mcp.MethodDiscover:
			return []byte(discovered), nil
		}
		return nil, jsonrpc.ErrMethodNotFound(method)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.conn.Notify(context.Background(), mcp.MethodLoggingMessageNotification, []byte(`{"level":"info","data":"one"}`)); err != nil {
		t.Fatal(err)
	}
	// A request answered after the notification: by its return the
	// notification is queued, its callback held.
	if _, err := sess.Ping(timeout(t), nil); err == nil {
		t.Fatal("ping answered")
	}
	done := make(chan error, 1)
	go func() { done <- sess.Flush(timeout(t)) }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 1 || heard[0] != `"one"` {
		t.Fatalf("heard %q by Flush's return", heard)
	}
	// An ended ctx returns at once, with nothing queued or not.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	go func() { done <- sess.Flush(ctx) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Flush with an ended ctx: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Flush with an ended ctx did not return")
	}
}
