package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"

	gosdkecho "github.com/mcpgen/mcpgen/bench/servers/gosdk/echo"
)

// TestLegacy runs tasks through each server the way the benchmarks do,
// one at a time and many at once; each result is checked to hold the
// echoed text.
func TestLegacy(t *testing.T) {
	for _, s := range Servers {
		t.Run(s.Name, func(t *testing.T) {
			c, err := Open(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := c.Close(); err != nil {
					t.Error(err)
				}
			}()
			for range 3 {
				if err := c.Task(); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Many(100, 16); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestModern(t *testing.T) {
	ctx := context.Background()
	m, err := NewModern()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	for range 3 {
		gets, err := m.Task(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gets < 1 {
			t.Fatalf("%d tasks/get", gets)
		}
	}
	gets, err := m.Many(ctx, 100, 4)
	if err != nil {
		t.Fatal(err)
	}
	if gets < 100 {
		t.Fatalf("%d tasks/get for 100 tasks", gets)
	}
}

// TestCheckedResults shows that a task whose result lacks the text fails,
// so the benchmarks cannot time one.
func TestCheckedResults(t *testing.T) {
	for _, result := range []string{
		`{"content":[{"type":"text","text":"something else"}]}`,
		`{"content":[{"type":"text","text":"` + Text + `"}],"isError":true}`,
	} {
		if err := checkResult([]byte(result)); err == nil {
			t.Errorf("checkResult(%s) = nil", result)
		}
	}
	var sc scanner
	for _, result := range []string{
		`{"content":[{"type":"text","text":"` + Text + `"}]}`, // answered at once, not as a task
		`{"task":{"taskId":"a\"b","status":"working"}}`,
	} {
		if _, err := sc.taskID([]byte(result)); err == nil {
			t.Errorf("taskID(%s) = nil error", result)
		}
	}
}

// TestGoSDKHasNoTasks keeps the reason go-sdk has no row checked: v1.8.0
// answers a tools/call that asks for a task synchronously, with no task,
// and knows none of the tasks/* methods.
func TestGoSDKHasNoTasks(t *testing.T) {
	c, err := Open(context.Background(), Server{"gosdk", gosdkecho.Serve})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	result, err := c.call("tools/call", callParams)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkResult(result); err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if _, err := c.sc.taskID(result); !errors.Is(err, errNoTask) {
		t.Fatalf("tools/call answered %s, taskID: %v; go-sdk may have tasks now", result, err)
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"} {
		_, err := c.call(method, []byte(`{"taskId":"x"}`))
		if err == nil || !strings.Contains(err.Error(), `"code":-32601`) {
			t.Errorf("%s: %v, want method not found; go-sdk may have tasks now", method, err)
		}
	}
}
