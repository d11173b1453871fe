package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

func TestHandshake(t *testing.T) {
	sess, f := connect(t, "", &client.Options{
		CreateMessage: func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return nil, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) { return nil, nil },
	})
	if got := sess.ProtocolVersion(); got != client.DefaultProtocolVersion {
		t.Errorf("ProtocolVersion() = %q, want %q", got, client.DefaultProtocolVersion)
	}
	if got := sess.InitializeResult().ServerInfo.Name; got != "fake" {
		t.Errorf("server name = %q, want fake", got)
	}
	if sess.ServerCapabilities().Tools == nil {
		t.Error("ServerCapabilities().Tools = nil, want the server's tools capability")
	}
	f.nextNote(t, mcp.MethodInitializedNotification)

	f.mu.Lock()
	init := f.init
	f.mu.Unlock()
	if init.ClientInfo.Name != "test-client" || init.ProtocolVersion != string(client.DefaultProtocolVersion) {
		t.Errorf("initialize sent clientInfo %q and version %q", init.ClientInfo.Name, init.ProtocolVersion)
	}
	caps := init.Capabilities
	if caps.Sampling == nil || caps.Roots == nil || !caps.Roots.ListChanged {
		t.Errorf("capabilities sent = %+v, want sampling and roots with listChanged", caps)
	}
	if caps.Elicitation != nil {
		t.Error("elicitation declared without an Elicit handler")
	}
}

func TestHandshakeVersions(t *testing.T) {
	tests := []struct {
		offered string
		ok      bool
	}{
		{"2025-11-25", true},
		{"2025-03-26", true},
		{"2024-11-05", true},
		{"2026-07-28", false}, // modern era: no initialize
		{"2099-01-01", false},
		{"not-a-version", false},
	}
	for _, tt := range tests {
		t.Run(tt.offered, func(t *testing.T) {
			a, b := transport.NewPipe()
			f := serve(t, b, tt.offered)
			c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
			sess, err := c.Connect(context.Background(), a)
			if tt.ok {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				defer sess.Close()
				if got := string(sess.ProtocolVersion()); got != tt.offered {
					t.Errorf("ProtocolVersion() = %q, want %q", got, tt.offered)
				}
				return
			}
			var ve *client.VersionError
			if !errors.As(err, &ve) {
				t.Fatalf("Connect error = %v, want a *client.VersionError", err)
			}
			if string(ve.Offered) != f.version || ve.Requested != client.DefaultProtocolVersion {
				t.Errorf("VersionError = %+v", ve)
			}
			if !strings.Contains(err.Error(), string(client.DefaultProtocolVersion)) {
				t.Errorf("error %q does not name the version asked for", err)
			}
			waitClosed(t, f.conn)
		})
	}
}

// waitClosed fails the test unless conn shuts down soon.
func waitClosed(t *testing.T, conn *jsonrpc.Conn) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		conn.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was left open")
	}
}

func TestRequestedVersionMustBeKnown(t *testing.T) {
	a, b := transport.NewPipe()
	defer b.Close()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: "1999-01-01"})
	_, err := c.Connect(context.Background(), a)
	var ve *client.VersionError
	if !errors.As(err, &ve) || ve.Offered != "" {
		t.Fatalf("Connect error = %v, want a *client.VersionError with no offer", err)
	}
}

func TestCallTool(t *testing.T) {
	sess, f := connect(t, "", nil)
	res, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo", Arguments: json.RawMessage(`{"x":1}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := text(t, res); got != `{"x":1}` {
		t.Errorf("echo = %q", got)
	}
	if tok := <-f.tokens; tok != "" {
		t.Errorf("progress token %s sent without a RequestTimeout", tok)
	}
	_, err = sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "nonesuch"})
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: err = %v, want the server's -32602", err)
	}
	if _, err := sess.Ping(context.Background(), nil); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestAllTools(t *testing.T) {
	sess, _ := connect(t, "", nil)
	var names []string
	for tool, err := range sess.AllTools(context.Background()) {
		if err != nil {
			t.Fatalf("AllTools: %v", err)
		}
		names = append(names, tool.Name)
	}
	if want := slices.Concat(toolPages...); !slices.Equal(names, want) {
		t.Errorf("AllTools = %v, want %v", names, want)
	}
}

// cancelledID returns the requestId of a notifications/cancelled.
func cancelledID(t *testing.T, n note) jsonrpc.ID {
	t.Helper()
	var p struct{ RequestID json.RawMessage }
	if err := json.Unmarshal(n.params, &p); err != nil {
		t.Fatalf("notifications/cancelled params %s: %v", n.params, err)
	}
	id, err := jsonrpc.ParseID(p.RequestID)
	if err != nil {
		t.Fatalf("notifications/cancelled requestId %s: %v", p.RequestID, err)
	}
	return id
}

