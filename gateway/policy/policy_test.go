package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC)} }

func TestLimiter(t *testing.T) {
	c := newClock()
	l, err := NewLimiter(RateConfig{PerMinute: 60, Burst: 2}, 0, c.now)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		key     string
		advance time.Duration
		ok      bool
	}{
		{"alice", 0, true}, {"alice", 0, true}, {"alice", 0, false}, // burst of 2
		{"bob", 0, true}, // buckets are per key
		{"alice", 500 * time.Millisecond, false},
		{"alice", 500 * time.Millisecond, true}, // one a second refilled
		{"alice", 0, false},
	}
	for i, s := range steps {
		c.add(s.advance)
		err := l.Allow(s.key)
		if (err == nil) != s.ok {
			t.Fatalf("step %d: Allow(%s) = %v, want ok %v", i, s.key, err, s.ok)
		}
		var rl *RateLimitError
		if err != nil && (!errors.As(err, &rl) || rl.RetryAfter <= 0 || rl.RetryAfter > time.Second) {
			t.Errorf("step %d: error %v has no sensible RetryAfter", i, err)
		}
	}
}

func TestLimiterEvicts(t *testing.T) {
	c := newClock()
	l, _ := NewLimiter(RateConfig{PerMinute: 1, Burst: 1}, 2, c.now)
	for _, k := range []string{"a", "b", "a", "c"} { // c evicts b, the least recently used
		_ = l.Allow(k)
	}
	if l.Len() != 2 {
		t.Errorf("Len = %d, want 2", l.Len())
	}
	if l.Allow("a") == nil {
		t.Error("a kept its bucket and should be limited")
	}
	if l.Allow("b") != nil {
		t.Error("b was evicted and should have a full bucket")
	}
}

func TestLimiterConfig(t *testing.T) {
	if l, err := NewLimiter(RateConfig{}, 0, nil); l != nil || err != nil || l.Allow("x") != nil {
		t.Error("no rate should give a nil Limiter that allows")
	}
	if _, err := NewLimiter(RateConfig{PerMinute: -1}, 0, nil); err == nil {
		t.Error("negative rate accepted")
	}
}

func TestSemaphore(t *testing.T) {
	s := NewSemaphore("gh", 1)
	rel, err := s.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Acquire(ctx); err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "upstream gh") {
		t.Errorf("Acquire when full = %v", err)
	}
	rel()
	rel2, err := s.Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire after release = %v", err)
	}
	rel2()
	if r, err := NewSemaphore("x", 0).Acquire(ctx); err != nil {
		t.Error(err)
	} else {
		r()
	}
}

func TestBreaker(t *testing.T) {
	c := newClock()
	b := NewBreaker("gh", BreakerConfig{Failures: 2, Cooldown: 10 * time.Second}, c.now)
	call := func(failed bool) error {
		if err := b.Allow(); err != nil {
			return err
		}
		b.Done(failed)
		return nil
	}
	steps := []struct {
		advance time.Duration
		failed  bool
		refused bool
		state   State
	}{
		{0, true, false, Closed},
		{0, false, false, Closed}, // a success resets the count
		{0, true, false, Closed},
		{0, true, false, Open},
		{5 * time.Second, false, true, Open},
		{5 * time.Second, true, false, Open}, // the probe fails: open again
		{9 * time.Second, false, true, Open},
		{time.Second, false, false, Closed}, // the probe succeeds
	}
	for i, s := range steps {
		c.add(s.advance)
		err := call(s.failed)
		if (err != nil) != s.refused || b.State() != s.state {
			t.Fatalf("step %d: err %v state %v, want refused %v state %v", i, err, b.State(), s.refused, s.state)
		}
		var u *UnavailableError
		if err != nil && (!errors.As(err, &u) || !strings.Contains(err.Error(), "gh is unavailable until 2026-12-03T11:00:")) {
			t.Errorf("step %d: %v", i, err)
		}
	}
	// Half-open lets one probe only.
	b.Done(true)
	b.Done(true)
	c.add(time.Minute)
	if b.Allow() != nil || b.State() != HalfOpen || b.Allow() == nil {
		t.Error("half-open should let exactly one probe through")
	}
	c.add(time.Minute) // the probe never reported: another is let through
	if b.Allow() != nil || b.State() != HalfOpen {
		t.Error("a lost probe should not hold the breaker half-open")
	}
	b.Done(false)
	if b.State() != Closed {
		t.Error("the second probe's success should close it")
	}
	if NewBreaker("x", BreakerConfig{}, nil).Allow() != nil {
		t.Error("disabled breaker refused")
	}
}

func TestBreakerRatio(t *testing.T) {
	c := newClock()
	b := NewBreaker("fs", BreakerConfig{FailureRatio: 0.5, MinCalls: 4, Window: time.Minute, Cooldown: time.Second}, c.now)
	outcome := func(failed ...bool) {
		for _, f := range failed {
			if err := b.Allow(); err != nil {
				t.Fatalf("refused while closed: %v", err)
			}
			b.Done(f)
		}
	}
	outcome(true, false, false) // 1 of 3: too few calls to judge
	if b.State() != Closed {
		t.Fatal("opened before MinCalls")
	}
	c.add(time.Minute) // a new window forgets them
	outcome(true, false, true)
	if b.State() != Closed {
		t.Fatal("opened before MinCalls in the new window")
	}
	outcome(false) // 2 of 4: the ratio is reached only on a failure
	if b.State() != Closed {
		t.Fatal("a success opened it")
	}
	outcome(true) // 3 of 5
	if b.State() != Open {
		t.Fatal("3 failures of 5 should open it")
	}
}

func TestDestructive(t *testing.T) {
	over := []Approval{{Tool: "fs__rm*", Require: true}, {Tool: "db__*", Require: false}}
	tests := []struct {
		name string
		ann  map[string]any
		want bool
	}{
		{"gh__x", nil, true}, // MCP's default: destructive unless said otherwise
		{"gh__x", map[string]any{"readOnlyHint": true}, false},
		{"gh__x", map[string]any{"readOnlyHint": true, "destructiveHint": true}, false},
		{"gh__x", map[string]any{"destructiveHint": false}, false},
		{"gh__x", map[string]any{"destructiveHint": true}, true},
		{"fs__rmdir", map[string]any{"readOnlyHint": true}, true},
		{"db__drop", map[string]any{"destructiveHint": true}, false},
	}
	for _, tt := range tests {
		if got := Destructive(tt.name, tt.ann, over); got != tt.want {
			t.Errorf("Destructive(%s, %v) = %v, want %v", tt.name, tt.ann, got, tt.want)
		}
	}
}
