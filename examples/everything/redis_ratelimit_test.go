//go:build redis

package main

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// TestRedisRateLimit checks that a rate limit holds across two replicas
// of the -redis mode: a tool limited to a burst of 3 (and one call an
// hour) runs 3 times for a caller across both, and the other calls get
// CodeRateLimited with a Retry-After header, whichever replica they
// reach; another caller has a bucket of its own.
//
// None of the conformance tools has a rate limit, and giving one one
// would change what the suite sees, so the test registers its own tool
// on both replicas; the replicas' limits are kept in Redis by the same
// wiring as -redis sets up.
func TestRedisRateLimit(t *testing.T) {
	url := startRedis(t)
	keys, err := stateKeys(func(string) string {
		return "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	})
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*replica{newReplica(t, url, keys), newReplica(t, url, keys)}
	var runs atomic.Int64
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"limited_echo","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	}
	for _, r := range replicas {
		if err := r.e.srv.AddTool(def, h, server.WithRateLimit(1.0/3600, 3)); err != nil {
			t.Fatal(err)
		}
	}
	call := func(user string, i int) *rpcAnswer {
		return replicas[i%2].modern(t, user, strconv.Itoa(i), "tools/call", "limited_echo", `{}`, `"name":"limited_echo","arguments":{}`)
	}
	accepted := 0
	for i := range 8 {
		got := call("alice", i)
		if got.Error == nil {
			accepted++
			continue
		}
		if got.Error.Code != server.CodeRateLimited {
			t.Fatalf("call %d: error %+v; want code %d", i, got.Error, server.CodeRateLimited)
		}
		if s, err := strconv.Atoi(got.header.Get("Retry-After")); err != nil || s <= 0 || s > 3600 {
			t.Errorf("call %d: Retry-After %q; want the seconds until a token, at most an hour", i, got.header.Get("Retry-After"))
		}
	}
	if accepted != 3 || runs.Load() != 3 {
		t.Errorf("alice: %d of 8 calls accepted across two replicas and %d runs; want 3 and 3", accepted, runs.Load())
	}
	if got := call("bob", 9); got.Error != nil {
		t.Errorf("bob's first call, after alice's ran out: %+v", got.Error)
	}
}
