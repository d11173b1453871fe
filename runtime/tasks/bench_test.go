package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkLifecycle measures one task's Create, Update to completed with
// a small result, and Get; the fake clock moves a TTL each iteration so
// the expiry sweep runs as in a long-lived server.
func BenchmarkLifecycle(b *testing.B) {
	ctx := context.Background()
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}],"isError":false}`)
	s, clock := newTestStore(b, Options{DefaultTTL: time.Second})
	b.ReportAllocs()
	for b.Loop() {
		lifecycle(b, ctx, s, "alice", result)
		clock.Advance(time.Second)
	}
}

// BenchmarkLifecycleParallel is BenchmarkLifecycle from GOMAXPROCS
// goroutines, each its own owner, all on the store's one mutex. Each
// deletes its task afterwards instead of moving the shared clock, which
// would expire another goroutine's task between its Update and Get.
func BenchmarkLifecycleParallel(b *testing.B) {
	ctx := context.Background()
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}],"isError":false}`)
	s, _ := newTestStore(b, Options{})
	var owners atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		owner := fmt.Sprintf("owner-%d", owners.Add(1))
		for pb.Next() {
			id := lifecycle(b, ctx, s, owner, result)
			if err := s.Delete(ctx, owner, id); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// lifecycle creates, completes and gets one task, and returns its id.
func lifecycle(b *testing.B, ctx context.Context, s Store, owner string, result json.RawMessage) string {
	task, err := s.Create(ctx, owner, CreateParams{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Update(ctx, owner, task.ID, StatusWorking, Change{Status: StatusCompleted, Result: result}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Get(ctx, owner, task.ID); err != nil {
		b.Fatal(err)
	}
	return task.ID
}
