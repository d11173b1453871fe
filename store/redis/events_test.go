package redis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

func eventIDs(events []streamable.Event) string {
	var s []string
	for _, e := range events {
		s = append(s, e.ID()+"="+string(e.Data))
		if e.Last {
			s = append(s, "last")
		}
	}
	return fmt.Sprint(s)
}

func TestEventStoreResume(t *testing.T) {
	ctx := context.Background()
	s := NewEventStore(shared.newClient(t), EventOptions{Prefix: testPrefix(t)})
	for _, e := range []streamable.Event{
		{Stream: 0, Seq: 1, Data: []byte(`{"a":1}`)},
		{Stream: 3, Seq: 1, Data: []byte(`{"b":1}`)},
		{Stream: 0, Seq: 2, Data: []byte(`{"a":2}`)},
		{Stream: 0, Seq: 3, Data: []byte(`{"a":3}`)},
		{Stream: 3, Seq: 2, Data: []byte(`{"b":2}`), Last: true},
	} {
		if err := s.Append(ctx, "sess", e); err != nil {
			t.Fatalf("Append %s: %v", e.ID(), err)
		}
	}
	if err := s.Append(ctx, "other", streamable.Event{Stream: 0, Seq: 1, Data: []byte(`{"c":1}`)}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		session     string
		stream, seq uint64
		want        string
	}{
		{"sess", 0, 0, `[0-1={"a":1} 0-2={"a":2} 0-3={"a":3}]`},
		{"sess", 0, 1, `[0-2={"a":2} 0-3={"a":3}]`},
		{"sess", 0, 3, `[]`},
		{"sess", 3, 1, `[3-2={"b":2} last]`},
		{"sess", 7, 0, `[]`},
		{"other", 0, 0, `[0-1={"c":1}]`},
		{"nobody", 0, 0, `[]`},
	} {
		got, err := s.After(ctx, tt.session, tt.stream, tt.seq)
		if err != nil || eventIDs(got) != tt.want {
			t.Errorf("After(%s, %d, %d) = %s, %v; want %s", tt.session, tt.stream, tt.seq, eventIDs(got), err, tt.want)
		}
	}
	if pttl := s.client.PTTL(ctx, s.streamKey("sess", 0)).Val(); pttl <= 0 || pttl > DefaultEventTTL {
		t.Errorf("a stream's PTTL = %v; want within (0, %v]", pttl, DefaultEventTTL)
	}
	if err := s.Forget(ctx, "sess"); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	for _, stream := range []uint64{0, 3} {
		if got, err := s.After(ctx, "sess", stream, 0); err != nil || len(got) != 0 {
			t.Errorf("After(sess, %d) after Forget = %s, %v; want none", stream, eventIDs(got), err)
		}
	}
	if n := s.client.Exists(ctx, s.streamKey("sess", 0), s.streamKey("sess", 3), s.setKey("sess")).Val(); n != 0 {
		t.Errorf("%d of the session's keys outlive Forget", n)
	}
	if got, _ := s.After(ctx, "other", 0, 0); len(got) != 1 {
		t.Errorf("Forget of one session dropped another's events: %s", eventIDs(got))
	}
	if err := s.Forget(ctx, "nobody"); err != nil {
		t.Errorf("Forget of an unknown session: %v", err)
	}
	if err := s.Append(ctx, "sess", streamable.Event{Stream: 0, Seq: 0}); err == nil {
		t.Errorf("Append with Seq 0 succeeded; want an error")
	}
}

// TestEventStoreBounds checks that a stream keeps its newest MaxLen events
// and that a session's events go once it has been idle for the TTL.
func TestEventStoreBounds(t *testing.T) {
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	s := NewEventStore(shared.newClient(t), EventOptions{Prefix: testPrefix(t), MaxLen: 3, TTL: ttl})
	for seq := uint64(1); seq <= 5; seq++ {
		if err := s.Append(ctx, "sess", streamable.Event{Stream: 1, Seq: seq, Data: fmt.Appendf(nil, "%d", seq)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.After(ctx, "sess", 1, 0)
	if want := `[1-3=3 1-4=4 1-5=5]`; err != nil || eventIDs(got) != want {
		t.Errorf("After past MaxLen = %s, %v; want %s", eventIDs(got), err, want)
	}
	time.Sleep(ttl + 100*time.Millisecond)
	if got, err := s.After(ctx, "sess", 1, 0); err != nil || len(got) != 0 {
		t.Errorf("After an idle TTL = %s, %v; want none", eventIDs(got), err)
	}
	if n := s.client.Exists(ctx, s.setKey("sess")).Val(); n != 0 {
		t.Errorf("the session's set of streams outlives its TTL")
	}
}
