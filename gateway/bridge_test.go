package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The era bridge: each pair of eras, downstream client and upstream
// server, for calls, the three kinds of questions, progress, log messages
// and cancellation. The upstream is this test binary again, started by
// the gateway with GATEWAY_TEST_BRIDGE set (init below, ahead of TestMain),
// speaking both eras, or only the legacy one with GATEWAY_TEST_LEGACY.

func init() {
	if os.Getenv("GATEWAY_TEST_BRIDGE") != "" {
		serveBridgeUpstream(os.Getenv("GATEWAY_TEST_LEGACY") != "")
		os.Exit(0)
	}
}

// serveBridgeUpstream serves the tools the bridge tests call over stdio.
func serveBridgeUpstream(legacy bool) {
	_ = newBridgeServer(legacy).ServeStdio(context.Background())
}

// newBridgeServer returns the server of the tools the bridge tests call.
func newBridgeServer(legacy bool) *server.Server {
	s := server.New(mcp.Implementation{Name: "bridge", Version: "1"}, nil)
	if legacy {
		// A server of the legacy era only: the client's probe fails, and
		// it initializes.
		s.Use(func(next server.HandlerFunc) server.HandlerFunc {
			return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
				if req.Method == mcp.MethodDiscover || req.ProtocolVersion.Era() == mcp.EraModern {
					return nil, jsonrpc.ErrMethodNotFound(req.Method)
				}
				return next(ctx, req)
			}
		})
	}
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: t}}}}
	}
	add := func(name string, h server.ToolHandler) { _ = s.AddTool(mcp.Tool{Name: name}, h) }
	era := func(ctx context.Context) string {
		if server.SessionFrom(ctx) != nil {
			return "legacy"
		}
		return "modern"
	}
	add("echo", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text("echo from " + era(ctx)), nil
	})
	add("ask", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "your name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"name": {Value: &mcp.StringSchema{}}}}}})
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return text(string(r.Action) + ":" + string(name)), nil
	})
	add("sample", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.CreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 10,
			Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: "hi"}}}}})
		if err != nil {
			return nil, err
		}
		return text("sampled:" + r.Model), nil
	})
	add("roots", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, root := range r.Roots {
			uris = append(uris, root.URI)
		}
		return text("roots:" + strings.Join(uris, ",")), nil
	})
	// all asks the three questions at once: one round in 2026-07-28.
	add("all", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		e, err1 := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "ok?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}}}, server.InputKey("confirm"))
		m, err2 := server.CreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}}, server.InputKey("model"))
		r, err3 := server.ListRoots(ctx, server.InputKey("where"))
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("%s/%s/%d", e.Action, m.Model, len(r.Roots))), nil
	})
	add("progress", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		_ = server.Progress(ctx, 1, 2, "half")
		_ = server.Progress(ctx, 2, 2, "done")
		return text("progressed"), nil
	})
	add("log", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		_ = server.Log(ctx, mcp.LoggingLevelDebug, "up", "quiet")
		_ = server.Log(ctx, mcp.LoggingLevelWarning, "up", "loud")
		return text("logged"), nil
	})
	var waiting, cancelled atomic.Int32
	add("wait", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		waiting.Add(1)
		defer waiting.Add(-1)
		<-ctx.Done()
		cancelled.Add(1)
		return nil, ctx.Err()
	})
	add("waits", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf("%d/%d", waiting.Load(), cancelled.Load())), nil
	})
	_ = s.AddPrompt(mcp.Prompt{Name: "ask_prompt"}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "topic?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"name": {Value: &mcp.StringSchema{}}}}}})
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return &mcp.GetPromptResult{Description: "about " + string(name), Messages: []mcp.PromptMessage{}}, nil
	})
	// job runs as a task when its client takes one; jobAsk asks first.
	_ = s.AddTool(mcp.Tool{Name: "job"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if server.TaskID(ctx) == "" {
			return text("job ran at once"), nil
		}
		return text("job ran as task"), nil
	}, server.WithTaskSupport(server.TaskOptional))
	_ = s.AddTool(mcp.Tool{Name: "job_ask"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "go?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}}}, server.InputKey("go"))
		if err != nil {
			return nil, err
		}
		if server.TaskID(ctx) == "" {
			return text("job_ask at once: " + string(r.Action)), nil
		}
		return text("job_ask as task: " + string(r.Action)), nil
	}, server.WithTaskSupport(server.TaskOptional))
	return s
}

