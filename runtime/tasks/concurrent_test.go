package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrentLifecycles runs 1000 tasks through their whole life at
// once, across owners and with readers listing alongside, then checks by
// counting records that the store lets go of all of them after expiry.
func TestConcurrentLifecycles(t *testing.T) {
	const (
		tasks  = 1000
		owners = 10
		ttl    = time.Minute
	)
	ctx := context.Background()
	s, clock := newTestStore(t, Options{MaxTasks: tasks, MaxPerOwner: tasks / owners})

	var wg sync.WaitGroup
	ids := make([]string, tasks)
	for i := range tasks {
		owner := fmt.Sprintf("owner-%d", i%owners)
		wg.Go(func() {
			task, err := s.Create(ctx, owner, CreateParams{TTL: ttl})
			if err != nil {
				t.Errorf("task %d: Create: %v", i, err)
				return
			}
			ids[i] = task.ID
			steps := []struct {
				from Status
				c    Change
			}{
				{StatusWorking, Change{Status: StatusInputRequired, InputRequests: json.RawMessage(`{"a":{}}`)}},
				{StatusInputRequired, Change{Status: StatusWorking, Message: "resumed"}},
				{StatusWorking, Change{Status: StatusWorking, Message: "half way"}},
				{StatusWorking, finalChange(i)},
			}
			for _, st := range steps {
				if _, err := s.Update(ctx, owner, task.ID, st.from, st.c); err != nil {
					t.Errorf("task %d: Update to %s: %v", i, st.c.Status, err)
					return
				}
				if _, err := s.Get(ctx, owner, task.ID); err != nil {
					t.Errorf("task %d: Get: %v", i, err)
					return
				}
			}
			// A second replica trying to finish it too loses.
			if _, err := s.Update(ctx, owner, task.ID, StatusWorking, Change{Status: StatusCancelled}); !errors.Is(err, ErrConflict) {
				t.Errorf("task %d: second finish: %v, want ErrConflict", i, err)
			}
		})
	}
	for o := range owners {
		owner := fmt.Sprintf("owner-%d", o)
		wg.Go(func() {
			for range 5 {
				cursor := ""
				for {
					page, err := s.List(ctx, owner, cursor, 13)
					if err != nil {
						t.Errorf("%s: List: %v", owner, err)
						return
					}
					for _, task := range page.Tasks {
						if task.Owner != owner {
							t.Errorf("%s lists a task of %s", owner, task.Owner)
						}
					}
					if cursor = page.Next; cursor == "" {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	if byID, byOwner, expiry := records(s); byID != tasks || byOwner != tasks || expiry != tasks {
		t.Fatalf("before expiry: %d by id, %d by owner, %d in expiry; want %d each", byID, byOwner, expiry, tasks)
	}
	// The store is full: with every task retained, Create is refused.
	if _, err := s.Create(ctx, "owner-0", CreateParams{}); !errors.Is(err, ErrLimit) {
		t.Fatalf("Create in a full store: %v, want ErrLimit", err)
	}
	for i, id := range ids {
		task, err := s.Get(ctx, fmt.Sprintf("owner-%d", i%owners), id)
		if err != nil || !task.Status.Terminal() {
			t.Fatalf("task %d before expiry: %+v, %v", i, task, err)
		}
	}

	clock.Advance(ttl)
	// Calls sweep sweepBatch expired records each, whatever they are for.
	calls := (tasks + sweepBatch - 1) / sweepBatch
	for i := range calls {
		if _, err := s.Get(ctx, "owner-0", ids[i*owners]); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of an expired task: %v, want ErrNotFound", err)
		}
	}
	if byID, byOwner, expiry := records(s); byID != 0 || byOwner != 0 || expiry != 0 {
		t.Errorf("after expiry and %d calls: %d by id, %d by owner, %d in expiry; want none", calls, byID, byOwner, expiry)
	}
	s.mu.Lock()
	if n := len(s.byOwner); n != 0 {
		t.Errorf("%d owners still indexed, want none", n)
	}
	s.mu.Unlock()
	// A Create whose owner is full of expired records that a batch does
	// not reach (others expired first) sweeps them all rather than refuse.
	for _, owner := range []string{"early", "late"} {
		for range tasks / owners {
			complete(t, s, owner, mustCreate(t, s, owner, CreateParams{TTL: ttl}).ID)
		}
		clock.Advance(time.Second)
	}
	clock.Advance(ttl)
	mustCreate(t, s, "late", CreateParams{})
	if byID, byOwner, expiry := records(s); byID != 1 || byOwner != 1 || expiry != 0 {
		t.Errorf("after a Create that needed room: %d by id, %d by owner, %d in expiry; want only the new task", byID, byOwner, expiry)
	}
}

func finalChange(i int) Change {
	switch i % 3 {
	case 0:
		return Change{Status: StatusCompleted, Result: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
	case 1:
		return Change{Status: StatusFailed, Error: &Error{Code: -32603, Message: "failed"}}
	default:
		return Change{Status: StatusCancelled, Message: "cancelled by the client"}
	}
}
