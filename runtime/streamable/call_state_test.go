package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tests of what 2026-07-28 hands a client to give back over HTTP
// (requestState, cursors) and of the caching hints on results.

// TestCallInputRequiredRounds checks a multi round-trip tools/call over
// HTTP: the first round ends with the question and a requestState, and
// the retry that answers it completes, however it spells the arguments.
func TestCallInputRequiredRounds(t *testing.T) {
	_, ts := serve(t, nil)
	c := newClient(t, ts)
	caps := meta26(`{"elicitation":{}}`)
	r := c.send(call26("1", "chatty", `{"a":1,"b":[1,2]}`, caps), hdr26("tools/call", "chatty")...)
	if r.sse || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("a round without notifications answered as %q", r.header.Get("Content-Type"))
	}
	round := r.inputRequired(t, "1")
	if len(round.requests) != 1 {
		t.Fatalf("%d questions, want 1", len(round.requests))
	}
	for _, q := range round.requests {
		if !strings.Contains(string(q.Params), `"message":"name?"`) {
			t.Fatalf("the question is %s, not chatty's", q.Params)
		}
	}
	r = c.send(retry26("2", "chatty", `{ "b": [1, 2], "a": 1.0 }`, round.accept(t, "Ada"), round.state, caps), hdr26("tools/call", "chatty")...)
	if got := r.text(t, "2"); got != "accept:Ada" {
		t.Fatalf("the retry answered %q", got)
	}
	// The answer is the client's: another one gives another result.
	r = c.send(retry26("3", "chatty", `{"a":1,"b":[1,2]}`, round.accept(t, "Grace"), round.state, caps), hdr26("tools/call", "chatty")...)
	if got := r.text(t, "3"); got != "accept:Grace" {
		t.Fatalf("the retry answered %q", got)
	}
}

// TestCallRequestStateBinding checks that a requestState is good only for
// the retry of the request it came with, by the identity that got it.
func TestCallRequestStateBinding(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), &HandlerOptions{Authenticate: byUser})
	c := newClient(t, ts)
	caps := meta26(`{"elicitation":{}}`)
	alice := hdr26("tools/call", "chatty", "X-User", "alice")
	round := c.send(call26("1", "chatty", `{"n":1}`, caps), alice...).inputRequired(t, "1")
	answers := round.accept(t, "Ada")
	tampered := []byte(round.state)
	tampered[len(tampered)/2] ^= 1
	for _, tc := range []struct {
		name string
		body string
		hdr  []string
	}{
		{"another identity", retry26("2", "chatty", `{"n":1}`, answers, round.state, caps), hdr26("tools/call", "chatty", "X-User", "bob")},
		{"no identity", retry26("2", "chatty", `{"n":1}`, answers, round.state, caps), hdr26("tools/call", "chatty")},
		{"another tool", retry26("2", "ask", `{"n":1}`, answers, round.state, caps), hdr26("tools/call", "ask", "X-User", "alice")},
		{"other arguments", retry26("2", "chatty", `{"n":2}`, answers, round.state, caps), alice},
		{"tampered", retry26("2", "chatty", `{"n":1}`, answers, string(tampered), caps), alice},
		{"forged", retry26("2", "chatty", `{"n":1}`, answers, "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0", caps), alice},
		{"another method", body26("2", "prompts/get", `"name":"greet","arguments":{"name":"x"},"requestState":`+jsonString(round.state), caps), hdr26("prompts/get", "greet", "X-User", "alice")},
	} {
		e := c.send(tc.body, tc.hdr...).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "2")
		if !strings.Contains(e.Message, "requestState") {
			t.Errorf("%s: the error %q does not name requestState", tc.name, e.Message)
		}
	}
	r := c.send(retry26("3", "chatty", `{"n":1}`, answers, round.state, caps), alice...)
	if got := r.text(t, "3"); got != "accept:Ada" {
		t.Fatalf("the owner's retry answered %q", got)
	}
}

func TestCallRequestStateExpires(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, &server.Options{StateTTL: time.Millisecond}), nil)
	c := newClient(t, ts)
	caps := meta26(`{"elicitation":{}}`)
	round := c.send(call26("1", "ask", "", caps), hdr26("tools/call", "ask")...).inputRequired(t, "1")
	if _, ok := round.requests["name"]; !ok || len(round.requests) != 1 {
		t.Fatalf("questions %v, want the one keyed name", round.requests)
	}
	time.Sleep(10 * time.Millisecond) // past StateTTL: not a measure of speed
	e := c.send(retry26("2", "ask", "", round.accept(t, "Ada"), round.state, caps), hdr26("tools/call", "ask")...).
		wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "2")
	if !strings.Contains(e.Message, "expired") {
		t.Fatalf("error %q, want it to say the state expired", e.Message)
	}
}

