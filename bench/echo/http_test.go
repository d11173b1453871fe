package echo

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestServersHTTP checks that each server, run with -http, answers the
// handshake and tools/call in the JSON-response mode the HTTP measurements
// use, and that the load loop runs against it with two sessions.
func TestServersHTTP(t *testing.T) {
	for _, s := range Servers {
		t.Run(s.Name, func(t *testing.T) {
			p, err := StartHTTP(bins[s.Name])
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Close(); err != nil {
					t.Error(err)
				}
			}()
			l, err := NewHTTPLoad(p.URL, 2)
			if err != nil {
				t.Fatalf("%v; output: %s", err, p.Stderr())
			}
			defer func() {
				if err := l.Close(); err != nil {
					t.Error(err)
				}
			}()
			const text = "ünïcode \"quoted\" \\ and\nnewline"
			res, err := l.Sessions()[0].Call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			var call struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			}
			if err := json.Unmarshal(res, &call); err != nil {
				t.Fatalf("tools/call result %s: %v", res, err)
			}
			if call.IsError || len(call.Content) != 1 || call.Content[0].Type != "text" || call.Content[0].Text != text {
				t.Errorf("tools/call result = %s, want one text block %q", res, text)
			}
			const calls = 20
			if n, err := l.Echo(calls, time.Time{}); err != nil || n != calls {
				t.Errorf("Echo(%d) = %d, %v; want %d calls", calls, n, err, calls)
			}
		})
	}
}

func TestSSEResponse(t *testing.T) {
	tests := []struct {
		stream, want string
	}{
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n", `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"id: 1_1\nretry: 1000\ndata:\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r\n\r\n" +
			"data: {\"id\":4,\r\ndata: \"error\":{\"code\":1}}", "{\"id\":4,\n\"error\":{\"code\":1}}"},
		{": comment\n\n", ""},
		{"data: {\"method\":\"x\"}\n\n", ""},
	}
	for _, tt := range tests {
		_, got := sseResponse(nil, []byte(tt.stream))
		if string(got) != tt.want {
			t.Errorf("sseResponse(%q) = %q, want %q", tt.stream, got, tt.want)
		}
	}
}

// TestIdleSessions checks that deleting idle mcpgen sessions ends them and
// their goroutines; BenchmarkIdleSessions measures 10,000 of them.
func TestIdleSessions(t *testing.T) {
	r, err := IdleSessions(context.Background(), 200, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sessions: %.0f B heap, %.0f B stack, %.2f goroutines each; after DELETE: heap %+d B, goroutines %+d",
		r.Sessions, r.HeapPerSession, r.StackPerSession, r.GoroutinesPerSession, r.HeapAfter, r.GoroutinesAfter)
	if r.GoroutinesPerSession < 0.99 {
		t.Errorf("%.2f goroutines per open session; want at least the session's own", r.GoroutinesPerSession)
	}
	if r.SessionsAfter != 0 || r.GoroutinesAfter > 0 {
		t.Errorf("after DELETE of every session: %d sessions running, %+d goroutines; want none left",
			r.SessionsAfter, r.GoroutinesAfter)
	}
}
