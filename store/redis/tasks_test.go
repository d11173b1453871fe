package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// These tests hold TaskStore to the contract runtime/tasks's memory store
// tests check. Expiry runs on Redis's and the process's real clocks, so
// those tests use TTLs of a few hundred milliseconds.

func newTaskStore(t *testing.T, opts TaskOptions) *TaskStore {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = testPrefix(t)
	}
	return NewTaskStore(shared.newClient(t), opts)
}

func mustCreate(t *testing.T, s tasks.Store, owner string, p tasks.CreateParams) tasks.Task {
	t.Helper()
	task, err := s.Create(context.Background(), owner, p)
	if err != nil {
		t.Fatalf("Create(%q): %v", owner, err)
	}
	return task
}

func complete(t *testing.T, s tasks.Store, task tasks.Task) tasks.Task {
	t.Helper()
	done, err := s.Update(context.Background(), task.Owner, task.ID, tasks.StatusWorking,
		tasks.Change{Status: tasks.StatusCompleted, Result: json.RawMessage(`{"ok":true}`)})
	if err != nil {
		t.Fatalf("complete %s: %v", task.ID, err)
	}
	return done
}

func TestTaskLifecycle(t *testing.T) {
	ctx := context.Background()
	s := newTaskStore(t, TaskOptions{DefaultTTL: time.Minute, MaxTTL: time.Hour})

	for _, tt := range []struct {
		p       tasks.CreateParams
		wantTTL time.Duration
		wantPI  time.Duration
	}{
		{tasks.CreateParams{}, time.Minute, 0},
		{tasks.CreateParams{TTL: 5 * time.Minute, PollInterval: time.Second}, 5 * time.Minute, time.Second},
		{tasks.CreateParams{TTL: 48 * time.Hour, PollInterval: -time.Second}, time.Hour, 0},
	} {
		task := mustCreate(t, s, "alice", tt.p)
		if task.TTL != tt.wantTTL || task.PollInterval != tt.wantPI || task.Status != tasks.StatusWorking || len(task.ID) != 26 {
			t.Errorf("Create(%+v) = %+v; want ttl %v, poll %v, working, a 26-character id", tt.p, task, tt.wantTTL, tt.wantPI)
		}
		got, err := s.Get(ctx, "alice", task.ID)
		if err != nil || !equalTasks(got, task) {
			t.Errorf("Get after Create = %+v, %v; want %+v", got, err, task)
		}
	}

	task := mustCreate(t, s, "alice", tasks.CreateParams{})
	steps := []struct {
		from tasks.Status
		c    tasks.Change
	}{
		{tasks.StatusWorking, tasks.Change{Status: tasks.StatusWorking, Message: "halfway"}},
		{tasks.StatusWorking, tasks.Change{Status: tasks.StatusInputRequired, InputRequests: json.RawMessage(`{"a":{"method":"elicitation/create"}}`)}},
		{tasks.StatusInputRequired, tasks.Change{Status: tasks.StatusWorking}},
		{tasks.StatusWorking, tasks.Change{Status: tasks.StatusFailed, Message: "boom", Error: &tasks.Error{Code: -32603, Message: "internal", Data: json.RawMessage(`[1]`)}}},
	}
	for _, st := range steps {
		got, err := s.Update(ctx, "alice", task.ID, st.from, st.c)
		if err != nil {
			t.Fatalf("Update %s -> %s: %v", st.from, st.c.Status, err)
		}
		if got.Status != st.c.Status || got.Message != st.c.Message ||
			string(got.InputRequests) != string(st.c.InputRequests) || string(got.Result) != string(st.c.Result) ||
			fmt.Sprint(got.Error) != fmt.Sprint(st.c.Error) || got.Created != task.Created || got.Updated.Before(task.Created) {
			t.Errorf("Update %s -> %+v = %+v", st.from, st.c, got)
		}
		back, err := s.Get(ctx, "alice", task.ID)
		if err != nil || !equalTasks(back, got) {
			t.Errorf("Get after Update = %+v, %v; want %+v", back, err, got)
		}
	}
	failed, _ := s.Get(ctx, "alice", task.ID)
	if want := failed.Updated.Add(failed.TTL); !failed.Expires.Equal(want) {
		t.Errorf("terminal Expires = %v; want Updated+TTL %v", failed.Expires, want)
	}
	page, err := s.List(ctx, "alice", "", 0)
	if err != nil || len(page.Tasks) != 4 {
		t.Fatalf("List = %+v, %v; want 4 tasks", page, err)
	}
	for _, lt := range page.Tasks {
		if lt.Error != nil || lt.Result != nil || lt.InputRequests != nil {
			t.Errorf("List returned a payload: %+v", lt)
		}
	}
	if last := page.Tasks[3]; last.ID != task.ID || last.Status != tasks.StatusFailed || last.Message != "boom" || !last.Expires.Equal(failed.Expires) {
		t.Errorf("List's last task = %+v; want the failed one %+v without payload", last, failed)
	}
	if err := s.Delete(ctx, "alice", task.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, "alice", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get after Delete: %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "alice", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("second Delete: %v; want ErrNotFound", err)
	}
}