// startBridge starts a gateway in front of one bridge upstream.
func startBridge(t *testing.T, legacy bool) *Gateway {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := "{GATEWAY_TEST_BRIDGE: up}"
	if legacy {
		env = "{GATEWAY_TEST_BRIDGE: up, GATEWAY_TEST_LEGACY: \"1\"}"
	}
	g, err := startGateway(t, fmt.Sprintf("      - name: up\n        command: [%q]\n        env: %s\n        prefix: \"\"\n", exe, env))
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.virtuals["default"].ups[0].session()
	if err != nil {
		t.Fatal(err)
	}
	want := mcp.EraModern
	if legacy {
		want = mcp.EraLegacy
	}
	if s.Era() != want {
		t.Fatalf("the gateway speaks %v to the upstream, want %v", s.Era(), want)
	}
	return g
}

// eras are the pairs of the bridge tests: the downstream client's era and
// whether the upstream is legacy.
var eras = []struct {
	name   string
	down   mcp.Era
	legacy bool
}{
	{"modern-to-modern", mcp.EraModern, false},
	{"modern-to-legacy", mcp.EraModern, true},
	{"legacy-to-modern", mcp.EraLegacy, false},
	{"legacy-to-legacy", mcp.EraLegacy, true},
}

// downstream is a client of the gateway and what it heard.
type downstream struct {
	s *client.Session

	mu       sync.Mutex
	progress []string
	logs     []string
	asked    []string
}

func (d *downstream) heard(list *[]string, s string) {
	d.mu.Lock()
	*list = append(*list, s)
	d.mu.Unlock()
}

func (d *downstream) snapshot(list *[]string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(*list)
}

func connectDown(t *testing.T, g *Gateway, era mcp.Era) *downstream {
	d := &downstream{}
	d.s = connect(t, g, &client.Options{
		Era:      era,
		LogLevel: mcp.LoggingLevelInfo,
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			d.heard(&d.asked, "elicit")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]mcp.ElicitResultContentValue{"name": {Value: mcp.ElicitResultContentValueString("Ada")}}}, nil
		},
		CreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			d.heard(&d.asked, "sample")
			return &mcp.CreateMessageResult{Model: "m1", Role: "assistant", Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "x"}}}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			d.heard(&d.asked, "roots")
			return []mcp.Root{{URI: "file:///a"}, {URI: "file:///b"}}, nil
		},
		OnProgress: func(p *mcp.ProgressNotificationParams) { d.heard(&d.progress, p.Message) },
		OnLog: func(p *mcp.LoggingMessageNotificationParams) {
			var s string
			_ = json.Unmarshal(p.Data, &s)
			d.heard(&d.logs, string(p.Level)+":"+s)
		},
	})
	if d.s.Era() != era {
		t.Fatalf("the client speaks %v to the gateway, want %v", d.s.Era(), era)
	}
	return d
}

func callText(t *testing.T, s *client.Session, name string) string {
	t.Helper()
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.IsError {
		t.Fatalf("%s: error result %q", name, firstText(r))
	}
	return firstText(r)
}

