package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// rateServer is a Server on a fake clock with the tools limited (one call
// a minute per caller, two at once) and free, and counts of their runs.
func rateServer(t *testing.T, opts *Options) (*Server, *fakeClock, map[string]*atomic.Int64) {
	t.Helper()
	s := newServer(opts)
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	s.rates.now = clock.Now
	runs := map[string]*atomic.Int64{"limited": {}, "free": {}}
	for name, n := range runs {
		var opts []ToolOption
		if name == "limited" {
			opts = append(opts, WithRateLimit(rate.Every(time.Minute), 2))
		}
		addTool(t, s, name, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			n.Add(1)
			return textOf("ran"), nil
		}, opts...)
	}
	return s, clock, runs
}

// callAs calls the tool name as a 2026-07-28 request of principal, nil for
// an anonymous one.
func callAs(t *testing.T, s *Server, principal any, name string) error {
	t.Helper()
	_, err := modernCall(t, WithPrincipal(context.Background(), principal), s, "tools/call", "", `"name":"`+name+`"`)
	return err
}

// wantLimited checks that err refuses a call of tool with CodeRateLimited,
// the retry delay in its data and message, and returns the delay.
func wantLimited(t *testing.T, err error, tool string, wantMs int64) {
	t.Helper()
	if err == nil {
		t.Fatalf("call of %s beyond its limit accepted", tool)
	}
	e := rpcError(t, err)
	var data struct {
		RetryAfterMs *int64 `json:"retryAfterMs"`
	}
	if e.Code != CodeRateLimited || json.Unmarshal(e.Data, &data) != nil || data.RetryAfterMs == nil {
		t.Fatalf("refusal of %s: code %d data %s (%s)", tool, e.Code, e.Data, e.Message)
	}
	if *data.RetryAfterMs != wantMs {
		t.Errorf("refusal of %s: retryAfterMs %d, want %d", tool, *data.RetryAfterMs, wantMs)
	}
	if !strings.Contains(e.Message, strconv.Quote(tool)) || !strings.Contains(e.Message, "retry after "+(time.Duration(wantMs)*time.Millisecond).String()) {
		t.Errorf("refusal message %q does not name the tool %s and the delay", e.Message, tool)
	}
}

func TestToolRateLimitModern(t *testing.T) {
	s, clock, runs := rateServer(t, nil)
	for i := range 2 {
		if err := callAs(t, s, "alice", "limited"); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 60_000)
	if n := runs["limited"].Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2: a refused call must not reach it", n)
	}
	// Other tools and other callers have buckets of their own.
	for range 5 {
		if err := callAs(t, s, "alice", "free"); err != nil {
			t.Fatalf("alice's call of an unlimited tool: %v", err)
		}
	}
	if err := callAs(t, s, "bob", "limited"); err != nil {
		t.Fatalf("bob's first call: %v", err)
	}
	// A part of the window leaves a part of the wait; the whole refills
	// one token.
	clock.advance(45 * time.Second)
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 15_000)
	clock.advance(15 * time.Second)
	if err := callAs(t, s, "alice", "limited"); err != nil {
		t.Fatalf("call after the window: %v", err)
	}
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 60_000)
	err := callAs(t, s, "alice", "limited")
	if wait, ok := RetryAfter(err); !ok || wait != time.Minute {
		t.Errorf("RetryAfter of the refusal: %v %t", wait, ok)
	}
	// The error on the wire, as middleware may return it.
	if wait, ok := RetryAfter(fmt.Errorf("wrapped: %w", rpcError(t, err))); !ok || wait != time.Minute {
		t.Errorf("RetryAfter of the JSON-RPC error: %v %t", wait, ok)
	}
	if _, ok := RetryAfter(jsonrpc.NewError(CodeRateLimited, "no data")); ok {
		t.Error("RetryAfter of a refusal without its data")
	}
}

