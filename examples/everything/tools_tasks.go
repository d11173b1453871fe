package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The tools of the tasks scenarios (the io.modelcontextprotocol/tasks
// extension in 2026-07-28, the tasks of 2025-11-25). Each is an ordinary
// handler: task= in its directive has the generated Register add it with
// server.WithTaskSupport, the engine decides whether a call runs as a
// task, and the same code serves it either way.

// greetArgs are the arguments of greet.
type greetArgs struct {
	// Who to greet.
	Name string `json:"name"`
}

// Greets someone by name, synchronously.
//
//mcp:tool name=greet
func greetTool(_ context.Context, in greetArgs) (string, error) {
	return "Hello, " + in.Name + "!", nil
}

// slowComputeArgs are the arguments of slow_compute.
type slowComputeArgs struct {
	// How long the computation takes, in seconds.
	Seconds float64 `json:"seconds" mcp:"minimum=0,maximum=600"`
	// What the result is labelled with.
	Label string `json:"label,omitempty"`
}

// Sleeps for the given seconds, then reports the label; runs as a task when the client supports tasks.
//
//mcp:tool name=slow_compute task=optional
func slowComputeTool(ctx context.Context, in slowComputeArgs) (string, error) {
	if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: computed in %gs", in.Label, in.Seconds), nil
}

// Runs for a second, then reports a tool error; runs only as a task.
//
//mcp:tool name=failing_job task=required
func failingJobTool(ctx context.Context) (string, error) {
	if err := pause(ctx, time.Second); err != nil {
		return "", err
	}
	return "", errors.New("the job failed, as it always does")
}

// Fails with an internal error (its handler panics); runs as a task when the client supports tasks.
//
//mcp:tool name=protocol_error_job task=optional
func protocolErrorJobTool(ctx context.Context) (string, error) {
	if err := pause(ctx, 200*time.Millisecond); err != nil {
		return "", err
	}
	panic("protocol_error_job: a deliberate crash")
}

// confirmDeleteArgs are the arguments of confirm_delete.
type confirmDeleteArgs struct {
	// The file to delete.
	Filename string `json:"filename"`
}

// Asks the user to confirm deleting a file, then reports the answer; runs as a task when the client supports tasks.
//
//mcp:tool name=confirm_delete task=optional
func confirmDeleteTool(ctx context.Context, in confirmDeleteArgs) (string, error) {
	r, action, err := elicitConfirmAnswer(ctx, "Delete "+in.Filename+"?")
	if err != nil {
		return "", err
	}
	if action == mcp.ElicitResultActionAccept && r.Confirm {
		return "Deleted " + in.Filename, nil
	}
	return "Kept " + in.Filename, nil
}

// Asks two questions at once, then reports both answers; runs as a task when the client supports tasks.
//
//mcp:tool name=multi_input task=optional
func multiInputTool(ctx context.Context) (string, error) {
	var (
		wg      sync.WaitGroup
		answers [2]string
		errs    [2]error
	)
	for i := range answers {
		wg.Go(func() {
			r, _, err := elicitNameAnswer(ctx, "Question "+strconv.Itoa(i+1)+": your name?",
				server.InputKey("question_"+strconv.Itoa(i+1)))
			if err == nil {
				answers[i] = r.Name
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return "", err
	}
	return "Answers: " + answers[0] + ", " + answers[1], nil
}

// Asks the user's name in a round of input, then greets them from a task; runs only as a task.
//
//mcp:tool name=test_tool_with_task task=required input-before-task
func taskAfterInputTool(ctx context.Context) (string, error) {
	// input-before-task: in 2026-07-28 the question ends a round of the
	// call itself, and only StartTask, once it is answered, makes the
	// call a task. A legacy session's call is a task from the start, for
	// which StartTask does nothing.
	r, _, err := elicitNameAnswer(ctx, "What is your name?", server.InputKey("user_name"))
	if err != nil {
		return "", err
	}
	name := r.Name
	if err := server.StartTask(ctx); err != nil && !errors.Is(err, server.ErrNotTask) {
		return "", err
	}
	if err := pause(ctx, 200*time.Millisecond); err != nil {
		return "", err
	}
	return "Hello, " + name + ", from a task!", nil
}
