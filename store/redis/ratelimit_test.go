package redis

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// perHour is a rate of one call an hour.
const perHour = 1.0 / 3600

// hourly is a bucket of burst calls that refills by one an hour: within a
// test it never refills.
func hourly(burst int) server.RateLimit {
	return server.RateLimit{Rate: perHour, Burst: burst}
}

// TestRateLimitShared checks that a limit holds across two stores with
// clients of their own on one Redis: burst 5 admits exactly 5 calls across
// both, sequential or concurrent, and refuses the rest with a wait of at
// most the refill of one token.
func TestRateLimitShared(t *testing.T) {
	prefix := testPrefix(t)
	stores := []*RateLimitStore{
		NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: prefix}),
		NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: prefix}),
	}
	ctx := context.Background()
	check := server.RateCheck{Caller: "s:alice", Tool: "echo", ToolLimit: hourly(5)}
	allowed := 0
	for i := range 10 {
		wait, perTool, err := stores[i%2].Take(ctx, check)
		if err != nil {
			t.Fatal(err)
		}
		if wait == 0 {
			allowed++
			continue
		}
		if !perTool || wait > time.Hour || wait < 59*time.Minute {
			t.Errorf("refusal %d: wait %v, perTool %t; want the tool's, about an hour", i, wait, perTool)
		}
	}
	if allowed != 5 {
		t.Errorf("%d calls allowed across two stores, want 5", allowed)
	}

	// Concurrent callers of both stores race for one bucket.
	check.Caller = "s:bob"
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			wait, _, err := stores[i%2].Take(ctx, check)
			if err != nil {
				t.Error(err)
			} else if wait == 0 {
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if n.Load() != 5 {
		t.Errorf("%d of 40 concurrent calls allowed, want 5", n.Load())
	}

	// Another prefix is another set of limits.
	other := NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: testPrefix(t) + "other:"})
	if wait, _, err := other.Take(ctx, check); err != nil || wait != 0 {
		t.Errorf("first call under another prefix: wait %v, %v", wait, err)
	}
}

// TestRateLimitBothBuckets checks a call with a tool's limit and the limit
// on all calls: both are taken from or neither, and the refusal names the
// bucket that needs the longest.
func TestRateLimitBothBuckets(t *testing.T) {
	s := NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: testPrefix(t)})
	ctx := context.Background()
	take := func(tool string, toolLimit server.RateLimit) (time.Duration, bool) {
		t.Helper()
		wait, perTool, err := s.Take(ctx, server.RateCheck{Caller: "s:alice", Tool: tool, ToolLimit: toolLimit, CallLimit: hourly(3)})
		if err != nil {
			t.Fatal(err)
		}
		return wait, perTool
	}
	for i := range 2 {
		if wait, _ := take("limited", hourly(2)); wait != 0 {
			t.Fatalf("call %d of limited refused: %v", i, wait)
		}
	}
	// The tool's bucket is empty; the refusal takes nothing from the
	// other, which still has one call for another tool.
	for range 3 {
		if wait, perTool := take("limited", hourly(2)); wait == 0 || !perTool {
			t.Fatalf("third call of limited: wait %v perTool %t; want the tool's refusal", wait, perTool)
		}
	}
	if wait, _ := take("free", server.RateLimit{}); wait != 0 {
		t.Fatalf("third call of all: refused after %v", wait)
	}
	if wait, perTool := take("free", server.RateLimit{}); wait == 0 || perTool {
		t.Errorf("fourth call of all: wait %v perTool %t; want the refusal of all calls", wait, perTool)
	}
}

