package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand; safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func newTestStore(t testing.TB, opts Options) (*MemoryStore, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	opts.Now = clock.Now
	return NewMemoryStore(opts), clock
}

func mustCreate(t testing.TB, s Store, owner string, p CreateParams) Task {
	t.Helper()
	task, err := s.Create(context.Background(), owner, p)
	if err != nil {
		t.Fatalf("Create(%q): %v", owner, err)
	}
	return task
}

func complete(t testing.TB, s Store, owner, id string) Task {
	t.Helper()
	task, err := s.Update(context.Background(), owner, id, StatusWorking,
		Change{Status: StatusCompleted, Result: json.RawMessage(`{"content":[]}`)})
	if err != nil {
		t.Fatalf("complete %s: %v", id, err)
	}
	return task
}

// records counts what the store holds in each of its indexes, to show
// memory is released rather than hidden.
func records(m *MemoryStore) (byID, byOwner, expiry int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, list := range m.byOwner {
		byOwner += len(list)
	}
	return len(m.byID), byOwner, len(m.expiry)
}

func TestCreate(t *testing.T) {
	s, clock := newTestStore(t, Options{DefaultTTL: time.Minute, MaxTTL: time.Hour})
	tests := []struct {
		name    string
		params  CreateParams
		wantTTL time.Duration
		wantPI  time.Duration
	}{
		{"asked", CreateParams{TTL: 5 * time.Minute, PollInterval: time.Second}, 5 * time.Minute, time.Second},
		{"default ttl", CreateParams{}, time.Minute, 0},
		{"negative ttl", CreateParams{TTL: -1, PollInterval: -1}, time.Minute, 0},
		{"capped ttl", CreateParams{TTL: 48 * time.Hour}, time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := mustCreate(t, s, "alice", tt.params)
			want := Task{
				ID: task.ID, Owner: "alice", Seq: task.Seq, Status: StatusWorking,
				Created: clock.Now(), Updated: clock.Now(), TTL: tt.wantTTL, PollInterval: tt.wantPI,
			}
			if !reflect.DeepEqual(task, want) {
				t.Errorf("Create = %+v, want %+v", task, want)
			}
			got, err := s.Get(context.Background(), "alice", task.ID)
			if err != nil || !reflect.DeepEqual(got, task) {
				t.Errorf("Get = %+v, %v; want %+v", got, err, task)
			}
		})
	}
	if _, err := s.Create(context.Background(), "", CreateParams{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Create with an empty owner: %v, want ErrInvalid", err)
	}
}

func TestOwnerIsolation(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, Options{})
	mine := mustCreate(t, s, "alice", CreateParams{})
	theirs := mustCreate(t, s, "bob", CreateParams{})
	const missing = "NOSUCHTASKNOSUCHTASKNOSUCH"

	ops := []struct {
		name string
		call func(id string) error
	}{
		{"Get", func(id string) error { _, err := s.Get(ctx, "alice", id); return err }},
		{"Update", func(id string) error {
			_, err := s.Update(ctx, "alice", id, StatusWorking, Change{Status: StatusCancelled})
			return err
		}},
		{"Delete", func(id string) error { return s.Delete(ctx, "alice", id) }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			foreign, absent := op.call(theirs.ID), op.call(missing)
			if !errors.Is(foreign, ErrNotFound) {
				t.Fatalf("%s of another owner's task: %v, want ErrNotFound", op.name, foreign)
			}
			// The same words, so a client cannot tell "exists, not yours".
			if foreign.Error() != absent.Error() {
				t.Errorf("%s: foreign id says %q, missing id says %q", op.name, foreign, absent)
			}
		})
	}
	if got, err := s.Get(ctx, "bob", theirs.ID); err != nil || got.Status != StatusWorking {
		t.Errorf("bob's task after alice's attempts: %+v, %v; want it untouched", got, err)
	}

	page, err := s.List(ctx, "alice", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tasks) != 1 || page.Tasks[0].ID != mine.ID {
		t.Errorf("alice lists %+v, want only %s", page.Tasks, mine.ID)
	}
	if page, _ := s.List(ctx, "carol", "", 0); len(page.Tasks) != 0 {
		t.Errorf("carol lists %+v, want nothing", page.Tasks)
	}
}

