package redis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamable"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// TestRedisDown stops the test's own redis-server under live stores: every
// method must fail with an error that is none of the stores' sentinel
// errors, within a bound set by the client's timeouts and not by the
// context (which has none), and the stores must work again once Redis is
// back on the same address, without a new client.
func TestRedisDown(t *testing.T) {
	srv, err := startServer(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.stop() })
	client := srv.newClient(t)
	ts := NewTaskStore(client, TaskOptions{})
	ss := NewSessionStore(client, SessionOptions{})
	es := NewEventStore(client, EventOptions{})
	ctx := context.Background()
	task := mustCreate(t, ts, "alice", tasks.CreateParams{})

	srv.stop()
	const bound = 5 * time.Second
	for name, call := range map[string]func() error{
		"TaskStore.Create": func() error { _, err := ts.Create(ctx, "alice", tasks.CreateParams{}); return err },
		"TaskStore.Get":    func() error { _, err := ts.Get(ctx, "alice", task.ID); return err },
		"TaskStore.Update": func() error {
			_, err := ts.Update(ctx, "alice", task.ID, tasks.StatusWorking, tasks.Change{Status: tasks.StatusCancelled})
			return err
		},
		"TaskStore.List":      func() error { _, err := ts.List(ctx, "alice", "", 0); return err },
		"TaskStore.Delete":    func() error { return ts.Delete(ctx, "alice", task.ID) },
		"SessionStore.Create": func() error { return ss.Create(ctx, streamable.SessionRecord{ID: "s"}) },
		"SessionStore.Get":    func() error { _, err := ss.Get(ctx, "s"); return err },
		"SessionStore.Update": func() error { return ss.Update(ctx, streamable.SessionRecord{ID: "s"}) },
		"SessionStore.Delete": func() error { return ss.Delete(ctx, "s") },
	} {
		start := time.Now()
		err := call()
		took := time.Since(start)
		switch {
		case err == nil:
			t.Errorf("%s with Redis down succeeded", name)
		case errors.Is(err, tasks.ErrNotFound), errors.Is(err, tasks.ErrConflict), errors.Is(err, streamable.ErrUnknownSession):
			t.Errorf("%s with Redis down: %v; want a connection error, not a store answer", name, err)
		case took > bound:
			t.Errorf("%s with Redis down took %v; want under %v", name, took, bound)
		default:
			t.Logf("%s with Redis down, after %v: %v", name, took.Round(time.Millisecond), err)
		}
	}

	// A caller's deadline shorter than the client's retries wins.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	_, err = ts.Get(short, "alice", task.ID)
	cancel()
	if took := time.Since(start); err == nil || took > time.Second {
		t.Errorf("Get with a 100ms deadline and Redis down = %v after %v; want an error within a second", err, took)
	}

	srv2, err := startServer(srv.dir, srv.addr)
	if err != nil {
		t.Fatalf("restart redis-server on %s: %v", srv.addr, err)
	}
	t.Cleanup(func() { srv2.stop() })
	// The server came back empty (no persistence): the old task is gone,
	// and the same client and stores work again.
	again, err := ts.Create(ctx, "alice", tasks.CreateParams{})
	if err != nil {
		t.Fatalf("Create after Redis returned: %v", err)
	}
	if got, err := ts.Get(ctx, "alice", again.ID); err != nil || got.ID != again.ID {
		t.Errorf("Get after Redis returned = %+v, %v", got, err)
	}
	if _, err := ts.Get(ctx, "alice", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of a task from before the restart: %v; want ErrNotFound", err)
	}
	if err := ss.Create(ctx, streamable.SessionRecord{ID: "s"}); err != nil {
		t.Errorf("SessionStore.Create after Redis returned: %v", err)
	}
	if err := es.Append(ctx, "s", streamable.Event{Seq: 1, Data: []byte("{}")}); err != nil {
		t.Errorf("EventStore.Append after Redis returned: %v", err)
	}
}