// TestRateLimitRefill checks that a bucket refills by the Redis server's
// clock: after the wait a refusal gives, the call is accepted, and the
// bucket's key expires once it would be full.
func TestRateLimitRefill(t *testing.T) {
	client := shared.newClient(t)
	prefix := testPrefix(t)
	s := NewRateLimitStore(client, RateLimitOptions{Prefix: prefix})
	ctx := context.Background()
	check := server.RateCheck{Caller: "s:alice", Tool: "echo", ToolLimit: server.RateLimit{Rate: 20, Burst: 2}}
	for i := range 2 {
		if wait, _, err := s.Take(ctx, check); err != nil || wait != 0 {
			t.Fatalf("call %d: wait %v, %v", i, wait, err)
		}
	}
	wait, _, err := s.Take(ctx, check)
	if err != nil || wait <= 0 || wait > 50*time.Millisecond {
		t.Fatalf("third call at once: wait %v, %v; want a refusal of at most 50ms", wait, err)
	}
	key := prefix + "{s:alice}:t:echo"
	if ttl, err := client.PTTL(ctx, key).Result(); err != nil || ttl <= 0 || ttl > 100*time.Millisecond {
		t.Errorf("PTTL of %s = %v, %v; want the time until the bucket is full, at most 100ms", key, ttl, err)
	}
	time.Sleep(wait)
	if wait, _, err := s.Take(ctx, check); err != nil || wait != 0 {
		t.Fatalf("call after the wait the refusal gave: wait %v, %v", wait, err)
	}
	// Idle, the bucket refills and its key goes.
	time.Sleep(150 * time.Millisecond)
	if n, err := client.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Errorf("key of a full bucket still there: %d, %v", n, err)
	}
	allowed := 0
	for range 4 {
		if wait, _, err := s.Take(ctx, check); err == nil && wait == 0 {
			allowed++
		}
	}
	if allowed != 2 {
		t.Errorf("%d of 4 calls allowed by a full bucket of 2, want 2", allowed)
	}
}

// TestRateLimitKeys checks the keys' parts: callers and tools that would
// move the hash tag, or are long, are digested; the rest stay readable.
func TestRateLimitKeys(t *testing.T) {
	for _, c := range []struct {
		in    string
		plain bool
	}{
		{"s:alice", true},
		{"d:0123456789abcdef", true},
		{"get_weather.v2", true},
		{"s:{x}", false},
		{"s:a}b", false},
		{"~abc", false},
		{"s:alice smith", false},
		{"", false},
		{strings.Repeat("x", keyPartMax+1), false},
	} {
		got := keyPart(c.in)
		if c.plain && got != c.in || !c.plain && (!strings.HasPrefix(got, "~") || len(got) != 33) {
			t.Errorf("keyPart(%q) = %q", c.in, got)
		}
	}
	if keyPart("s:{x}") == keyPart("s:{y}") {
		t.Error("two callers share a digest")
	}
}

// TestRateLimitServers checks the limits of two Servers sharing Redis, as
// two replicas: a tool limited to a burst of 3 runs 3 times across both,
// and the fourth call gets CodeRateLimited.
func TestRateLimitServers(t *testing.T) {
	prefix := testPrefix(t)
	var runs atomic.Int64
	var servers []*server.Server
	for range 2 {
		s := server.New(mcp.Implementation{Name: "replica", Version: "1"}, &server.Options{
			RateLimitStore: NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: prefix}),
		})
		addEcho(t, s, &runs, server.WithRateLimit(perHour, 3))
		servers = append(servers, s)
	}
	ctx := server.WithPrincipal(context.Background(), "alice")
	var refusals []error
	for i := range 6 {
		if err := callEcho(ctx, servers[i%2], i); err != nil {
			refusals = append(refusals, err)
		}
	}
	if runs.Load() != 3 || len(refusals) != 3 {
		t.Fatalf("%d runs and %d refusals across two replicas, want 3 and 3", runs.Load(), len(refusals))
	}
	for _, err := range refusals {
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != server.CodeRateLimited {
			t.Errorf("refusal: %v; want code %d", err, server.CodeRateLimited)
		}
		if wait, ok := server.RetryAfter(err); !ok || wait <= 0 {
			t.Errorf("RetryAfter(%v) = %v, %t", err, wait, ok)
		}
	}
}

// addEcho registers the tool "echo", which counts its runs.
func addEcho(t testing.TB, s *server.Server, runs *atomic.Int64, opts ...server.ToolOption) {
	t.Helper()
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	}
	if err := s.AddTool(def, h, opts...); err != nil {
		t.Fatal(err)
	}
}

// echoParams are the params of a 2026-07-28 call of "echo".
var echoParams = []byte(`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`)

// callEcho calls "echo" on s as request id.
func callEcho(ctx context.Context, s *server.Server, id int) error {
	_, err := s.ServeCall(ctx, &server.Call{ID: jsonrpc.IntID(int64(id)), Method: mcp.MethodCallTool, Params: echoParams})
	return err
}

