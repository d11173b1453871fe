package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/bus"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// What a call costs in Redis round trips, with sessions and events kept
// there: the figures behind "at most one round trip on a legacy call's
// path, none on a modern call's".

// roundTrips counts the commands and pipelines a client sends, each one
// round trip.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// echoServer returns an engine with the tool echo.
func echoServer(t testing.TB) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "calls", Version: "1"}, nil)
	def := mcp.Tool{Name: "echo"}
	if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(p.Arguments)}}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replica is a Handler whose sessions and events are in Redis (or in
// memory when redis is false), on a test server.
type replica struct {
	url    string
	counts *roundTrips
}

func newReplica(t testing.TB, inRedis bool, b bus.Bus, prefix string) *replica {
	t.Helper()
	r := &replica{counts: &roundTrips{}}
	opts := &streamable.HandlerOptions{Bus: b}
	if inRedis {
		c := shared.newClient(t)
		c.AddHook(r.counts)
		opts.Sessions = NewSessionStore(c, SessionOptions{Prefix: prefix + "s:"})
		opts.Events = NewEventStore(c, EventOptions{Prefix: prefix + "e:"})
	}
	h := streamable.NewHandler(echoServer(t), opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	r.url = ts.URL
	return r
}

// httpClient is a client that keeps its connections, as an MCP client does.
var httpClient = &http.Client{Transport: &http.Transport{
	MaxIdleConnsPerHost: 8,
	DialContext:         (&net.Dialer{}).DialContext,
}}

func post(t testing.TB, url, sid, version, body string) (string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	if version == "2026-07-28" {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s %s", body, resp.Status, b)
	}
	return resp.Header.Get("Mcp-Session-Id"), string(b)
}

// legacySession initializes a 2025-11-25 session at url.
func legacySession(t testing.TB, url string) string {
	t.Helper()
	sid, _ := post(t, url, "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	post(t, url, sid, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

func legacyCall(t testing.TB, url, sid string, i int) {
	t.Helper()
	_, out := post(t, url, sid, "2025-11-25", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}`, i, i))
	if !strings.Contains(out, fmt.Sprintf(`{\"n\":%d}`, i)) {
		t.Fatalf("call %d answered %s", i, out)
	}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`

func modernCall(t testing.TB, url string, i int) {
	t.Helper()
	_, out := post(t, url, "", "2026-07-28", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d},%s}}`, i, i, modernMeta))
	if !strings.Contains(out, fmt.Sprintf(`{\"n\":%d}`, i)) {
		t.Fatalf("call %d answered %s", i, out)
	}
}

func TestRoundTripsPerCall(t *testing.T) {
	b := bus.NewMemory(0)
	defer b.Close()
	prefix := testPrefix(t)
	a, other := newReplica(t, true, b, prefix), newReplica(t, true, b, prefix)

	sid := legacySession(t, a.url)
	before := a.counts.n.Load()
	const calls = 20
	for i := range calls {
		legacyCall(t, a.url, sid, i+1)
	}
	n := a.counts.n.Load() - before
	t.Logf("%d legacy calls: %d Redis round trips", calls, n)
	if n > calls {
		t.Errorf("%d legacy calls took %d Redis round trips, want at most one each", calls, n)
	}

	// The first call on a replica that does not run the session reads
	// its record; the calls after it cost what they cost on the first.
	legacyCall(t, other.url, sid, 100)
	t.Logf("the first legacy call on a second replica: %d Redis round trips", other.counts.n.Load())
	before = other.counts.n.Load()
	for i := range calls {
		legacyCall(t, other.url, sid, i+101)
	}
	if n := other.counts.n.Load() - before; n > calls {
		t.Errorf("%d legacy calls on a second replica took %d Redis round trips, want at most one each", calls, n)
	}

	before = a.counts.n.Load()
	for i := range calls {
		modernCall(t, a.url, i+1)
	}
	if n := a.counts.n.Load() - before; n != 0 {
		t.Errorf("%d 2026-07-28 calls took %d Redis round trips, want none", calls, n)
	}
}

// BenchmarkLegacyCall is one 2025-11-25 tools/call on a running session,
// its SSE events kept in memory or in Redis.
func BenchmarkLegacyCall(b *testing.B) {
	for _, inRedis := range []bool{false, true} {
		b.Run(map[bool]string{false: "memory", true: "redis"}[inRedis], func(b *testing.B) {
			r := newReplica(b, inRedis, nil, testPrefix(b))
			sid := legacySession(b, r.url)
			before := r.counts.n.Load()
			i := 0
			for b.Loop() {
				i++
				legacyCall(b, r.url, sid, i)
			}
			b.ReportMetric(float64(r.counts.n.Load()-before)/float64(i), "redis-round-trips/op")
		})
	}
}

// BenchmarkModernCall is one 2026-07-28 tools/call, with the same stores.
func BenchmarkModernCall(b *testing.B) {
	for _, inRedis := range []bool{false, true} {
		b.Run(map[bool]string{false: "memory", true: "redis"}[inRedis], func(b *testing.B) {
			r := newReplica(b, inRedis, nil, testPrefix(b))
			before := r.counts.n.Load()
			i := 0
			for b.Loop() {
				i++
				modernCall(b, r.url, i)
			}
			b.ReportMetric(float64(r.counts.n.Load()-before)/float64(i), "redis-round-trips/op")
		})
	}
}
