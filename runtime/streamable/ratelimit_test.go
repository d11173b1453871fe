package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// rateEngine is the test engine with the tool limited, which each caller
// may call twice an hour.
func rateEngine(t *testing.T) *server.Server {
	t.Helper()
	s := newMCP(t)
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"limited","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult("ran"), nil
	}, server.WithRateLimit(rate.Every(time.Hour), 2))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// retryAfterMs reads the data of a rate limit's refusal.
func retryAfterMs(t *testing.T, e *rpcError) int64 {
	t.Helper()
	var data struct {
		RetryAfterMs *int64 `json:"retryAfterMs"`
	}
	if json.Unmarshal(e.Data, &data) != nil || data.RetryAfterMs == nil || *data.RetryAfterMs <= 0 || *data.RetryAfterMs > 3_600_000 {
		t.Fatalf("refusal data %s, want retryAfterMs within the hour", e.Data)
	}
	return *data.RetryAfterMs
}

// TestRateLimit429 checks that a 2026-07-28 call refused by a rate limit
// is answered 429 with Retry-After, and that other callers and tools go on.
func TestRateLimit429(t *testing.T) {
	_, ts := serveEngine(t, rateEngine(t), &HandlerOptions{Authenticate: byUser})
	c := newClient(t, ts)
	as := func(id, user, tool string) *reply {
		return c.send(call26(id, tool, "", meta26("")), hdr26("tools/call", tool, "X-User", user)...)
	}
	for _, id := range []string{"1", "2"} {
		if got := as(id, "alice", "limited").text(t, id); got != "ran" {
			t.Fatalf("call %s within the burst answered %q", id, got)
		}
	}
	r := as("3", "alice", "limited")
	e := r.wantError(t, http.StatusTooManyRequests, server.CodeRateLimited, "3")
	ms := retryAfterMs(t, e)
	// The header is the data's wait in whole seconds, rounded up.
	if got, want := r.header.Get("Retry-After"), strconv.FormatInt((ms+999)/1000, 10); got != want {
		t.Errorf("Retry-After %q, want %q for retryAfterMs %d", got, want, ms)
	}
	if !strings.Contains(e.Message, `"limited"`) || !strings.Contains(e.Message, "retry after") {
		t.Errorf("refusal message %q", e.Message)
	}
	if got := as("4", "bob", "limited").text(t, "4"); got != "ran" {
		t.Errorf("another caller answered %q", got)
	}
	r = c.send(call26("5", "echo", `{"text":"still"}`, meta26("")), hdr26("tools/call", "echo", "X-User", "alice")...)
	if got := r.text(t, "5"); got != "still" || r.header.Get("Retry-After") != "" {
		t.Errorf("another tool answered %q, Retry-After %q", got, r.header.Get("Retry-After"))
	}
}

// TestRateLimitLegacySession checks that a legacy session's call refused
// by a rate limit gets the JSON-RPC error in its response, and that
// another session, anonymous too, is a caller of its own.
func TestRateLimitLegacySession(t *testing.T) {
	_, ts := serveEngine(t, rateEngine(t), nil)
	a, b := newClient(t, ts), newClient(t, ts)
	a.initialize("2025-11-25", "")
	b.initialize("2025-11-25", "")
	var last *http.Response
	var msgs []string
	for id := range 3 {
		last = a.do("POST", callBody(id+1, "limited", ""))
		msgs = messages(t, last)
	}
	if last.StatusCode != http.StatusOK || last.Header.Get("Retry-After") != "" {
		t.Errorf("a legacy refusal answered %d with Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
	}
	var resp struct{ Error *rpcError }
	if len(msgs) != 1 || json.Unmarshal([]byte(msgs[len(msgs)-1]), &resp) != nil || resp.Error == nil || resp.Error.Code != server.CodeRateLimited {
		t.Fatalf("third call answered %q", msgs)
	}
	retryAfterMs(t, resp.Error)
	if msgs := messages(t, b.do("POST", callBody(1, "limited", ""))); len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"ran"`) {
		t.Errorf("another session's call answered %q", msgs)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for _, c := range []struct {
		wait time.Duration
		want int64
	}{
		{time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{1200 * time.Millisecond, 2},
		{time.Hour, 3600},
		{time.Duration(1<<63 - 1), 9223372037},
	} {
		if got := retryAfterSeconds(c.wait); got != c.want {
			t.Errorf("retryAfterSeconds(%v) = %d, want %d", c.wait, got, c.want)
		}
	}
	h := http.Header{}
	setRetryAfter(h, jsonrpc.ErrInternal("not a refusal"))
	if len(h) != 0 {
		t.Errorf("Retry-After set for another error: %v", h)
	}
}