// BenchmarkLimiter measures one accepted check, a tool's limit and the
// limit on all calls together: through Redis (one round trip to the local
// test server) and in memory, the buckets a Server keeps without a store.
func BenchmarkLimiter(b *testing.B) {
	never := server.RateLimit{Rate: 1e9, Burst: 1 << 30}
	stores := []struct {
		name  string
		store server.RateLimitStore
	}{
		{"redis", NewRateLimitStore(shared.newClient(b), RateLimitOptions{Prefix: testPrefix(b)})},
		{"memory", server.NewMemoryRateLimitStore(0)},
	}
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			check := server.RateCheck{Caller: "s:alice", Tool: "echo", ToolLimit: never, CallLimit: never}
			ctx := context.Background()
			for b.Loop() {
				if wait, _, err := s.store.Take(ctx, check); err != nil || wait != 0 {
					b.Fatal(wait, err)
				}
			}
		})
		b.Run(s.name+"-parallel", func(b *testing.B) {
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				check := server.RateCheck{Caller: "s:caller" + strconv.FormatInt(n.Add(1), 10), Tool: "echo", ToolLimit: never, CallLimit: never}
				ctx := context.Background()
				for pb.Next() {
					if wait, _, err := s.store.Take(ctx, check); err != nil || wait != 0 {
						b.Error(wait, err)
						return
					}
				}
			})
		})
	}
}

// TestRateLimitRedisDown stops the test's own redis-server under a store
// and a Server using it: Take fails with the client's error within a
// bound, even with a client whose timeouts are long, the Server refuses
// the call with -32603 and runs no handler, and both work again once
// Redis is back on the same address.
func TestRateLimitRedisDown(t *testing.T) {
	srv, err := startServer(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.stop() })
	slow := goredis.NewClient(&goredis.Options{Addr: srv.addr, DialTimeout: time.Minute, ReadTimeout: time.Minute})
	t.Cleanup(func() { slow.Close() })
	stores := map[string]*RateLimitStore{
		"short timeouts": NewRateLimitStore(srv.newClient(t), RateLimitOptions{}),
		"long timeouts":  NewRateLimitStore(slow, RateLimitOptions{Timeout: 200 * time.Millisecond}),
	}
	s := server.New(mcp.Implementation{Name: "replica", Version: "1"}, &server.Options{RateLimitStore: stores["short timeouts"]})
	var runs atomic.Int64
	addEcho(t, s, &runs, server.WithRateLimit(perHour, 100))
	ctx := server.WithPrincipal(context.Background(), "alice")
	check := server.RateCheck{Caller: "s:alice", Tool: "echo", ToolLimit: hourly(100)}
	for name, st := range stores {
		if wait, _, err := st.Take(ctx, check); err != nil || wait != 0 {
			t.Fatalf("%s: Take with Redis up: wait %v, %v", name, wait, err)
		}
	}

	srv.stop()
	const bound = 5 * time.Second
	for name, st := range stores {
		start := time.Now()
		wait, _, err := st.Take(ctx, check)
		took := time.Since(start)
		if err == nil || took > bound {
			t.Errorf("%s: Take with Redis down = %v, %v after %v; want an error within %v", name, wait, err, took, bound)
		} else {
			t.Logf("%s: Take with Redis down, after %v: %v", name, took.Round(time.Millisecond), err)
		}
	}
	err = callEcho(ctx, s, 1)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "rate limit store is unreachable") {
		t.Errorf("call with Redis down: %v; want -32603 saying the rate limit store is unreachable", err)
	}
	if runs.Load() != 0 {
		t.Error("the handler ran though the limits could not be checked")
	}

	srv2, err := startServer(srv.dir, srv.addr)
	if err != nil {
		t.Fatalf("restart redis-server on %s: %v", srv.addr, err)
	}
	t.Cleanup(func() { srv2.stop() })
	for name, st := range stores {
		if wait, _, err := st.Take(ctx, check); err != nil || wait != 0 {
			t.Errorf("%s: Take after Redis returned: wait %v, %v", name, wait, err)
		}
	}
	if err := callEcho(ctx, s, 2); err != nil || runs.Load() != 1 {
		t.Errorf("call after Redis returned: %v, %d runs", err, runs.Load())
	}
}

// TestRateLimitNearZeroRate checks that a rate too small to refill within
// a lifetime still limits, without the script's arithmetic failing.
func TestRateLimitNearZeroRate(t *testing.T) {
	s := NewRateLimitStore(shared.newClient(t), RateLimitOptions{Prefix: testPrefix(t)})
	check := server.RateCheck{Caller: "s:alice", Tool: "echo", ToolLimit: server.RateLimit{Rate: 1e-300, Burst: 1}}
	if wait, _, err := s.Take(context.Background(), check); err != nil || wait != 0 {
		t.Fatalf("first call: wait %v, %v", wait, err)
	}
	if wait, _, err := s.Take(context.Background(), check); err != nil || wait < 24*time.Hour {
		t.Errorf("second call: wait %v, %v; want a refusal for years", wait, err)
	}
}