func TestEraBridge(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			g := startBridge(t, e.legacy)
			d := connectDown(t, g, e.down)
			upEra := "modern"
			if e.legacy {
				upEra = "legacy"
			}
			if got := callText(t, d.s, "echo"); got != "echo from "+upEra {
				t.Errorf("echo: %q", got)
			}
			if got := callText(t, d.s, "ask"); got != "accept:Ada" {
				t.Errorf("ask: %q", got)
			}
			if got := callText(t, d.s, "sample"); got != "sampled:m1" {
				t.Errorf("sample: %q", got)
			}
			if got := callText(t, d.s, "roots"); got != "roots:file:///a,file:///b" {
				t.Errorf("roots: %q", got)
			}
			if got := callText(t, d.s, "all"); got != "accept/m1/2" {
				t.Errorf("all: %q", got)
			}
			// A call that has answered is no longer in flight: the next
			// may start at once, and the upstream's requests and log
			// messages are forwarded only while a single call is.
			u := g.virtuals["default"].ups[0]
			u.mu.Lock()
			inFlight := len(u.calls)
			u.mu.Unlock()
			if inFlight != 0 {
				t.Errorf("%d calls still tracked once they have answered", inFlight)
			}
			if got := d.snapshot(&d.asked); !slices.Equal(got, []string{"elicit", "sample", "roots", "elicit", "sample", "roots"}) {
				t.Errorf("the client was asked %q", got)
			}
			if p, err := d.s.GetPrompt(context.Background(), &mcp.GetPromptRequestParams{Name: "ask_prompt"}); err != nil || p.Description != "about Ada" {
				t.Errorf("ask_prompt: %v %v", p, err)
			}
			if got := callText(t, d.s, "progress"); got != "progressed" {
				t.Errorf("progress: %q", got)
			}
			_ = d.s.Flush(context.Background())
			if got := d.snapshot(&d.progress); !slices.Equal(got, []string{"half", "done"}) {
				t.Errorf("progress heard %q, want half and done, ahead of the result", got)
			}
			if got := callText(t, d.s, "log"); got != "logged" {
				t.Errorf("log: %q", got)
			}
			_ = d.s.Flush(context.Background())
			if got := d.snapshot(&d.logs); !slices.Equal(got, []string{"warning:loud"}) {
				t.Errorf("logs heard %q, want only the warning (the client asked for info), ahead of the result", got)
			}
			// The probe is a client of its own: a runtime client's
			// 2026-07-28 HTTP request holds its Conn's writes until the
			// server answers its POST, which a call answered in JSON does
			// only at its end.
			testCancel(t, d.s, connectDown(t, g, e.down).s)
		})
	}
}

// testCancel cancels a call that waits upstream, and checks that the
// upstream's handler saw its ctx end.
func testCancel(t *testing.T, s, probe *client.Session) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "wait"})
		done <- err
	}()
	waitFor(t, func() bool { return callText(t, probe, "waits") == "1/0" }, "the wait call to reach the upstream")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	waitFor(t, func() bool { return callText(t, probe, "waits") == "0/1" }, "the upstream's wait to be cancelled")
}

// waitFor polls cond until it holds, failing the test after a generous
// bound (no duration is asserted: the bound only keeps a broken run from
// hanging).
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	eventually(t, func() error {
		if cond() {
			return nil
		}
		return errors.New("gave up waiting for " + what)
	})
}

// TestBridgeAsksOnlyWhatTheClientHandles: a legacy upstream's session
// with the gateway declares every capability, but its questions reach a
// client only if that client declared them: roots asked of one without
// roots are none, elicitation asked of one without it is refused, in
// either era of the client.
func TestBridgeAsksOnlyWhatTheClientHandles(t *testing.T) {
	for _, down := range []mcp.Era{mcp.EraModern, mcp.EraLegacy} {
		t.Run(fmt.Sprint(down), func(t *testing.T) {
			g := startBridge(t, true)
			s := connect(t, g, &client.Options{Era: down})
			if got := callText(t, s, "roots"); got != "roots:" {
				t.Errorf("roots of a client without roots: %q", got)
			}
			r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "ask"})
			if err == nil && !r.IsError {
				t.Errorf("elicitation of a client without it answered %q", firstText(r))
			}
		})
	}
}