func TestExpiry(t *testing.T) {
	ctx := context.Background()
	s, clock := newTestStore(t, Options{})
	running := mustCreate(t, s, "alice", CreateParams{TTL: time.Minute})
	done := mustCreate(t, s, "alice", CreateParams{TTL: 10 * time.Minute})
	clock.Advance(5 * time.Minute)
	finished := complete(t, s, "alice", done.ID)
	if want := clock.Now().Add(10 * time.Minute); !finished.Expires.Equal(want) {
		t.Errorf("Expires = %v, want %v (TTL counted from the terminal status)", finished.Expires, want)
	}

	steps := []struct {
		name        string
		advance     time.Duration
		wantDone    bool
		wantRecords int
	}{
		{"just before the TTL", 10*time.Minute - time.Nanosecond, true, 2},
		{"at the TTL", time.Nanosecond, false, 1},
		{"a running task outlives its TTL", 1000 * time.Hour, false, 1},
	}
	for _, st := range steps {
		clock.Advance(st.advance)
		_, err := s.Get(ctx, "alice", done.ID)
		if gotDone := err == nil; gotDone != st.wantDone {
			t.Errorf("%s: Get of the completed task: %v, want found=%v", st.name, err, st.wantDone)
		} else if !st.wantDone && !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: Get of the expired task: %v, want ErrNotFound", st.name, err)
		}
		if _, err := s.Get(ctx, "alice", running.ID); err != nil {
			t.Errorf("%s: Get of the running task: %v", st.name, err)
		}
		if n := s.Len(); n != st.wantRecords {
			t.Errorf("%s: %d records, want %d", st.name, n, st.wantRecords)
		}
	}
	page, err := s.List(ctx, "alice", "", 0)
	if err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != running.ID {
		t.Errorf("List after expiry = %+v, %v; want only the running task", page.Tasks, err)
	}
}

// TestExpiryUnseen checks that records nobody asks for again are still
// released by later writes, and that List does not show them meanwhile.
func TestExpiryUnseen(t *testing.T) {
	ctx := context.Background()
	s, clock := newTestStore(t, Options{})
	for range 3 * sweepBatch {
		complete(t, s, "alice", mustCreate(t, s, "alice", CreateParams{TTL: time.Minute}).ID)
	}
	clock.Advance(time.Minute)
	if page, err := s.List(ctx, "alice", "", 0); err != nil || len(page.Tasks) != 0 {
		t.Errorf("List of expired tasks = %d tasks, %v; want none", len(page.Tasks), err)
	}
	for range 3 { // each write sweeps sweepBatch
		mustCreate(t, s, "bob", CreateParams{})
	}
	if byID, byOwner, expiry := records(s); byID != 3 || byOwner != 3 || expiry != 0 {
		t.Errorf("records after three writes: %d by id, %d by owner, %d in expiry; want bob's 3, 3, 0", byID, byOwner, expiry)
	}
}

func TestTerminalIsFinal(t *testing.T) {
	ctx := context.Background()
	terminal := []Change{
		{Status: StatusCompleted, Result: json.RawMessage(`{}`)},
		{Status: StatusFailed, Error: &Error{Code: -32603, Message: "boom"}},
		{Status: StatusCancelled, Message: "user asked"},
	}
	next := []Change{
		{Status: StatusWorking},
		{Status: StatusInputRequired, InputRequests: json.RawMessage(`{}`)},
		{Status: StatusCompleted, Result: json.RawMessage(`{"again":true}`)},
		{Status: StatusFailed, Result: json.RawMessage(`{"isError":true}`)},
		{Status: StatusCancelled},
	}
	for _, end := range terminal {
		for _, c := range next {
			t.Run(fmt.Sprintf("%s to %s", end.Status, c.Status), func(t *testing.T) {
				s, clock := newTestStore(t, Options{})
				task := mustCreate(t, s, "alice", CreateParams{})
				final, err := s.Update(ctx, "alice", task.ID, StatusWorking, end)
				if err != nil {
					t.Fatal(err)
				}
				clock.Advance(time.Second)
				// Even a caller that knows the status it is in is refused.
				if _, err := s.Update(ctx, "alice", task.ID, end.Status, c); !errors.Is(err, ErrConflict) {
					t.Errorf("Update from %s: %v, want ErrConflict", end.Status, err)
				}
				if got, _ := s.Get(ctx, "alice", task.ID); !reflect.DeepEqual(got, final) {
					t.Errorf("after the refused update: %+v, want %+v", got, final)
				}
			})
		}
	}
}

