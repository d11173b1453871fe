package gateway

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// TestMain doubles as the upstream servers of the tests: with
// GATEWAY_TEST_UPSTREAM set, the test binary serves one over stdio.
func TestMain(m *testing.M) {
	if name := os.Getenv("GATEWAY_TEST_UPSTREAM"); name != "" {
		serveUpstream(name)
		return
	}
	// Built with -race, each upstream process would sleep a second on
	// exit (the race detector's atexit_sleep_ms) and every test that
	// stops one would wait for it. The upstreams inherit this.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

func serveUpstream(name string) {
	s := server.New(mcp.Implementation{Name: name, Version: "1"}, upstreamOptions())
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: t}}}}
	}
	for _, tool := range []string{"echo", "secret_write"} {
		_ = s.AddTool(mcp.Tool{Name: tool}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return text(name + ":" + p.Name), nil
		})
	}
	_ = s.AddTool(mcp.Tool{Name: "big"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text(strings.Repeat("x", 2<<20)), nil
	})
	_ = s.AddPrompt(mcp.Prompt{Name: "greet"}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: name + ":" + p.Name, Messages: []mcp.PromptMessage{}}, nil
	})
	_ = s.AddResource(mcp.Resource{URI: name + "://r", Name: "r"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: name}}}}, nil
	})
	extendUpstream(s)
	fmt.Fprintln(os.Stderr, "upstream", name, "ready")
	_ = s.ServeStdio(context.Background())
}

func upstreamConfig(t testing.TB, name string, prefix *string, extra string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := ""
	if prefix != nil {
		p = fmt.Sprintf("        prefix: %q\n", *prefix)
	}
	return fmt.Sprintf("      - name: %s\n        command: [%q]\n        env: {GATEWAY_TEST_UPSTREAM: %s}\n%s%s", name, exe, name, p, extra)
}

func startGateway(t *testing.T, upstreams string) (*Gateway, error) {
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n"+upstreams))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := g.Start(ctx); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = g.Close() })
	return g, nil
}

func connect(t *testing.T, g *Gateway, opts *client.Options) *client.Session {
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), streamable.NewClientTransport(ts.URL+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func toolNames(t *testing.T, s *client.Session) []string {
	var names []string
	for tool, err := range s.AllTools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func firstText(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].Value.(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func TestAggregateRouteFilter(t *testing.T) {
	g, err := startGateway(t, upstreamConfig(t, "a", nil, "        exclude: [\"secret_*\"]\n")+upstreamConfig(t, "b", nil, "        includeRegex: [\"^(echo|greet)$\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, g, nil)
	ctx := context.Background()
	got := toolNames(t, s)
	slices.Sort(got)
	if want := []string{"a__big", "a__echo", "b__echo"}; !slices.Equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
	r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "b__echo"})
	if err != nil || firstText(r) != "b:echo" {
		t.Fatalf("b__echo: %v %q", err, firstText(r))
	}
	p, err := s.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "a__greet"})
	if err != nil || p.Description != "a:greet" {
		t.Fatalf("a__greet: %v %+v", err, p)
	}
	rr, err := s.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "b://r"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Value.(*mcp.TextResourceContents).Text != "b" {
		t.Fatalf("b://r: %v %+v", err, rr)
	}
	if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__secret_write"}); err == nil {
		t.Fatal("an excluded tool was called")
	}
}

func TestCollisionRefused(t *testing.T) {
	empty := ""
	_, err := startGateway(t, upstreamConfig(t, "a", &empty, "")+upstreamConfig(t, "b", &empty, ""))
	var ce *CollisionError
	if err == nil || !strings.Contains(err.Error(), "upstream a and upstream b") {
		t.Fatalf("err = %v, want a collision naming a and b", err)
	}
	_ = ce
}

func TestHostileOversized(t *testing.T) {
	old := MaxMessageSize
	MaxMessageSize = 1 << 20
	t.Cleanup(func() { MaxMessageSize = old })
	g, err := startGateway(t, upstreamConfig(t, "a", nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, g, nil)
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__big"})
	if err == nil && !r.IsError {
		t.Fatalf("an oversized result came through: %d bytes", len(firstText(r)))
	}
	// The call fails at once, saying why, instead of waiting for an
	// answer that was dropped.
	why := fmt.Sprint(err)
	if err == nil {
		why = firstText(r)
	}
	if !strings.Contains(why, "message too large") {
		t.Errorf("the oversized result's call says %q", why)
	}
}

func TestKilledUpstreamRestarts(t *testing.T) {
	g, err := startGateway(t, upstreamConfig(t, "a", nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	var changed atomic.Int32
	s := connect(t, g, &client.Options{Era: mcp.EraLegacy, OnToolsListChanged: func() { changed.Add(1) }})
	if n := len(toolNames(t, s)); n != 3 {
		t.Fatalf("%d tools before the kill", n)
	}
	u := g.virtuals["default"].ups[0]
	u.mu.Lock()
	pid := u.proc.Pid()
	u.mu.Unlock()
	p, _ := os.FindProcess(pid)
	_ = p.Kill()
	sawGone := false
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n := len(toolNames(t, s))
		if n == 0 {
			sawGone = true
		}
		if sawGone && n == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !sawGone || len(toolNames(t, s)) != 3 {
		t.Fatalf("tools gone %v, now %d", sawGone, len(toolNames(t, s)))
	}
	if changed.Load() < 2 {
		t.Fatalf("%d list_changed notifications, want at least 2", changed.Load())
	}
}
