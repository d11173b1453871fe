package streamable

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// TestErasInterleaved runs legacy clients (sessions, elicitation answered
// on the session's stream) and 2026-07-28 clients (no session, input
// rounds) in parallel on one Handler, and checks that each gets its own
// answers and that neither era disturbs the other.
func TestErasInterleaved(t *testing.T) {
	h, ts := serve(t, nil)
	srv := srvOf(h)
	watcher := newClient(t, ts)
	ls, _ := openListen(t, watcher, `"watch"`, `{"toolsListChanged":true}`)
	const n, rounds = 4, 5
	legacy := make([]*client, n)
	t.Run("clients", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprintf("legacy%d", i), func(t *testing.T) {
				t.Parallel()
				legacy[i] = legacyRounds(t, ts, i, rounds)
			})
			t.Run(fmt.Sprintf("modern%d", i), func(t *testing.T) {
				t.Parallel()
				modernRounds(t, ts, i, rounds)
			})
		}
	})
	if t.Failed() {
		return
	}
	if got := h.SessionCount(); got != n {
		t.Fatalf("%d sessions, want the %d legacy ones", got, n)
	}
	for i, c := range legacy {
		msgs := messages(t, c.do("POST", callBody(99, "echo", fmt.Sprintf(`{"text":"after%d"}`, i))))
		if len(msgs) != 1 || !strings.Contains(msgs[0], fmt.Sprintf(`"text":"after%d"`, i)) {
			t.Fatalf("legacy session %d answered %q", i, msgs)
		}
		// Legacy results keep their era's shape.
		msgs = messages(t, c.do("POST", `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`))
		if len(msgs) != 1 || strings.Contains(msgs[0], `"resultType"`) || strings.Contains(msgs[0], `"ttlMs"`) || strings.Contains(msgs[0], "serverInfo") {
			t.Fatalf("legacy tools/list %q carries 2026-07-28 fields", msgs)
		}
	}
	// The subscription heard nothing of what the clients caused: the
	// next message on it is the change made now.
	addTool(t, srv, "late", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(""), nil
	})
	if m := ls.next(t); m.Method != mcp.MethodToolListChangedNotification || subscriptionID(t, m) != `"watch"` {
		t.Fatalf("the subscription got %s %s", m.Method, m.Params)
	}
}

// legacyRounds runs a 2025-11-25 session: echo, chatty with its
// elicitation answered on the request's stream, and a 2026-07-28 request
// that carries the session's id, rounds times.
func legacyRounds(t *testing.T, ts *httptest.Server, i, rounds int) *client {
	c := newClient(t, ts)
	c.initialize("2025-11-25", `{"elicitation":{}}`)
	name := fmt.Sprintf("L%d", i)
	for r := range rounds {
		id := 10*r + 1
		text := fmt.Sprintf("%s-%d", name, r)
		msgs := messages(t, c.do("POST", callBody(id, "echo", `{"text":"`+text+`"}`)))
		if len(msgs) != 1 || !strings.Contains(msgs[0], `"text":"`+text+`"`) || !strings.Contains(msgs[0], fmt.Sprintf(`"id":%d`, id)) {
			t.Fatalf("echo answered %q", msgs)
		}
		resp := c.do("POST", callBody(id+1, "chatty", ""))
		s := newSSE(resp)
		got := readUntil(t, s, "elicitation/create")
		eid := elicitationID(t, got[len(got)-1].data)
		if code, body := c.status("POST", `{"jsonrpc":"2.0","id":`+eid+`,"result":{"action":"accept","content":{"name":"`+name+`"}}}`); code != http.StatusAccepted {
			t.Fatalf("answering the elicitation: %d %s", code, body)
		}
		rest := readUntil(t, s, fmt.Sprintf(`"id":%d,`, id+1))
		resp.Body.Close()
		if last := rest[len(rest)-1].data; !strings.Contains(last, "accept:"+name) {
			t.Fatalf("chatty answered %s", last)
		}
		// A 2026-07-28 request with this session's id is not the session's.
		mr := c.send(call26("7", "echo", `{"text":"m`+text+`"}`, meta26("")), hdr26("tools/call", "echo")...)
		if got := mr.text(t, "7"); got != "m"+text {
			t.Fatalf("the 2026-07-28 echo answered %q", got)
		}
		if sid := mr.header.Get("Mcp-Session-Id"); sid != "" {
			t.Fatalf("a 2026-07-28 answer names session %q", sid)
		}
	}
	return c
}

// modernRounds runs a 2026-07-28 client: echo, and chatty over two rounds
// (every other time with progress and logs on an SSE answer), rounds
// times.
func modernRounds(t *testing.T, ts *httptest.Server, i, rounds int) {
	c := newClient(t, ts)
	name := fmt.Sprintf("M%d", i)
	for r := range rounds {
		id := fmt.Sprint(10*r + 1)
		text := fmt.Sprintf("%s-%d", name, r)
		if got := c.send(call26(id, "echo", `{"text":"`+text+`"}`, meta26("")), hdr26("tools/call", "echo")...).text(t, id); got != text {
			t.Fatalf("echo answered %q, want %q", got, text)
		}
		meta := meta26(`{"elicitation":{}}`)
		if r%2 == 1 {
			meta = meta26(`{"elicitation":{}}`, `"progressToken":"`+text+`"`, `"io.modelcontextprotocol/logLevel":"info"`)
		}
		args := `{"client":"` + name + `"}`
		first := c.send(call26(id, "chatty", args, meta), hdr26("tools/call", "chatty")...)
		round := first.inputRequired(t, id)
		if r%2 == 1 {
			if got := first.methods(); got != "notifications/progress notifications/message" || !strings.Contains(first.raw[0], `"progressToken":"`+text+`"`) {
				t.Fatalf("the first round carried %q: %q", got, first.raw)
			}
		} else if first.sse {
			t.Fatalf("a round without notifications answered as a stream: %q", first.raw)
		}
		retry := c.send(retry26(id+"0", "chatty", args, round.accept(t, name), round.state, meta), hdr26("tools/call", "chatty")...)
		if got := retry.text(t, id+"0"); got != "accept:"+name {
			t.Fatalf("the retry answered %q", got)
		}
	}
	lr := c.send(body26("5", "tools/list", "", meta26("")), hdr26("tools/list", "")...)
	if res := lr.result(t, "5"); res["resultType"] != "complete" || res["cacheScope"] != "private" {
		t.Fatalf("tools/list answered %s", lr.resp.Result)
	}
}