func TestCompareAndSet(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, Options{})
	task := mustCreate(t, s, "alice", CreateParams{})
	ask := Change{Status: StatusInputRequired, Message: "which file?", InputRequests: json.RawMessage(`{"r1":{"method":"elicitation/create"}}`)}
	if _, err := s.Update(ctx, "alice", task.ID, StatusInputRequired, ask); !errors.Is(err, ErrConflict) {
		t.Fatalf("Update from the wrong status: %v, want ErrConflict", err)
	}
	got, err := s.Update(ctx, "alice", task.ID, StatusWorking, ask)
	if err != nil || got.Status != StatusInputRequired || string(got.InputRequests) != string(ask.InputRequests) {
		t.Fatalf("Update to input_required = %+v, %v", got, err)
	}
	got, err = s.Update(ctx, "alice", task.ID, StatusInputRequired, Change{Status: StatusWorking, Message: "thanks"})
	if err != nil || got.InputRequests != nil || got.Message != "thanks" {
		t.Fatalf("back to working = %+v, %v; want input requests cleared", got, err)
	}
	if got, err = s.Update(ctx, "alice", task.ID, StatusWorking, Change{Status: StatusWorking, Message: "50%"}); err != nil || got.Message != "50%" {
		t.Fatalf("working to working = %+v, %v", got, err)
	}

	// Replicas racing to finish one task: exactly one wins.
	const racers = 32
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			c := Change{Status: StatusCompleted, Result: json.RawMessage(fmt.Sprintf(`{"by":%d}`, i))}
			if i%2 == 1 {
				c = Change{Status: StatusCancelled}
			}
			_, err := s.Update(ctx, "alice", task.ID, StatusWorking, c)
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, ErrConflict):
				t.Errorf("racer %d: %v, want nil or ErrConflict", i, err)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Errorf("%d racers finished the task, want 1", n)
	}
}

func TestChangeValidate(t *testing.T) {
	ok := json.RawMessage(`{"ok":true}`)
	rpcErr := &Error{Code: -32603, Message: "internal"}
	tests := []struct {
		name  string
		c     Change
		valid bool
	}{
		{"working", Change{Status: StatusWorking, Message: "started"}, true},
		{"input_required", Change{Status: StatusInputRequired, InputRequests: ok}, true},
		{"input_required without requests (2025-11-25)", Change{Status: StatusInputRequired}, true},
		{"completed", Change{Status: StatusCompleted, Result: ok}, true},
		{"failed with an error", Change{Status: StatusFailed, Error: rpcErr}, true},
		{"failed with a result", Change{Status: StatusFailed, Result: ok}, true},
		{"cancelled", Change{Status: StatusCancelled}, true},
		{"unknown status", Change{Status: "paused"}, false},
		{"empty status", Change{}, false},
		{"completed without a result", Change{Status: StatusCompleted}, false},
		{"completed with an error", Change{Status: StatusCompleted, Result: ok, Error: rpcErr}, false},
		{"failed with neither", Change{Status: StatusFailed}, false},
		{"failed with both", Change{Status: StatusFailed, Result: ok, Error: rpcErr}, false},
		{"working with a result", Change{Status: StatusWorking, Result: ok}, false},
		{"cancelled with an error", Change{Status: StatusCancelled, Error: rpcErr}, false},
		{"working with input requests", Change{Status: StatusWorking, InputRequests: ok}, false},
		{"result not JSON", Change{Status: StatusCompleted, Result: json.RawMessage(`{`)}, false},
		{"input requests not JSON", Change{Status: StatusInputRequired, InputRequests: json.RawMessage(`x`)}, false},
		{"error data not JSON", Change{Status: StatusFailed, Error: &Error{Data: json.RawMessage(`[`)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.valid && err != nil {
				t.Errorf("Validate: %v, want nil", err)
			}
			if !tt.valid && !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate: %v, want ErrInvalid", err)
			}
		})
	}
	s, _ := newTestStore(t, Options{})
	task := mustCreate(t, s, "alice", CreateParams{})
	if _, err := s.Update(context.Background(), "alice", task.ID, "paused", Change{Status: StatusWorking}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Update from an unknown status: %v, want ErrInvalid", err)
	}
	if _, err := s.Update(context.Background(), "alice", task.ID, StatusWorking, Change{Status: StatusCompleted}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Update with an invalid change: %v, want ErrInvalid", err)
	}
}

