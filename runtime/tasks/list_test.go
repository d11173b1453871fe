package tasks

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// listAll pages through owner's tasks, calling between after each page.
func listAll(t *testing.T, s Store, owner string, limit int, between func()) []Task {
	t.Helper()
	var all []Task
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("List never ends")
		}
		page, err := s.List(context.Background(), owner, cursor, limit)
		if err != nil {
			t.Fatalf("List after %d pages: %v", pages, err)
		}
		if limit > 0 && len(page.Tasks) > limit {
			t.Fatalf("page of %d tasks, limit %d", len(page.Tasks), limit)
		}
		all = append(all, page.Tasks...)
		if page.Next == "" {
			return all
		}
		cursor = page.Next
		between()
	}
}

// checkListing asserts tasks are in creation order without repeats and
// include every id of want, in want's order.
func checkListing(t *testing.T, tasks []Task, want []string) {
	t.Helper()
	seen := make(map[string]bool)
	for i, task := range tasks {
		if seen[task.ID] {
			t.Fatalf("task %s listed twice", task.ID)
		}
		seen[task.ID] = true
		if i > 0 && task.Seq <= tasks[i-1].Seq {
			t.Fatalf("task %d (seq %d) listed after seq %d: not in creation order", i, task.Seq, tasks[i-1].Seq)
		}
	}
	j := 0
	for _, task := range tasks {
		if j < len(want) && task.ID == want[j] {
			j++
		}
	}
	if j != len(want) {
		t.Fatalf("listing holds %d of the %d tasks that existed throughout, in order", j, len(want))
	}
}

func TestListPages(t *testing.T) {
	tests := []struct {
		name      string
		tasks     int
		limit     int
		wantPages int
	}{
		{"empty", 0, 10, 1},
		{"one short page", 3, 10, 1},
		{"exact pages", 20, 10, 2},
		{"last page short", 21, 10, 3},
		{"default limit", DefaultPageSize + 1, 0, 2},
		{"limit capped", 12, 1 << 30, 3}, // MaxPageSize is 5 below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{}
			if tt.limit > 1000 {
				opts.MaxPageSize = 5
			}
			s, _ := newTestStore(t, opts)
			var want []string
			for range tt.tasks {
				want = append(want, mustCreate(t, s, "alice", CreateParams{}).ID)
				mustCreate(t, s, "bob", CreateParams{})
			}
			pages := 0
			got := listAll(t, s, "alice", tt.limit, func() { pages++ })
			if pages+1 != tt.wantPages {
				t.Errorf("%d pages, want %d", pages+1, tt.wantPages)
			}
			if len(got) != len(want) {
				t.Fatalf("listed %d tasks, want %d", len(got), len(want))
			}
			checkListing(t, got, want)
			for _, task := range got {
				if task.Result != nil || task.Error != nil || task.InputRequests != nil {
					t.Errorf("List returned a payload for %s", task.ID)
				}
			}
		})
	}
}

// TestListStable creates, completes, expires and deletes tasks between
// pages: the tasks that exist throughout are each listed once, in order.
func TestListStable(t *testing.T) {
	ctx := context.Background()
	s, clock := newTestStore(t, Options{})
	var want, doomed, late []string
	for i := range 30 {
		task := mustCreate(t, s, "alice", CreateParams{TTL: time.Minute})
		if i%3 == 0 {
			doomed = append(doomed, task.ID)
		} else {
			want = append(want, task.ID)
		}
	}
	step := 0
	got := listAll(t, s, "alice", 4, func() {
		step++
		late = append(late, mustCreate(t, s, "alice", CreateParams{}).ID)
		if len(doomed) > 0 {
			id := doomed[0]
			doomed = doomed[1:]
			if step%2 == 0 {
				if err := s.Delete(ctx, "alice", id); err != nil {
					t.Fatal(err)
				}
			} else {
				complete(t, s, "alice", id)
				clock.Advance(time.Minute)
			}
		}
	})
	// The tasks created while paging come after all the others.
	checkListing(t, got, append(want, late...))
}

func TestListConcurrentCreates(t *testing.T) {
	s, _ := newTestStore(t, Options{})
	var want []string
	for range 100 {
		want = append(want, mustCreate(t, s, "alice", CreateParams{}).ID)
	}
	var wg sync.WaitGroup
	for _, owner := range []string{"alice", "alice", "bob"} {
		wg.Go(func() {
			for range 100 {
				if _, err := s.Create(context.Background(), owner, CreateParams{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	got := listAll(t, s, "alice", 7, func() {})
	wg.Wait()
	checkListing(t, got, want)
	for _, task := range got {
		if task.Owner != "alice" {
			t.Fatalf("alice's listing holds %s of %q", task.ID, task.Owner)
		}
	}
}

func TestListBadCursor(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t, Options{})
	for range 3 {
		mustCreate(t, s, "alice", CreateParams{})
		mustCreate(t, s, "bob", CreateParams{})
	}
	page, err := s.List(ctx, "alice", "", 1)
	if err != nil || page.Next == "" {
		t.Fatalf("first page: %+v, %v", page, err)
	}
	good := page.Next
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	tamper := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	restarted := NewMemoryStore(Options{}) // another random key, as after a restart
	for range 3 {
		mustCreate(t, restarted, "alice", CreateParams{})
	}

	tests := []struct {
		name   string
		store  Store
		owner  string
		cursor string
		why    string
	}{
		{"not base64", s, "alice", "not a cursor!", "malformed"},
		{"truncated", s, "alice", good[:len(good)-4], "malformed"},
		{"too long", s, "alice", good + "AAAA", "malformed"},
		{"wrong version", s, "alice", tamper(0), "malformed"},
		{"position edited", s, "alice", tamper(8), "not issued"},
		{"mac edited", s, "alice", tamper(len(raw) - 1), "not issued"},
		{"another owner's", s, "bob", good, "not issued"},
		{"stale, from another store", restarted, "alice", good, "not issued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := tt.store.List(ctx, tt.owner, tt.cursor, 0)
			if !errors.Is(err, ErrCursor) {
				t.Fatalf("List = %d tasks, %v; want ErrCursor", len(page.Tasks), err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("error %q does not say %q", err, tt.why)
			}
		})
	}

	// A shared key makes one store's cursors good in another, as replicas
	// behind one shared store need.
	key := []byte("replica key")
	a, b := NewMemoryStore(Options{CursorKey: key}), NewMemoryStore(Options{CursorKey: key})
	for range 2 {
		mustCreate(t, a, "alice", CreateParams{})
		mustCreate(t, b, "alice", CreateParams{})
	}
	page, err = a.List(ctx, "alice", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.List(ctx, "alice", page.Next, 1); err != nil {
		t.Errorf("cursor under a shared key: %v", err)
	}
}