func equalTasks(a, b tasks.Task) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestTaskOwnerIsolation(t *testing.T) {
	ctx := context.Background()
	s := newTaskStore(t, TaskOptions{})
	task := mustCreate(t, s, "alice", tasks.CreateParams{})
	mustCreate(t, s, "alice", tasks.CreateParams{})

	if _, err := s.Get(ctx, "bob", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("bob's Get of alice's task: %v; want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "bob", task.ID, tasks.StatusWorking, tasks.Change{Status: tasks.StatusCancelled}); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("bob's Update of alice's task: %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "bob", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("bob's Delete of alice's task: %v; want ErrNotFound", err)
	}
	if page, err := s.List(ctx, "bob", "", 0); err != nil || len(page.Tasks) != 0 {
		t.Errorf("bob's List = %+v, %v; want empty", page, err)
	}
	page, err := s.List(ctx, "alice", "", 1)
	if err != nil || page.Next == "" {
		t.Fatalf("alice's first page = %+v, %v; want a next cursor", page, err)
	}
	if _, err := s.List(ctx, "bob", page.Next, 1); !errors.Is(err, tasks.ErrCursor) {
		t.Errorf("bob's List with alice's cursor: %v; want ErrCursor", err)
	}
	if got, err := s.Get(ctx, "alice", task.ID); err != nil || got.Status != tasks.StatusWorking {
		t.Errorf("alice's task after bob's attempts = %+v, %v; want it untouched", got, err)
	}
	if _, err := s.Create(ctx, "", tasks.CreateParams{}); !errors.Is(err, tasks.ErrInvalid) {
		t.Errorf("Create with an empty owner: %v; want ErrInvalid", err)
	}
}

func TestTaskCompareAndSet(t *testing.T) {
	ctx := context.Background()
	s := newTaskStore(t, TaskOptions{})
	task := mustCreate(t, s, "alice", tasks.CreateParams{})

	if _, err := s.Update(ctx, "alice", task.ID, tasks.StatusInputRequired, tasks.Change{Status: tasks.StatusWorking}); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("Update from the wrong status: %v; want ErrConflict", err)
	}
	if got, _ := s.Get(ctx, "alice", task.ID); !equalTasks(got, task) {
		t.Errorf("a conflicting Update changed the task: %+v; want %+v", got, task)
	}
	for _, bad := range []struct {
		from tasks.Status
		c    tasks.Change
	}{
		{"done", tasks.Change{Status: tasks.StatusWorking}},
		{tasks.StatusWorking, tasks.Change{Status: "done"}},
		{tasks.StatusWorking, tasks.Change{Status: tasks.StatusCompleted}},
		{tasks.StatusWorking, tasks.Change{Status: tasks.StatusWorking, Result: json.RawMessage(`{}`)}},
	} {
		if _, err := s.Update(ctx, "alice", task.ID, bad.from, bad.c); !errors.Is(err, tasks.ErrInvalid) {
			t.Errorf("Update(%s, %+v): %v; want ErrInvalid", bad.from, bad.c, err)
		}
	}
	complete(t, s, task)
	for _, from := range []tasks.Status{tasks.StatusWorking, tasks.StatusCompleted} {
		for _, to := range []tasks.Status{tasks.StatusWorking, tasks.StatusCancelled} {
			if _, err := s.Update(ctx, "alice", task.ID, from, tasks.Change{Status: to}); !errors.Is(err, tasks.ErrConflict) {
				t.Errorf("Update of a completed task (%s -> %s): %v; want ErrConflict", from, to, err)
			}
		}
	}
	if _, err := s.Update(ctx, "alice", "NOSUCHTASK", tasks.StatusWorking, tasks.Change{Status: tasks.StatusCancelled}); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update of a missing task: %v; want ErrNotFound", err)
	}
}