func TestToolRateLimitLegacy(t *testing.T) {
	s, clock, runs := rateServer(t, nil)
	call := func(p *peer, name string) error {
		_, err := p.call(t, "tools/call", `{"name":"`+name+`"}`)
		return err
	}
	carol := startWith(t, s, WithPrincipal(context.Background(), "carol"))
	carol.initialize(t, "2025-11-25", "")
	for range 2 {
		if err := call(carol, "limited"); err != nil {
			t.Fatal(err)
		}
	}
	wantLimited(t, call(carol, "limited"), "limited", 60_000)
	if err := call(carol, "free"); err != nil {
		t.Fatalf("another tool: %v", err)
	}
	// A principal is one caller in both eras and on every session.
	carol2 := startWith(t, s, WithPrincipal(context.Background(), "carol"))
	carol2.initialize(t, "2025-06-18", "")
	wantLimited(t, call(carol2, "limited"), "limited", 60_000)
	wantLimited(t, callAs(t, s, "carol", "limited"), "limited", 60_000)
	dave := startWith(t, s, WithPrincipal(context.Background(), "dave"))
	dave.initialize(t, "2025-11-25", "")
	if err := call(dave, "limited"); err != nil {
		t.Fatalf("another principal: %v", err)
	}
	clock.advance(time.Minute)
	if err := call(carol, "limited"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	if n := runs["limited"].Load(); n != 4 {
		t.Errorf("the handler ran %d times, want 4", n)
	}
}

// TestRateLimitAnonymous checks the keying of callers without a
// principal: each legacy session is one, and 2026-07-28 requests are one
// together.
func TestRateLimitAnonymous(t *testing.T) {
	s, _, _ := rateServer(t, nil)
	a, b := start(t, s), start(t, s)
	a.initialize(t, "2025-11-25", "")
	b.initialize(t, "2025-11-25", "")
	for _, p := range []*peer{a, a, b, b} {
		if _, err := p.call(t, "tools/call", `{"name":"limited"}`); err != nil {
			t.Fatalf("an anonymous session's call within its burst: %v", err)
		}
	}
	_, err := a.call(t, "tools/call", `{"name":"limited"}`)
	wantLimited(t, err, "limited", 60_000)
	// 2026-07-28 requests on those sessions' streams belong to no session.
	if _, err := a.modern(t, "tools/call", "", `"name":"limited"`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.modern(t, "tools/call", "", `"name":"limited"`); err != nil {
		t.Fatal(err)
	}
	wantLimited(t, callAs(t, s, nil, "limited"), "limited", 60_000)
	if err := callAs(t, s, "alice", "limited"); err != nil {
		t.Fatalf("a principal is not the anonymous caller: %v", err)
	}
}

// TestToolCallLimit checks the limit on all the tool calls of a caller,
// and that a call one limit refuses takes no token from the other.
func TestToolCallLimit(t *testing.T) {
	s, clock, _ := rateServer(t, &Options{ToolCallLimit: RateLimit{Rate: rate.Every(10 * time.Second), Burst: 4}})
	for _, name := range []string{"limited", "limited", "free"} {
		if err := callAs(t, s, "alice", name); err != nil {
			t.Fatal(err)
		}
	}
	// The tool's own limit refuses this one, before the limit on all
	// calls takes its last token...
	err := callAs(t, s, "alice", "limited")
	wantLimited(t, err, "limited", 60_000)
	if e, _ := err.(*RateLimitError); e == nil || !e.PerTool || !strings.Contains(e.Error(), `calls of tool "limited"`) {
		t.Errorf("refusal by the tool's limit: %#v", err)
	}
	// ...which is still there.
	if err := callAs(t, s, "alice", "free"); err != nil {
		t.Fatalf("the last call within the limit on all calls: %v", err)
	}
	err = callAs(t, s, "alice", "free")
	wantLimited(t, err, "free", 10_000)
	if e, _ := err.(*RateLimitError); e == nil || e.PerTool || !strings.Contains(e.Error(), "tool calls") {
		t.Errorf("refusal by the limit on all calls: %#v", err)
	}
	if err := callAs(t, s, "bob", "free"); err != nil {
		t.Fatalf("another caller: %v", err)
	}
	// Both empty: the longer wait is the one to report.
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 60_000)
	clock.advance(10 * time.Second)
	if err := callAs(t, s, "alice", "free"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestRateLimitBeforeTask checks that a refused call creates no task.
func TestRateLimitBeforeTask(t *testing.T) {
	g := newGate()
	close(g.release)
	s := taskServer(t, nil, g)
	addTool(t, s, "job", g.handler, WithTaskSupport(TaskOptional), WithRateLimit(rate.Every(time.Hour), 1))
	p := startWith(t, s, WithPrincipal(context.Background(), "erin"))
	p.initialize(t, "2025-11-25", "")
	if _, err := p.call(t, "tools/call", `{"name":"job","task":{}}`); err != nil {
		t.Fatal(err)
	}
	_, err := p.call(t, "tools/call", `{"name":"job","task":{}}`)
	if e := rpcError(t, err); e.Code != CodeRateLimited {
		t.Fatalf("second task call: %v", err)
	}
	_, err = modernCall(t, WithPrincipal(context.Background(), "erin"), s, "tools/call", tasksCaps, `"name":"job"`)
	if e := rpcError(t, err); e.Code != CodeRateLimited {
		t.Fatalf("2026-07-28 task call: %v", err)
	}
	raw, err := p.call(t, "tasks/list", "")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Tasks []json.RawMessage }
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Tasks) != 1 {
		t.Errorf("tasks/list = %s, want one task", raw)
	}
}

func TestRateLimitOptionChecked(t *testing.T) {
	s := newServer(nil)
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("ran"), nil
	}
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r     rate.Limit
		burst int
	}{{0, 1}, {-1, 1}, {1, 0}, {rate.Limit(math.NaN()), 1}} {
		if err := s.AddTool(def, h, WithRateLimit(c.r, c.burst)); err == nil || !strings.Contains(err.Error(), "rate limit") {
			t.Errorf("WithRateLimit(%v, %d): %v", c.r, c.burst, err)
		}
	}
	if err := s.AddTool(def, h, WithRateLimit(rate.Inf, 0)); err != nil {
		t.Errorf("rate.Inf is no limit: %v", err)
	}
	for range 3 {
		if err := callAs(t, s, "alice", "t"); err != nil {
			t.Fatalf("a tool without a limit: %v", err)
		}
	}
	if n := s.rates.len(); n != 0 {
		t.Errorf("%d buckets for calls that no limit applies to", n)
	}
}