func TestCancellation(t *testing.T) {
	sess, f := connect(t, "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "block"})
		errc <- err
	}()
	id := <-f.blocked
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool after cancel: err = %v, want context.Canceled", err)
	}
	if got := cancelledID(t, f.nextNote(t, mcp.MethodCancelledNotification)); got != id {
		t.Errorf("notifications/cancelled for request %v, want %v", got, id)
	}
	// The session carries on.
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
		t.Errorf("CallTool after a cancellation: %v", err)
	}
}

func TestTimeoutWithoutProgress(t *testing.T) {
	sess, f := connect(t, "", &client.Options{RequestTimeout: 100 * time.Millisecond})
	_, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "block"})
	if !errors.Is(err, client.ErrRequestTimeout) || !strings.Contains(err.Error(), "RequestTimeout") {
		t.Fatalf("CallTool: err = %v, want ErrRequestTimeout", err)
	}
	id := <-f.blocked
	if got := cancelledID(t, f.nextNote(t, mcp.MethodCancelledNotification)); got != id {
		t.Errorf("notifications/cancelled for request %v, want %v", got, id)
	}
	if tok := <-f.tokens; tok == "" {
		t.Error("a request with a timeout carried no progress token")
	}
}

// Runs in a synctest bubble: the clock moves only when every goroutine
// waits, so a loaded machine cannot stretch the 50ms steps past the
// timeout.
func TestProgressExtendsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		progress := make(chan float64, 100)
		sess, f := connect(t, "", &client.Options{
			RequestTimeout: 200 * time.Millisecond,
			OnProgress:     func(p *mcp.ProgressNotificationParams) { progress <- p.Progress },
		})
		// Eight steps 50ms apart take twice the timeout.
		res, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "progress", Arguments: json.RawMessage(`{"steps":8,"every":50}`)})
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		if got := text(t, res); got != "done" {
			t.Errorf("result = %q", got)
		}
		if tok := <-f.tokens; tok == "" {
			t.Error("no progress token sent")
		}
		for want := 1.0; want <= 8; want++ {
			select {
			case got := <-progress:
				if got != want {
					t.Errorf("progress = %v, want %v", got, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("progress %v never reached OnProgress", want)
			}
		}
	})
}

func TestMaxRequestTimeout(t *testing.T) {
	sess, f := connect(t, "", &client.Options{
		RequestTimeout:    200 * time.Millisecond,
		MaxRequestTimeout: 400 * time.Millisecond,
	})
	// Progress every 50ms would go on for two seconds.
	start := time.Now()
	_, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "progress", Arguments: json.RawMessage(`{"steps":40,"every":50}`)})
	if !errors.Is(err, client.ErrRequestTimeout) || !strings.Contains(err.Error(), "MaxRequestTimeout") {
		t.Fatalf("CallTool: err = %v, want ErrRequestTimeout for MaxRequestTimeout", err)
	}
	if d := time.Since(start); d >= 2*time.Second {
		t.Errorf("the request ran %v, past its MaxRequestTimeout", d)
	}
	f.nextNote(t, mcp.MethodCancelledNotification)
}

func TestUserProgressTokenKept(t *testing.T) {
	sess, f := connect(t, "", &client.Options{RequestTimeout: time.Second})
	_, err := sess.Caller.Call(context.Background(), mcp.MethodCallTool, []byte(`{"name":"echo","_meta":{"progressToken":"mine"}}`))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if tok := <-f.tokens; tok != `"mine"` {
		t.Errorf("progress token = %s, want the caller's own", tok)
	}
}

