package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// Two replicas share a store with a lease: a task whose replica is gone
// fails when read once the lease ran out; a task another replica still
// runs does not.
func TestTaskLease(t *testing.T) {
	const lease = 600 * time.Millisecond
	store := tasks.NewMemoryStore(tasks.Options{})
	live := newGate()
	a := taskServer(t, &Options{TaskStore: store, TaskLease: lease}, live)
	b := taskServer(t, &Options{TaskStore: store, TaskLease: lease}, newGate())
	ctx := context.Background()

	raw, err := modernCall(t, ctx, a, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil {
		t.Fatal(err)
	}
	running := decodeTask(t, raw).TaskID
	// A task created by a replica that died at once: nobody refreshes it.
	dead, err := store.Create(ctx, "anonymous", tasks.CreateParams{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	get := func(s *Server, id string) string {
		raw, err := modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+id+`"`)
		if err != nil {
			t.Fatalf("tasks/get %s: %v", id, err)
		}
		return string(raw)
	}
	if got := get(b, dead.ID); !strings.Contains(got, `"status":"working"`) {
		t.Fatalf("a task within its lease: %s", got)
	}
	time.Sleep(lease + lease/2)

	if got := get(b, dead.ID); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, orphanMessage) {
		t.Fatalf("a task past its lease: %s", got)
	}
	if got := get(b, running); !strings.Contains(got, `"status":"working"`) {
		t.Fatalf("a task another replica runs, read past the first lease: %s", got)
	}
	close(live.release)
	waitStatus(t, func() ([]byte, error) {
		return modernCall(t, ctx, b, "tasks/get", tasksCaps, `"taskId":"`+running+`"`)
	}, "completed")
}

// Without a lease a task nobody runs stays as it was.
func TestTaskNoLease(t *testing.T) {
	store := tasks.NewMemoryStore(tasks.Options{})
	s := taskServer(t, &Options{TaskStore: store}, newGate())
	ctx := context.Background()
	rec, err := store.Create(ctx, "anonymous", tasks.CreateParams{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	raw, err := modernCall(t, ctx, s, "tasks/get", tasksCaps, `"taskId":"`+rec.ID+`"`)
	if err != nil || !strings.Contains(string(raw), `"status":"working"`) {
		t.Fatalf("tasks/get without a lease: %s %v", raw, err)
	}
}
