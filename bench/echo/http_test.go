package echo

import (
	"context"
	"strings"
	"testing"
	"time"

	gosdkecho "github.com/mcpgen/mcpgen/bench/servers/gosdk/echo"
)

// TestServersHTTP checks that each server, run with -http, answers
// tools/call in each era in the JSON-response mode the HTTP measurements
// use (after the handshake in the legacy era), and that the load loop runs
// against it with two clients.
func TestServersHTTP(t *testing.T) {
	for _, e := range entries {
		t.Run(e.String(), func(t *testing.T) {
			p, err := StartHTTP(bins[e.Name], e.httpArgs()...)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Close(); err != nil {
					t.Error(err)
				}
			}()
			l, err := NewHTTPLoad(p.URL, 2, e.Era)
			if err != nil {
				t.Fatalf("%v; output: %s", err, p.Stderr())
			}
			defer func() {
				if err := l.Close(); err != nil {
					t.Error(err)
				}
			}()
			checkHTTPCall(t, l.Sessions()[0])
			const calls = 20
			if n, err := l.Echo(calls, time.Time{}); err != nil || n != calls {
				t.Errorf("Echo(%d) = %d, %v; want %d calls", calls, n, err, calls)
			}
		})
	}
}

// TestServersHandler checks each server's handler called in this process
// through Direct, as BenchmarkHandler drives it.
func TestServersHandler(t *testing.T) {
	for _, e := range entries {
		t.Run(e.String(), func(t *testing.T) {
			s, err := directSession(e)
			if err != nil {
				t.Fatal(err)
			}
			checkHTTPCall(t, s)
			for i := range 20 {
				if err := s.Echo(); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
		})
	}
}

// checkHTTPCall checks one tools/call of s's era with text that needs
// escaping; in 2026-07-28, Call has checked that the result is complete.
func checkHTTPCall(t *testing.T, s *HTTPSession) {
	t.Helper()
	checkEchoResult(t, s.Call)
	if s.SessionID() != "" && s.era == Modern {
		t.Errorf("a %s client has session id %q", ModernVersion, s.SessionID())
	}
}

// TestGoSDKStatefulHTTP pins why go-sdk's 2026-07-28 rows over HTTP use
// its stateless handler: its session-keeping handler, the one its legacy
// rows use, refuses a 2026-07-28 request with -32022. Should a later SDK
// serve both eras on it, this fails, and the benchmark should drop
// Stateless.
func TestGoSDKStatefulHTTP(t *testing.T) {
	h, err := gosdkecho.HTTP()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewModernHTTPSession(NewDirect(h), "http://localhost/mcp", "c")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Echo()
	if err == nil || !strings.Contains(err.Error(), "-32022") {
		t.Errorf("a %s call on go-sdk's stateful handler: %v; want -32022", ModernVersion, err)
	}
}

// TestClients checks what Clients measures of mcpgen: 2026-07-28 clients
// that came and went leave no sessions, goroutines or memory behind;
// legacy ones leave a session each, until it expires or is deleted.
// BenchmarkClients measures every server with more clients.
func TestClients(t *testing.T) {
	const n = 300
	var mcpgen Server
	for _, s := range Servers {
		if s.Name == "mcpgen" {
			mcpgen = s
		}
	}
	modern, err := Clients(context.Background(), Entry{mcpgen, Modern}, n, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := Clients(context.Background(), Entry{mcpgen, Legacy}, n, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []ClientsResult{modern, legacy} {
		t.Logf("%s: %d clients left %.0f B heap, %.0f B stack, %.2f goroutines each; %d sessions running",
			r.Entry, r.Clients, r.HeapPerClient, r.StackPerClient, r.GoroutinesPerClient, r.Sessions)
	}
	// The heap per client is BenchmarkClients' to report: whole-process
	// readings are a measurement, not a count a test can hold exactly.
	if modern.Sessions != 0 || modern.GoroutinesPerClient > 0 {
		t.Errorf("%s clients left %d sessions and %.2f goroutines each; want none",
			ModernVersion, modern.Sessions, modern.GoroutinesPerClient)
	}
	if legacy.Sessions != n+4 { // the warm-up's clients are sessions too
		t.Errorf("legacy clients left %d sessions running, want %d (they end on DELETE or expiry)", legacy.Sessions, n+4)
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
