package main

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// mcpgen's client drives the tasks fixtures end to end, over the -stdio
// framing and over Streamable HTTP, in both eras: a task that asks for
// input, one that fails, and one cancelled mid-run.

// taskClient is the recorder's client of era that takes tasks.
func taskClient(rec *recorder, era mcp.Era) *client.Client {
	opts := rec.options()
	opts.Era = era
	opts.Tasks = true
	return client.New(mcp.Implementation{Name: "everything-tasks", Version: "1.0.0"}, opts)
}

// eras are the two the tests run in.
var eras = []struct {
	name string
	era  mcp.Era
}{{"2025-11-25", mcp.EraLegacy}, {"2026-07-28", mcp.EraModern}}

func TestTasksOverStdio(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			rec := &recorder{answer: taskAnswers()}
			_, sess := connectTasks(t, rec, e.era)
			driveTasks(t, sess)
		})
	}
}

func TestTasksOverHTTP(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			ev, err := newEverything(nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(streamable.NewHandler(ev.srv, nil))
			t.Cleanup(srv.Close)
			rec := &recorder{answer: taskAnswers()}
			ctx := testContext(t)
			sess, err := taskClient(rec, e.era).Connect(ctx, streamable.NewClientTransport(srv.URL, nil))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.Close() })
			driveTasks(t, sess)
		})
	}
}

// taskAnswers is what the client answers every elicitation of the tasks
// fixtures with: confirm_delete asks for confirm, the others for a name.
func taskAnswers() map[string]mcp.ElicitResultContentValue {
	return map[string]mcp.ElicitResultContentValue{
		"confirm": {Value: mcp.ElicitResultContentValueBoolean(true)},
		"name":    {Value: mcp.ElicitResultContentValueString("Ada")},
	}
}

// connectTasks serves a fresh everything server over the -stdio framing
// and connects a client of era that takes tasks.
func connectTasks(t *testing.T, rec *recorder, era mcp.Era) (*everything, *client.Session) {
	t.Helper()
	a, b := streamPair()
	return connectClient(t, taskClient(rec, era), a, b)
}

func driveTasks(t *testing.T, sess *client.Session) {
	t.Helper()
	ctx := testContext(t)
	// A call that reads like any other: the task, its question and its
	// result are the client's to handle.
	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "confirm_delete", Arguments: []byte(`{"filename":"a.txt"}`)})
	if err != nil {
		t.Fatalf("confirm_delete: %v", err)
	}
	if got := onlyText(t, res.Content); got != "Deleted a.txt" {
		t.Fatalf("confirm_delete = %q", got)
	}
	// input-before-task: the name is asked before the call becomes a
	// task (in 2026-07-28 in a round of the call itself), and the
	// greeting comes from the task.
	task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "test_tool_with_task"})
	if err != nil {
		t.Fatalf("test_tool_with_task: %v", err)
	}
	if task.ID() == "" {
		t.Error("test_tool_with_task was not run as a task")
	}
	if res, err := task.Wait(ctx); err != nil || onlyText(t, res.Content) != "Hello, Ada, from a task!" {
		t.Errorf("test_tool_with_task = %+v, %v", res, err)
	}
	// A tool error completes the task with an isError result.
	res, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "failing_job"})
	if err != nil || !res.IsError {
		t.Fatalf("failing_job = %+v, %v", res, err)
	}
	// A handle: started, seen running, cancelled, and settled as cancelled.
	task, err = sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "slow_compute", Arguments: []byte(`{"seconds":60,"label":"long"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" {
		t.Fatal("slow_compute was not run as a task")
	}
	if st, err := task.Poll(ctx); err != nil || st != "working" {
		t.Fatalf("poll = %s, %v", st, err)
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("wait after cancel: %v", err)
	}
	// Arguments outside the input schema are answered at once with an
	// isError result, never with a task that fails.
	for _, args := range []string{`{"seconds":601}`, `{"label":"no seconds"}`, `{"seconds":1,"extra":true}`} {
		task, err := sess.StartToolTask(ctx, &mcp.CallToolRequestParams{Name: "slow_compute", Arguments: []byte(args)})
		if err != nil {
			t.Fatalf("slow_compute %s: %v", args, err)
		}
		if task.ID() != "" {
			t.Errorf("slow_compute %s: ran as task %s, want an answer at once", args, task.ID())
		}
		res, err := task.Wait(ctx)
		if err != nil || !res.IsError || !strings.Contains(onlyText(t, res.Content), "invalid arguments for tool slow_compute") {
			t.Errorf("slow_compute %s = %+v, %v; want an isError result naming the tool", args, res, err)
		}
	}
	// A fast task's result comes back whole.
	res, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "slow_compute", Arguments: []byte(`{"seconds":0,"label":"quick"}`)})
	if err != nil || !strings.HasPrefix(onlyText(t, res.Content), "quick:") {
		t.Fatalf("slow_compute 0 = %+v, %v", res, err)
	}
}