// TestRateLimitReregistered checks that a tool registered again with other
// settings is held to them.
func TestRateLimitReregistered(t *testing.T) {
	s, _, _ := rateServer(t, nil)
	callAs(t, s, "alice", "limited")
	callAs(t, s, "alice", "limited")
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 60_000)
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("ran"), nil
	}
	addTool(t, s, "limited", h, WithRateLimit(rate.Every(time.Second), 2))
	wantLimited(t, callAs(t, s, "alice", "limited"), "limited", 1_000)
}

// TestRateLimitsBounded floods the buckets with callers and checks that
// they stay within their bound, and that idle buckets go as calls come.
func TestRateLimitsBounded(t *testing.T) {
	rl := newRateLimits(100)
	now := time.Unix(1_800_000_000, 0)
	limit := RateLimit{Rate: rate.Every(time.Second), Burst: 1}
	key := func(i int) bucketKey { return bucketKey{tool: "t", kind: callerString, id: "p" + strconv.Itoa(i)} }
	for i := range 10_000 {
		if wait, _ := rl.take(now, key(i), limit, bucketKey{kind: callerString, id: "p" + strconv.Itoa(i)}, limit); wait != 0 {
			t.Fatalf("first call of caller %d refused", i)
		}
		if n := rl.len(); n > 100 {
			t.Fatalf("%d buckets after %d callers, bound 100", n, i+1)
		}
	}
	// A bucket is full a second after its call: new callers, a second
	// apart, find idle buckets to drop wherever they land, faster than
	// they add their own.
	for i := range 2_000 {
		now = now.Add(time.Second)
		rl.take(now, key(20_000+i), limit, bucketKey{}, RateLimit{})
	}
	if n := rl.len(); n > 2*rateShards {
		t.Errorf("%d buckets left, with only idle callers", n)
	}
	// Dropping a full bucket changes nothing: the caller still has its
	// burst, and no more.
	rl = newRateLimits(0)
	two := RateLimit{Rate: rate.Every(time.Hour), Burst: 2}
	rl.take(now, key(1), two, bucketKey{}, RateLimit{})
	now = now.Add(2 * time.Hour)
	for i := range 3 {
		wait, _ := rl.take(now, key(1), two, bucketKey{}, RateLimit{})
		if (wait == 0) != (i < 2) {
			t.Fatalf("call %d after the refill: wait %v", i, wait)
		}
	}
}

