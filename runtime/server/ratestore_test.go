package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// storeServer is a Server with store, a tool "limited" (WithRateLimit one
// call an hour, two at once) and a tool "free", and the count of their
// runs.
func storeServer(t *testing.T, opts Options, store RateLimitStore) (*Server, *atomic.Int64) {
	t.Helper()
	opts.RateLimitStore = store
	s := newServer(&opts)
	var runs atomic.Int64
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return textOf("ran"), nil
	}
	addTool(t, s, "limited", h, WithRateLimit(rate.Every(time.Hour), 2))
	addTool(t, s, "free", h)
	return s, &runs
}

// TestRateLimitStoreShared checks that two Servers sharing a store share
// the limits: the tool's burst and the limit on all calls hold across
// both, for each caller apart.
func TestRateLimitStoreShared(t *testing.T) {
	store := NewMemoryRateLimitStore(0)
	opts := Options{ToolCallLimit: RateLimit{Rate: rate.Every(time.Hour), Burst: 3}}
	a, runsA := storeServer(t, opts, store)
	b, runsB := storeServer(t, opts, store)
	for i, s := range []*Server{a, b} {
		if err := callAs(t, s, "alice", "limited"); err != nil {
			t.Fatalf("call %d of limited: %v", i+1, err)
		}
	}
	err := callAs(t, a, "alice", "limited")
	if e, _ := err.(*RateLimitError); e == nil || !e.PerTool || e.RetryAfter <= 0 || e.RetryAfter > time.Hour {
		t.Fatalf("third call of limited across two servers: %v; want the tool's refusal", err)
	}
	if e := rpcError(t, err); e.Code != CodeRateLimited {
		t.Errorf("refusal code %d, want %d", e.Code, CodeRateLimited)
	}
	// Two calls taken of alice's three: one more call of any tool, then
	// the limit on all calls refuses.
	if err := callAs(t, b, "alice", "free"); err != nil {
		t.Fatalf("third call of alice: %v", err)
	}
	if err := callAs(t, a, "alice", "free"); err == nil {
		t.Fatal("fourth call of alice accepted")
	} else if e, _ := err.(*RateLimitError); e == nil || e.PerTool {
		t.Errorf("fourth call of alice: %v; want the refusal of the limit on all calls", err)
	}
	if got := runsA.Load() + runsB.Load(); got != 3 {
		t.Errorf("handlers ran %d times, want 3", got)
	}
	if err := callAs(t, b, "bob", "limited"); err != nil {
		t.Errorf("bob's first call, after alice's ran out: %v", err)
	}
}

// failingStore fails every Take, after waiting for ctx when block is set.
type failingStore struct {
	block bool
	takes atomic.Int64
}

func (f *failingStore) Take(ctx context.Context, _ RateCheck) (time.Duration, bool, error) {
	f.takes.Add(1)
	if f.block {
		<-ctx.Done()
		return 0, false, ctx.Err()
	}
	return 0, false, errors.New("dial tcp 10.0.0.7:6379: connection refused")
}

// TestRateLimitStoreDown checks that a call whose limits cannot be checked
// is refused with -32603, saying why without the store's details, that
// the handler does not run, that the store's error is logged, and that
// calls no limit applies to never ask the store.
func TestRateLimitStoreDown(t *testing.T) {
	var logged bytes.Buffer
	store := &failingStore{}
	s, runs := storeServer(t, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))}, store)
	err := callAs(t, s, "alice", "limited")
	e := rpcError(t, err)
	if e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "rate limit store is unreachable") ||
		!strings.Contains(e.Message, `"limited"`) || strings.Contains(e.Message, "10.0.0.7") {
		t.Errorf("call with the store down: %d %q", e.Code, e.Message)
	}
	if _, ok := RetryAfter(err); ok {
		t.Error("RetryAfter reads a store failure as a rate limit's refusal")
	}
	if runs.Load() != 0 {
		t.Error("the handler ran though the limits could not be checked")
	}
	if !strings.Contains(logged.String(), "connection refused") {
		t.Errorf("log %q lacks the store's error", logged.String())
	}
	if err := callAs(t, s, "alice", "free"); err != nil {
		t.Errorf("call of a tool with no limit: %v", err)
	}
	if n := store.takes.Load(); n != 1 {
		t.Errorf("store asked %d times, want 1 (never for a tool with no limit)", n)
	}
}

// TestRateLimitStoreContext checks that a store that does not answer holds
// a call no longer than the call's context.
func TestRateLimitStoreContext(t *testing.T) {
	s, runs := storeServer(t, Options{}, &failingStore{block: true})
	ctx, cancel := context.WithTimeout(WithPrincipal(context.Background(), "alice"), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := modernCall(t, ctx, s, "tools/call", "", `"name":"limited"`)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("call accepted though the store never answered")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call still waits for the store long after its context ended")
	}
	if runs.Load() != 0 {
		t.Error("the handler ran though the limits could not be checked")
	}
}

// recordingStore records the checks it is asked and accepts them all.
type recordingStore struct{ checks []RateCheck }

func (r *recordingStore) Take(_ context.Context, c RateCheck) (time.Duration, bool, error) {
	r.checks = append(r.checks, c)
	return 0, false, nil
}

// TestRateCheckCaller checks what a store is asked: the caller named as
// the buckets in memory key it, and the limits that apply.
func TestRateCheckCaller(t *testing.T) {
	store := &recordingStore{}
	all := RateLimit{Rate: 5, Burst: 0}
	s, _ := storeServer(t, Options{ToolCallLimit: all}, store)
	for _, p := range []any{nil, "alice", stringer("bob"), struct{ Sub string }{"carol"}} {
		if err := callAs(t, s, p, "limited"); err != nil {
			t.Fatal(err)
		}
	}
	if err := callAs(t, s, "alice", "free"); err != nil {
		t.Fatal(err)
	}
	tool := RateLimit{Rate: rate.Every(time.Hour), Burst: 2}
	call := RateLimit{Rate: 5, Burst: 1}
	want := []RateCheck{
		{Caller: "a", Tool: "limited", ToolLimit: tool, CallLimit: call},
		{Caller: "s:alice", Tool: "limited", ToolLimit: tool, CallLimit: call},
		{Caller: "t:bob", Tool: "limited", ToolLimit: tool, CallLimit: call},
		{Caller: "d:" + principalDigest(struct{ Sub string }{"carol"}), Tool: "limited", ToolLimit: tool, CallLimit: call},
		{Caller: "s:alice", Tool: "free", CallLimit: call},
	}
	if len(store.checks) != len(want) {
		t.Fatalf("checks %+v, want %+v", store.checks, want)
	}
	for i := range want {
		if store.checks[i] != want[i] {
			t.Errorf("check %d = %+v, want %+v", i, store.checks[i], want[i])
		}
	}
	if got := callerName(callerSession, "owner"); got != "l:owner" {
		t.Errorf("caller of a legacy session = %q", got)
	}
}