func TestTaskExpiry(t *testing.T) {
	ctx := context.Background()
	s := newTaskStore(t, TaskOptions{})
	const ttl = 300 * time.Millisecond
	short := mustCreate(t, s, "alice", tasks.CreateParams{TTL: ttl})
	running := mustCreate(t, s, "alice", tasks.CreateParams{TTL: ttl})
	done := complete(t, s, short)

	if _, err := s.Get(ctx, "alice", short.ID); err != nil {
		t.Fatalf("Get before the TTL: %v", err)
	}
	if pttl := s.client.PTTL(ctx, s.recordKey(short.ID)).Val(); pttl <= 0 || pttl > ttl {
		t.Errorf("a terminal record's PTTL = %v; want within (0, %v]", pttl, ttl)
	}
	if pttl := s.client.PTTL(ctx, s.recordKey(running.ID)).Val(); pttl != -1 {
		t.Errorf("a running record's PTTL = %v; want none (-1)", pttl)
	}
	time.Sleep(time.Until(done.Expires) + 50*time.Millisecond)

	if _, err := s.Get(ctx, "alice", short.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get after the TTL: %v; want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "alice", short.ID, tasks.StatusCompleted, tasks.Change{Status: tasks.StatusCancelled}); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update after the TTL: %v; want ErrNotFound", err)
	}
	page, err := s.List(ctx, "alice", "", 0)
	if err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != running.ID {
		t.Errorf("List after the TTL = %+v, %v; want only the running task", page, err)
	}
	// The calls above swept the expired task from both indexes.
	if n := s.client.ZCard(ctx, s.ownerKey("alice")).Val(); n != 1 {
		t.Errorf("owner index holds %d entries after expiry; want 1", n)
	}
	if n := s.client.ZCard(ctx, s.allKey()).Val(); n != 1 {
		t.Errorf("store index holds %d entries after expiry; want 1", n)
	}
	if n := s.client.Exists(ctx, s.recordKey(short.ID)).Val(); n != 0 {
		t.Errorf("the expired record is still in Redis")
	}
	if got, err := s.Get(ctx, "alice", running.ID); err != nil || got.Status != tasks.StatusWorking {
		t.Errorf("a running task past its TTL = %+v, %v; want it kept (the TTL counts from the end)", got, err)
	}
}

func TestTaskBounds(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts TaskOptions
		// free makes room for one more of alice's tasks.
		free func(t *testing.T, s *TaskStore, first tasks.Task)
	}{
		{"per owner, freed by expiry", TaskOptions{MaxPerOwner: 3}, func(t *testing.T, s *TaskStore, first tasks.Task) {
			done := complete(t, s, first)
			time.Sleep(time.Until(done.Expires) + 50*time.Millisecond)
		}},
		{"per owner, freed by delete", TaskOptions{MaxPerOwner: 3}, func(t *testing.T, s *TaskStore, first tasks.Task) {
			if err := s.Delete(ctx, "alice", first.ID); err != nil {
				t.Fatal(err)
			}
		}},
		{"in all, freed by expiry", TaskOptions{MaxTasks: 3}, func(t *testing.T, s *TaskStore, first tasks.Task) {
			done := complete(t, s, first)
			time.Sleep(time.Until(done.Expires) + 50*time.Millisecond)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTaskStore(t, tt.opts)
			first := mustCreate(t, s, "alice", tasks.CreateParams{TTL: 200 * time.Millisecond})
			mustCreate(t, s, "alice", tasks.CreateParams{})
			mustCreate(t, s, "alice", tasks.CreateParams{})
			if _, err := s.Create(ctx, "alice", tasks.CreateParams{}); !errors.Is(err, tasks.ErrLimit) {
				t.Fatalf("Create past the bound: %v; want ErrLimit", err)
			}
			other, err := s.Create(ctx, "bob", tasks.CreateParams{})
			if tt.opts.MaxTasks > 0 {
				if !errors.Is(err, tasks.ErrLimit) {
					t.Errorf("another owner's Create past the total bound: %v; want ErrLimit", err)
				}
			} else if err != nil {
				t.Errorf("another owner's Create under its own bound: %v", err)
			} else {
				s.Delete(ctx, "bob", other.ID)
			}
			tt.free(t, s, first)
			if _, err := s.Create(ctx, "alice", tasks.CreateParams{}); err != nil {
				t.Errorf("Create after freeing a slot: %v", err)
			}
		})
	}
}