// With OnProgress alone every request asks for progress; with
// CallerProgressTokens only those that bring their own token do, and
// OnProgress hears of those.
func TestCallerProgressTokens(t *testing.T) {
	for _, own := range []bool{false, true} {
		progress := make(chan string, 10)
		sess, f := connect(t, "", &client.Options{
			OnProgress:           func(p *mcp.ProgressNotificationParams) { progress <- p.ProgressToken.String() },
			CallerProgressTokens: own,
		})
		if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		if tok := <-f.tokens; (tok == "") != own {
			t.Errorf("CallerProgressTokens %v: a request without a token of its own went with progress token %q", own, tok)
		}
		_, err := sess.Caller.Call(context.Background(), mcp.MethodCallTool, []byte(`{"name":"progress","arguments":{"steps":2,"every":1},"_meta":{"progressToken":"mine"}}`))
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		if tok := <-f.tokens; tok != `"mine"` {
			t.Errorf("CallerProgressTokens %v: progress token = %s, want the caller's own", own, tok)
		}
		for range 2 {
			select {
			case tok := <-progress:
				if tok != "mine" {
					t.Errorf("CallerProgressTokens %v: OnProgress heard of token %q", own, tok)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("CallerProgressTokens %v: progress never reached OnProgress", own)
			}
		}
	}
}

func TestServerRequests(t *testing.T) {
	full := &client.Options{
		CreateMessage: func(_ context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{
				Model:   "fake-model",
				Role:    mcp.RoleAssistant,
				Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "sampled"}},
			}, nil
		},
		Elicit: func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil
		},
	}
	tests := []struct {
		name string
		opts *client.Options
		tool string
		want string // a substring of what the server got back
	}{
		{"sampling", full, "sample", `"sampled"`},
		{"elicitation", full, "elicit", `"decline"`},
		{"roots", full, "roots", `"file:///work"`},
		{"ping", full, "ping", `{}`},
		{"sampling unset", nil, "sample", "error -32601"},
		{"elicitation unset", nil, "elicit", "error -32601"},
		{"roots unset", nil, "roots", "error -32601"},
		{"ping unset", nil, "ping", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess, _ := connect(t, "", tt.opts)
			res, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: tt.tool})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if got := text(t, res); !strings.Contains(got, tt.want) {
				t.Errorf("the server got %s, want it to hold %s", got, tt.want)
			}
		})
	}
}

func TestServerCancelsHandler(t *testing.T) {
	stopped := make(chan error, 1)
	sess, _ := connect(t, "", &client.Options{
		CreateMessage: func(ctx context.Context, _ *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			select {
			case <-ctx.Done():
				stopped <- ctx.Err()
			case <-time.After(10 * time.Second):
				stopped <- errors.New("never cancelled")
			}
			return nil, ctx.Err()
		},
	})
	res, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "sample_abandoned"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := text(t, res); !strings.Contains(got, "deadline") {
		t.Errorf("the server's call ended with %q, want its deadline", got)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx: %v, want context.Canceled from notifications/cancelled", err)
	}
}

func TestNotifications(t *testing.T) {
	got := make(chan string, 100)
	sess, _ := connect(t, "", &client.Options{
		OnLog: func(p *mcp.LoggingMessageNotificationParams) {
			got <- "log " + string(p.Level) + " " + string(p.Data)
		},
		OnProgress:             func(p *mcp.ProgressNotificationParams) { got <- "progress " + p.ProgressToken.String() },
		OnToolsListChanged:     func() { got <- "tools" },
		OnPromptsListChanged:   func() { got <- "prompts" },
		OnResourcesListChanged: func() { got <- "resources" },
		OnResourceUpdated:      func(uri string) { got <- "updated " + uri },
	})
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "notify"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	want := []string{
		`log warning {"msg":"careful"}`,
		"progress nobody",
		"tools",
		"prompts",
		"resources",
		"updated file:///x",
	}
	for _, w := range want {
		select {
		case g := <-got:
			if g != w {
				t.Errorf("callback got %q, want %q", g, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("callback for %q never called", w)
		}
	}
}

func TestCallbackMayCallSession(t *testing.T) {
	listed := make(chan int, 1)
	var sess *client.Session
	ready := make(chan struct{})
	sess, _ = connect(t, "", &client.Options{
		OnToolsListChanged: func() {
			<-ready
			res, err := sess.ListTools(context.Background(), nil)
			if err != nil {
				listed <- -1
				return
			}
			listed <- len(res.Tools)
		},
	})
	close(ready)
	if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "notify"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	select {
	case n := <-listed:
		if n != len(toolPages[0]) {
			t.Errorf("ListTools from a callback returned %d tools", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ListTools from a callback never returned")
	}
}

func TestServerGoesAway(t *testing.T) {
	sess, f := connect(t, "", nil)
	f.conn.Close()
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Wait = %v, want nil after the server closed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the server went away")
	}
	if _, err := sess.ListTools(context.Background(), nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("ListTools after the end: err = %v, want ErrClosed", err)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := testutil.Goroutines()
	sampling := make(chan struct{})
	func() {
		a, b := transport.NewPipe()
		f := newFake(b, "")
		go f.conn.Run(context.Background())
		defer func() {
			f.conn.Close()
			f.conn.Wait()
		}()
		c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
			RequestTimeout:     time.Second,
			OnToolsListChanged: func() {},
			CreateMessage: func(ctx context.Context, _ *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
				close(sampling)
				<-ctx.Done() // stopped by Close
				return nil, ctx.Err()
			},
		})
		sess, err := c.Connect(context.Background(), a)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		if _, err := sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "notify"}); err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		go sess.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "sample"})
		<-sampling
		if err := sess.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	testutil.WaitGoroutines(t, before)
}
