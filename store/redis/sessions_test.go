package redis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func TestSessionStore(t *testing.T) {
	ctx := context.Background()
	s := NewSessionStore(shared.newClient(t), SessionOptions{Prefix: testPrefix(t)})
	rec := streamable.SessionRecord{
		ID:         "s1",
		Initialize: []byte(`{"protocolVersion":"2025-11-25"}`),
		Created:    time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
	}
	if err := s.Create(ctx, rec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.Create(ctx, rec); err == nil {
		t.Errorf("second Create of one id succeeded; want an error")
	}
	got, err := s.Get(ctx, "s1")
	if err != nil || got.ID != rec.ID || string(got.Initialize) != string(rec.Initialize) || !got.Created.Equal(rec.Created) || got.ProtocolVersion != "" {
		t.Errorf("Get = %+v, %v; want %+v", got, err, rec)
	}
	rec.ProtocolVersion = "2025-11-25"
	rec.Owner, rec.LogLevel, rec.Subscriptions = "string:ada", "error", []string{"file:///a", "file:///b"}
	if err := s.Update(ctx, rec); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, err := s.Get(ctx, "s1"); err != nil || got.ProtocolVersion != "2025-11-25" || got.Owner != rec.Owner || got.Unshared ||
		got.LogLevel != "error" || len(got.Subscriptions) != 2 || got.Subscriptions[1] != "file:///b" {
		t.Errorf("Get after Update = %+v, %v", got, err)
	}
	rec.Unshared = true
	if err := s.Update(ctx, rec); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, err := s.Get(ctx, "s1"); err != nil || !got.Unshared {
		t.Errorf("Get after Update of Unshared = %+v, %v", got, err)
	}
	if err := s.Update(ctx, streamable.SessionRecord{ID: "nope"}); !errors.Is(err, streamable.ErrUnknownSession) {
		t.Errorf("Update of an unknown session: %v; want ErrUnknownSession", err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, streamable.ErrUnknownSession) {
		t.Errorf("Get of an unknown session: %v; want ErrUnknownSession", err)
	}
	if err := s.Delete(ctx, "s1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, "s1"); !errors.Is(err, streamable.ErrUnknownSession) {
		t.Errorf("Get after Delete: %v; want ErrUnknownSession", err)
	}
	if err := s.Delete(ctx, "s1"); err != nil {
		t.Errorf("Delete of an unknown session: %v; want nil", err)
	}
}

// TestSessionIdleTTL checks that a record outlives its idle TTL only when
// it is read or written within it.
func TestSessionIdleTTL(t *testing.T) {
	ctx := context.Background()
	const idle = 300 * time.Millisecond
	s := NewSessionStore(shared.newClient(t), SessionOptions{Prefix: testPrefix(t), IdleTTL: idle})
	for _, id := range []string{"read", "idle"} {
		if err := s.Create(ctx, streamable.SessionRecord{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		time.Sleep(idle / 2)
		if _, err := s.Get(ctx, "read"); err != nil {
			t.Fatalf("Get of a session read every %v: %v", idle/2, err)
		}
	}
	if _, err := s.Get(ctx, "idle"); !errors.Is(err, streamable.ErrUnknownSession) {
		t.Errorf("Get of a session idle for %v: %v; want ErrUnknownSession", 2*idle, err)
	}
}