func TestTaskListPages(t *testing.T) {
	ctx := context.Background()
	s := newTaskStore(t, TaskOptions{PageSize: 4, MaxPageSize: 5})
	var want []string
	for range 7 {
		want = append(want, mustCreate(t, s, "alice", tasks.CreateParams{}).ID)
		mustCreate(t, s, "bob", tasks.CreateParams{})
	}
	for _, tt := range []struct {
		limit int
		sizes []int
	}{
		{0, []int{4, 3}}, // the default page size
		{3, []int{3, 3, 1}},
		{7, []int{5, 2}}, // capped at MaxPageSize
		{1, []int{1, 1, 1, 1, 1, 1, 1}},
	} {
		var got []string
		var sizes []int
		cursor := ""
		for {
			page, err := s.List(ctx, "alice", cursor, tt.limit)
			if err != nil {
				t.Fatalf("List(limit %d): %v", tt.limit, err)
			}
			sizes = append(sizes, len(page.Tasks))
			for _, task := range page.Tasks {
				got = append(got, task.ID)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(sizes) != fmt.Sprint(tt.sizes) {
			t.Errorf("List(limit %d) pages %v of %v; want %v of %v", tt.limit, sizes, got, tt.sizes, want)
		}
	}

	// Tasks created and deleted while a client pages: the new ones come
	// after the ones it has seen, the deleted ones are skipped, and no
	// task is repeated.
	page, err := s.List(ctx, "alice", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "alice", want[3]); err != nil {
		t.Fatal(err)
	}
	added := mustCreate(t, s, "alice", tasks.CreateParams{})
	rest, err := s.List(ctx, "alice", page.Next, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range rest.Tasks {
		got = append(got, task.ID)
	}
	if wantRest := append(append([]string{}, want[4:]...), added.ID); fmt.Sprint(got) != fmt.Sprint(wantRest) || rest.Next != "" {
		t.Errorf("second page after a delete and a create = %v (next %q); want %v", got, rest.Next, wantRest)
	}
}

func TestTaskListBadCursor(t *testing.T) {
	ctx := context.Background()
	key := []byte("a key both replicas share")
	s := newTaskStore(t, TaskOptions{CursorKey: key})
	for range 3 {
		mustCreate(t, s, "alice", tasks.CreateParams{})
	}
	page, err := s.List(ctx, "alice", "", 1)
	if err != nil || page.Next == "" {
		t.Fatalf("List = %+v, %v", page, err)
	}
	// A replica with the same prefix and key takes the cursor.
	replica := NewTaskStore(shared.newClient(t), TaskOptions{Prefix: s.opts.Prefix, CursorKey: key})
	if next, err := replica.List(ctx, "alice", page.Next, 1); err != nil || len(next.Tasks) != 1 {
		t.Errorf("a replica's List with the cursor = %+v, %v; want the next task", next, err)
	}
	forged := []byte(page.Next)
	forged[3] ^= 1
	otherKey := NewTaskStore(shared.newClient(t), TaskOptions{Prefix: s.opts.Prefix, CursorKey: []byte("another key")})
	for _, tt := range []struct {
		name   string
		s      *TaskStore
		owner  string
		cursor string
	}{
		{"not base64", s, "alice", "!!!"},
		{"too short", s, "alice", "AQ"},
		{"forged", s, "alice", string(forged)},
		{"another owner's", s, "bob", page.Next},
		{"another key's", otherKey, "alice", page.Next},
	} {
		if _, err := tt.s.List(ctx, tt.owner, tt.cursor, 1); !errors.Is(err, tasks.ErrCursor) {
			t.Errorf("%s cursor: %v; want ErrCursor", tt.name, err)
		}
	}
}

// TestTaskConcurrent runs 200 goroutines on one store: each creates a task
// and drives it to a terminal status while, on a shared task, all of them
// race the same compare-and-set, which exactly one must win.
func TestTaskConcurrent(t *testing.T) {
	ctx := context.Background()
	const n = 200
	s := newTaskStore(t, TaskOptions{MaxTasks: n + 1, MaxPerOwner: n})
	contested := mustCreate(t, s, "shared", tasks.CreateParams{})
	var wins atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			owner := fmt.Sprintf("owner%d", i%10)
			_, err := s.Update(ctx, "shared", contested.ID, tasks.StatusWorking,
				tasks.Change{Status: tasks.StatusCompleted, Result: json.RawMessage(fmt.Sprintf(`{"winner":%d}`, i))})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, tasks.ErrConflict):
				errs <- fmt.Errorf("contested Update: %v", err)
			}
			task, err := s.Create(ctx, owner, tasks.CreateParams{})
			if err != nil {
				errs <- err
				return
			}
			for _, step := range []struct {
				from tasks.Status
				c    tasks.Change
			}{
				{tasks.StatusWorking, tasks.Change{Status: tasks.StatusInputRequired, InputRequests: json.RawMessage(`{}`)}},
				{tasks.StatusInputRequired, tasks.Change{Status: tasks.StatusWorking}},
				{tasks.StatusWorking, tasks.Change{Status: tasks.StatusCompleted, Result: json.RawMessage(`{}`)}},
			} {
				if _, err := s.Update(ctx, owner, task.ID, step.from, step.c); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if w := wins.Load(); w != 1 {
		t.Errorf("%d goroutines won the same compare-and-set; want exactly 1", w)
	}
	total := 0
	for i := range 10 {
		cursor := ""
		for {
			page, err := s.List(ctx, fmt.Sprintf("owner%d", i), cursor, 7)
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range page.Tasks {
				if task.Status != tasks.StatusCompleted {
					t.Errorf("task %s is %s; want completed", task.ID, task.Status)
				}
			}
			total += len(page.Tasks)
			if cursor = page.Next; cursor == "" {
				break
			}
		}
	}
	if total != n {
		t.Errorf("the owners list %d tasks; want %d", total, n)
	}
}