func TestBounds(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		opts   Options
		owners []string // one Create each, in order; the last must fail
		free   func(t *testing.T, s *MemoryStore, clock *fakeClock, first Task)
	}{
		{
			name:   "per owner, freed by expiry",
			opts:   Options{MaxPerOwner: 2, MaxTasks: 10},
			owners: []string{"alice", "alice", "bob", "alice"},
			free: func(t *testing.T, s *MemoryStore, clock *fakeClock, first Task) {
				complete(t, s, first.Owner, first.ID)
				clock.Advance(first.TTL)
			},
		},
		{
			name:   "in total, freed by delete",
			opts:   Options{MaxPerOwner: 10, MaxTasks: 3},
			owners: []string{"alice", "bob", "carol", "dave"},
			free: func(t *testing.T, s *MemoryStore, clock *fakeClock, first Task) {
				if err := s.Delete(ctx, first.Owner, first.ID); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name:   "in total, running tasks count, freed by expiry",
			opts:   Options{MaxPerOwner: 10, MaxTasks: 2},
			owners: []string{"alice", "alice", "bob"},
			free: func(t *testing.T, s *MemoryStore, clock *fakeClock, first Task) {
				complete(t, s, first.Owner, first.ID)
				clock.Advance(first.TTL)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := newTestStore(t, tt.opts)
			last := len(tt.owners) - 1
			var first Task
			for i, owner := range tt.owners[:last] {
				task := mustCreate(t, s, owner, CreateParams{})
				if i == 0 {
					first = task
				}
			}
			owner := tt.owners[last]
			if _, err := s.Create(ctx, owner, CreateParams{}); !errors.Is(err, ErrLimit) {
				t.Fatalf("Create over the bound: %v, want ErrLimit", err)
			}
			tt.free(t, s, clock, first)
			mustCreate(t, s, owner, CreateParams{})
			if n := s.Len(); n != last {
				t.Errorf("%d records after freeing one slot, want %d", n, last)
			}
		})
	}
}

func TestRecordIsPlainData(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, Options{})
	task := mustCreate(t, s, "alice", CreateParams{TTL: time.Minute, PollInterval: time.Second})
	result := json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)
	done, err := s.Update(ctx, "alice", task.ID, StatusWorking, Change{Status: StatusFailed, Message: "tool error",
		Error: &Error{Code: -32000, Message: "tool", Data: json.RawMessage(`{"why":"x"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(done)
	if err != nil {
		t.Fatal(err)
	}
	var back Task
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, done) {
		t.Errorf("JSON round trip = %+v, %v; want %+v\n%s", back, err, done, b)
	}

	// What a caller holds is its own: editing it leaves the store alone.
	other := mustCreate(t, s, "alice", CreateParams{})
	mine := append(json.RawMessage(nil), result...)
	if _, err := s.Update(ctx, "alice", other.ID, StatusWorking, Change{Status: StatusCompleted, Result: mine}); err != nil {
		t.Fatal(err)
	}
	mine[2] = 'X'
	got, _ := s.Get(ctx, "alice", other.ID)
	got.Result[3] = 'Y'
	got, _ = s.Get(ctx, "alice", other.ID)
	if string(got.Result) != string(result) {
		t.Errorf("stored result = %s, want %s", got.Result, result)
	}
}

func TestContextDone(t *testing.T) {
	s, _ := newTestStore(t, Options{})
	task := mustCreate(t, s, "alice", CreateParams{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]error{}
	_, calls["Create"] = s.Create(ctx, "alice", CreateParams{})
	_, calls["Get"] = s.Get(ctx, "alice", task.ID)
	_, calls["Update"] = s.Update(ctx, "alice", task.ID, StatusWorking, Change{Status: StatusCancelled})
	_, calls["List"] = s.List(ctx, "alice", "", 0)
	calls["Delete"] = s.Delete(ctx, "alice", task.ID)
	for name, err := range calls {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a done context: %v, want context.Canceled", name, err)
		}
	}
	if got, err := s.Get(context.Background(), "alice", task.ID); err != nil || got.Status != StatusWorking {
		t.Errorf("task after calls with a done context: %+v, %v; want it untouched", got, err)
	}
}

func TestRealClock(t *testing.T) {
	s := NewMemoryStore(Options{})
	task := mustCreate(t, s, "alice", CreateParams{})
	b, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	var back Task
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, task) {
		t.Errorf("a record on the real clock does not survive JSON: %+v, %v; want %+v", back, err, task)
	}
}