// TestRateLimitConcurrent races callers for one bucket: exactly its burst
// of calls gets through.
func TestRateLimitConcurrent(t *testing.T) {
	s := newServer(&Options{ToolCallLimit: RateLimit{Rate: rate.Every(time.Hour), Burst: 50}})
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	s.rates.now = clock.Now
	var runs atomic.Int64
	for i := range 4 {
		addTool(t, s, fmt.Sprint("t", i), func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return textOf("ran"), nil
		}, WithRateLimit(rate.Every(time.Hour), 20))
	}
	var wg sync.WaitGroup
	var refused atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				_, err := modernCall(t, WithPrincipal(context.Background(), "alice"), s, "tools/call", "", fmt.Sprintf(`"name":"t%d"`, (g+i)%4))
				if e, ok := err.(*RateLimitError); ok && e.RetryAfter > 0 {
					refused.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if runs.Load() != 50 || refused.Load() != 150 {
		t.Errorf("%d calls ran and %d were refused, want 50 and 150", runs.Load(), refused.Load())
	}
}

// TestRateLimitErrorLongWait checks a refusal whose wait is as long as a
// Duration holds, as a rate near zero gives.
func TestRateLimitErrorLongWait(t *testing.T) {
	e := newRateLimitError("t", time.Duration(math.MaxInt64), true)
	if !strings.Contains(e.Error(), "retry after 2562047h") || string(e.rpc.Data) != `{"retryAfterMs":9223372036855}` {
		t.Errorf("%v %s", e, e.rpc.Data)
	}
	if wait, ok := RetryAfter(e.rpc); !ok || wait <= 0 {
		t.Errorf("RetryAfter = %v %t", wait, ok)
	}
}

func TestCallerKey(t *testing.T) {
	long := strings.Repeat("x", keyInline+1)
	sess := &Session{taskOwner: "owner"}
	for _, c := range []struct {
		r    *request
		kind uint8
		id   string
	}{
		{&request{}, callerAnonymous, ""},
		{&request{session: sess}, callerSession, "owner"},
		{&request{session: sess, principal: "alice"}, callerString, "alice"},
		{&request{principal: stringer("alice")}, callerStringer, "alice"},
		{&request{principal: long}, callerDigest, principalDigest(long)},
		{&request{principal: struct{ Sub string }{"alice"}}, callerDigest, principalDigest(struct{ Sub string }{"alice"})},
	} {
		if kind, id := callerKey(c.r); kind != c.kind || id != c.id {
			t.Errorf("callerKey(%#v) = %d %q, want %d %q", c.r.principal, kind, id, c.kind, c.id)
		}
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// BenchmarkRateLimit measures the check on the call path when the call is
// accepted: a tool's limit and the limit on all calls, for one caller and
// for callers on every core.
func BenchmarkRateLimit(b *testing.B) {
	s := newServer(&Options{ToolCallLimit: RateLimit{Rate: 1e12, Burst: 1 << 30}})
	t := &tool{def: mcp.Tool{Name: "echo"}, rateLimit: &RateLimit{Rate: 1e12, Burst: 1 << 30}}
	b.Run("one-caller", func(b *testing.B) {
		r := &request{principal: "alice"}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.limitCall(context.Background(), r, t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel-callers", func(b *testing.B) {
		var n atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := &request{principal: "caller" + strconv.FormatInt(n.Add(1), 10)}
			for pb.Next() {
				if err := s.limitCall(context.Background(), r, t); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkCallToolRateLimited is BenchmarkCallTool's 2026-07-28 call
// with both limits on, never reached: the check's share of a whole call.
func BenchmarkCallToolRateLimited(b *testing.B) {
	for _, limited := range []bool{false, true} {
		b.Run(fmt.Sprint("limited=", limited), func(b *testing.B) {
			opts := &Options{}
			if limited {
				opts.ToolCallLimit = RateLimit{Rate: 1e12, Burst: 1 << 30}
			}
			s := newServer(opts)
			var def mcp.Tool
			if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"}}`), &def); err != nil {
				b.Fatal(err)
			}
			h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				return textOf("hello"), nil
			}
			var topts []ToolOption
			if limited {
				topts = append(topts, WithRateLimit(1e12, 1<<30))
			}
			if err := s.AddTool(def, h, topts...); err != nil {
				b.Fatal(err)
			}
			ctx := WithPrincipal(context.Background(), "alice")
			params := []byte(`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out, err := s.ServeCall(ctx, &Call{ID: jsonrpc.IntID(int64(i)), Method: mcp.MethodCallTool, Params: params})
				if err != nil || len(out) == 0 {
					b.Fatalf("call %d: %s %v", i, out, err)
				}
			}
		})
	}
}