// TestCallInputRequiredOnlyWhereAllowed checks that only tools/call,
// prompts/get and resources/read end with an InputRequiredResult.
func TestCallInputRequiredOnlyWhereAllowed(t *testing.T) {
	_, ts := serveEngine(t, newMCP26(t, nil), nil)
	c := newClient(t, ts)
	caps := meta26(`{"elicitation":{}}`)
	r := c.send(body26("1", "tools/list", "", caps), hdr26("tools/list", "")...)
	res := r.result(t, "1")
	if res["resultType"] != "complete" || res["inputRequests"] != nil || res["requestState"] != nil {
		t.Fatalf("tools/list answered %s", r.resp.Result)
	}
	// A completion handler that asks the user fails: it cannot ask.
	r = c.send(body26("2", "completion/complete", `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}`, caps), hdr26("completion/complete", "")...)
	if r.resp.Error == nil || r.resp.Result != nil || string(r.resp.ID) != "2" {
		t.Fatalf("a completion handler that asks answered %q, want an error", r.raw)
	}
}

// TestCallCursors checks pagination over HTTP: nextCursor leads through
// the whole list, and a cursor that is forged, of another list, or of
// another identity is -32602 with 400.
func TestCallCursors(t *testing.T) {
	s := newMCP26(t, &server.Options{PageSize: 2})
	addTool(t, s, "extra", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(""), nil
	})
	_, ts := serveEngine(t, s, &HandlerOptions{Authenticate: byUser})
	c := newClient(t, ts)
	list := func(id, method, cursor, user string) *reply {
		members := ""
		if cursor != "" {
			members = `"cursor":` + jsonString(cursor)
		}
		return c.send(body26(id, method, members, meta26("")), hdr26(method, "", "X-User", user)...)
	}
	var names, sizes []string
	var second string
	cursor := ""
	for page := 0; ; page++ {
		r := list("1", "tools/list", cursor, "alice")
		r.result(t, "1")
		var res mcp.ListToolsResult
		if err := res.UnmarshalJSON(r.resp.Result); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, string(rune('0'+len(res.Tools))))
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if page == 0 {
			second = res.NextCursor
		}
		if res.NextCursor == "" || page > 10 {
			break
		}
		cursor = res.NextCursor
	}
	if got := strings.Join(names, " "); got != "echo principal ask region extra" {
		t.Fatalf("the pages listed %q", got)
	}
	if got := strings.Join(sizes, ","); got != "2,2,1" {
		t.Fatalf("page sizes %s, want 2,2,1", got)
	}
	for _, tc := range []struct{ name, method, cursor, user string }{
		{"forged", "tools/list", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "alice"},
		{"tampered", "tools/list", second[:len(second)-2] + "xx", "alice"},
		{"another list", "prompts/list", second, "alice"},
		{"another kind of list", "resources/templates/list", second, "alice"},
		{"another identity", "tools/list", second, "bob"},
		{"no identity", "tools/list", second, ""},
	} {
		e := list("2", tc.method, tc.cursor, tc.user).wantError(t, http.StatusBadRequest, jsonrpc.CodeInvalidParams, "2")
		if !strings.Contains(e.Message, "cursor") {
			t.Errorf("%s: error %q does not name the cursor", tc.name, e.Message)
		}
	}
	// The cursor still works for its owner.
	list("3", "tools/list", second, "alice").result(t, "3")
}

// TestCallCaching checks ttlMs and cacheScope on the results of list and
// read methods and of server/discover: present, 0 and private by default,
// what Options.Caching says otherwise, and a resource's own caching over
// both.
func TestCallCaching(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  *server.Options
		ttl   float64
		scope string
	}{
		{"default", nil, 0, "private"},
		{"Options.Caching", &server.Options{Caching: server.Caching{TTL: 90 * time.Second, Public: true}}, 90000, "public"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts := serveEngine(t, newMCP26(t, tc.opts), nil)
			c := newClient(t, ts)
			for _, q := range []struct {
				method, members, name string
				ttl                   float64
				scope                 string
			}{
				{"tools/list", "", "", tc.ttl, tc.scope},
				{"prompts/list", "", "", tc.ttl, tc.scope},
				{"resources/list", "", "", tc.ttl, tc.scope},
				{"resources/templates/list", "", "", tc.ttl, tc.scope},
				{"server/discover", "", "", tc.ttl, tc.scope},
				{"resources/read", `"uri":"file:///a.txt"`, "file:///a.txt", tc.ttl, tc.scope},
				{"resources/read", `"uri":"file:///t/x"`, "file:///t/x", tc.ttl, tc.scope},
				{"resources/read", `"uri":"file:///b.txt"`, "file:///b.txt", 5000, "public"},
			} {
				r := c.send(body26("1", q.method, q.members, meta26("")), hdr26(q.method, q.name)...)
				res := r.result(t, "1")
				if !strings.Contains(string(r.resp.Result), `"ttlMs":`) {
					t.Errorf("%s %s: no ttlMs in %s", q.method, q.name, r.resp.Result)
				}
				if res["ttlMs"] != q.ttl || res["cacheScope"] != q.scope {
					t.Errorf("%s %s: ttlMs %v, cacheScope %v; want %v, %s", q.method, q.name, res["ttlMs"], res["cacheScope"], q.ttl, q.scope)
				}
			}
			// tools/call results are not cached.
			r := c.send(call26("2", "echo", "", meta26("")), hdr26("tools/call", "echo")...)
			if res := r.result(t, "2"); res["ttlMs"] != nil || res["cacheScope"] != nil {
				t.Errorf("tools/call carries caching hints: %s", r.resp.Result)
			}
		})
	}
}
