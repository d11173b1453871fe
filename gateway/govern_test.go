package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gateway/audit"
	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The callers of the governance tests, named by the X-Test-Principal
// header that stands in for a token.
var testPrincipals = map[string]authz.Principal{
	"alice": {Subject: "alice", Issuer: "https://idp.test", Claims: map[string]any{"role": "admin"}},
	"bob":   {Subject: "bob", Issuer: "https://idp.test", Scopes: []string{"mcp:read"}},
	"carol": {Subject: "carol", Issuer: "https://idp.test", Scopes: []string{"mcp:read", "mcp:write"}},
	// Two callers whose subject@issuer reads the same.
	"dave": {Subject: "dave@corp", Issuer: "https://idp.test"},
	"eve":  {Subject: "dave", Issuer: "corp@https://idp.test"},
}

// governed is a gateway of one virtual server, "default", served with
// the test principals.
type governed struct {
	g     *Gateway
	url   string
	audit string // the audit file, when the config has an audit section
}

// startGoverned starts a gateway whose default server has the sections
// in server (YAML indented for a server's keys) and the upstreams; with
// withAudit, an audit section writing to a file, plus the audit keys in
// auditKeys. before runs between New and Start.
func startGoverned(t *testing.T, srv, upstreams string, withAudit bool, auditKeys string, before func(*Gateway)) *governed {
	t.Helper()
	gv := &governed{}
	top := ""
	if withAudit {
		gv.audit = filepath.Join(t.TempDir(), "audit.jsonl")
		top = fmt.Sprintf("audit:\n  file: %q\n%s", gv.audit, auditKeys)
	}
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\n"+top+"servers:\n  default:\n"+srv+"    upstreams:\n"+upstreams))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(g)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	h := streamable.NewHandler(g.Server("default"), &streamable.HandlerOptions{
		Authenticate: func(r *http.Request) (any, error) {
			name := r.Header.Get("X-Test-Principal")
			if name == "" {
				return nil, nil
			}
			p, ok := testPrincipals[name]
			if !ok {
				return nil, errors.New("unknown test principal")
			}
			return p, nil
		},
	})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	gv.g, gv.url = g, ts.URL
	return gv
}

// connectAs connects a client as the test principal who ("" for
// anonymous).
func (gv *governed) connectAs(t *testing.T, who string, opts *client.Options) *client.Session {
	t.Helper()
	h := http.Header{}
	if who != "" {
		h.Set("X-Test-Principal", who)
	}
	s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), streamable.NewClientTransport(gv.url, &streamable.ClientOptions{Header: h}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// auditLines closes the gateway, which writes what its audit log has
// queued, and returns the lines.
func (gv *governed) auditLines(t *testing.T) []map[string]any {
	t.Helper()
	if err := gv.g.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(gv.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// upstreamTools is an in-process Streamable HTTP upstream: the tests that
// count what reaches the upstream, or make it slow or fail, use it.
func upstreamTools(t testing.TB, tools map[string]server.ToolHandler, annotations map[string]*mcp.ToolAnnotations) string {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "h", Version: "1"}, nil)
	for name, h := range tools {
		if err := s.AddTool(mcp.Tool{Name: name, Annotations: annotations[name]}, h); err != nil {
			t.Fatal(err)
		}
	}
	h := streamable.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return fmt.Sprintf("      - name: h\n        url: %q\n", ts.URL)
}

const authzSection = `    trust: internal
    authz:
      rules:
        - name: admins
          allow: 'principal.claims.?role.orValue("") == "admin"'
        - name: writers
          allow: '"mcp:write" in principal.scopes'
        - name: echo-for-readers
          allow: '"mcp:read" in principal.scopes && (request.kind != "tool" || request.name == "a__echo")'
`

func TestAuthzFiltersPerCaller(t *testing.T) {
	gv := startGoverned(t, authzSection, upstreamConfig(t, "a", nil, ""), false, "", nil)
	ctx := context.Background()
	all := []string{"a__big", "a__echo", "a__secret_write"}
	for who, want := range map[string][]string{
		"alice": all,         // by claim
		"carol": all,         // by scope
		"bob":   {"a__echo"}, // read scope: echo only
		"":      nil,         // anonymous: the default denies
	} {
		s := gv.connectAs(t, who, &client.Options{Era: mcp.EraLegacy})
		if got := sortedToolNames(t, s); !slices.Equal(got, want) {
			t.Errorf("%q sees %q, want %q", who, got, want)
		}
	}

	bob := gv.connectAs(t, "bob", &client.Options{Era: mcp.EraLegacy})
	if r, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil || firstText(r) != "a:echo" {
		t.Fatalf("bob a__echo: %v %q", err, firstText(r))
	}
	// A denied tool answers as an unknown one: bob cannot tell it exists.
	_, denied := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__secret_write"})
	_, unknown := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__nothing_here"})
	if denied == nil || unknown == nil || strings.ReplaceAll(denied.Error(), "a__secret_write", "X") != strings.ReplaceAll(unknown.Error(), "a__nothing_here", "X") {
		t.Fatalf("denied %v, unknown %v", denied, unknown)
	}
	// A completion of a hidden prompt answers as one of an unknown prompt.
	anon := gv.connectAs(t, "", &client.Options{Era: mcp.EraLegacy})
	for _, name := range []string{"a__greet", "a__no_such_prompt"} {
		c, err := anon.Complete(ctx, &mcp.CompleteRequestParams{Ref: mcp.CompleteRequestParamsRef{Value: &mcp.PromptReference{Name: name}}, Argument: mcp.CompleteRequestParamsArgument{Name: "x"}})
		if err != nil || len(c.Completion.Values) != 0 {
			t.Fatalf("completion of %s: %v %+v", name, err, c)
		}
	}
	carol := gv.connectAs(t, "carol", &client.Options{Era: mcp.EraLegacy})
	if r, err := carol.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__secret_write"}); err != nil || firstText(r) != "a:secret_write" {
		t.Fatalf("carol a__secret_write: %v %q", err, firstText(r))
	}

	// A 2026-07-28 client gets its filtered list marked private.
	modern := gv.connectAs(t, "bob", &client.Options{Era: mcp.EraModern})
	res, err := modern.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.CacheScope != "private" {
		t.Fatalf("2026-07-28 list: %d tools, cacheScope %q", len(res.Tools), res.CacheScope)
	}
}

func TestAuthzReload(t *testing.T) {
	gv := startGoverned(t, authzSection, upstreamConfig(t, "a", nil, ""), false, "", nil)
	changed := make(chan struct{}, 8)
	bob := gv.connectAs(t, "bob", &client.Options{Era: mcp.EraLegacy, OnToolsListChanged: func() { changed <- struct{}{} }})
	if got := sortedToolNames(t, bob); len(got) != 1 {
		t.Fatalf("before: %q", got)
	}
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\nservers:\n  default:\n    authz:\n      rules:\n        - allow: 'true'\n    upstreams:\n"+upstreamConfig(t, "a", nil, "")))
	if err != nil {
		t.Fatal(err)
	}
	v := gv.g.virtuals["default"]
	if err := v.setGovern(cfg.Servers["default"]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed after the rules changed")
	}
	if got := sortedToolNames(t, bob); len(got) != 3 {
		t.Fatalf("after the reload: %q", got)
	}
}

func TestAuthzConfigErrors(t *testing.T) {
	for _, tt := range []struct{ name, srv, want string }{
		{"bad expression", "    authz:\n      rules:\n        - name: r1\n          allow: 'request.name =='\n", "test.yaml:10: servers.default.authz: authz: r1 at 1:16"},
		{"not bool", "    authz:\n      rules:\n        - name: r1\n          allow: '1 + 2'\n", "test.yaml:10:"},
		{"unknown key", "    authz:\n      rules:\n        - name: r1\n          alow: 'true'\n", "field alow not found"},
		{"bad rate", "    policy:\n      perTool: {perMinute: -1}\n", "policy.perTool"},
		{"bad approval glob", "    policy:\n      approval: [{tool: '[', require: true}]\n", "policy.approval[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			yml := "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: x\n        command: [x]\n" + tt.srv
			_, err := ParseConfig("test.yaml", []byte(yml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// approvalTools are an upstream's tools for the approval tests: rm has no
// annotations (destructive, as MCP reads it), ls is read-only.
func approvalTools(t *testing.T, calls *atomic.Int32) string {
	h := func(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "did " + p.Name}}}}, nil
	}
	return upstreamTools(t, map[string]server.ToolHandler{"rm": h, "ls": h},
		map[string]*mcp.ToolAnnotations{"ls": {ReadOnlyHint: true}})
}

func TestApproval(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(fmt.Sprint(era), func(t *testing.T) {
			var calls atomic.Int32
			gv := startGoverned(t, "    policy: {}\n", approvalTools(t, &calls), true, "", nil)
			ctx := context.Background()
			var asked atomic.Int32
			answering := func(action mcp.ElicitResultAction) *client.Options {
				return &client.Options{Era: era, Elicit: func(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if f, ok := p.Value.(*mcp.ElicitRequestFormParams); !ok || !strings.Contains(f.Message, "h__rm") {
						return nil, fmt.Errorf("unexpected question %+v", p.Value)
					}
					return &mcp.ElicitResult{Action: action}, nil
				}}
			}

			yes := gv.connectAs(t, "alice", answering(mcp.ElicitResultActionAccept))
			r, err := yes.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__rm", Arguments: json.RawMessage(`{"path":"/tmp/x"}`)})
			if err != nil || r.IsError || firstText(r) != "did rm" || calls.Load() != 1 || asked.Load() != 1 {
				t.Fatalf("accepted: %v %q, %d calls, %d questions", err, firstText(r), calls.Load(), asked.Load())
			}
			// A read-only tool is not asked about.
			if r, err := yes.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__ls"}); err != nil || r.IsError || asked.Load() != 1 {
				t.Fatalf("read-only: %v %+v, %d questions", err, r, asked.Load())
			}
			calls.Store(0)

			for _, action := range []mcp.ElicitResultAction{mcp.ElicitResultActionDecline, mcp.ElicitResultActionCancel} {
				no := gv.connectAs(t, "alice", answering(action))
				r, err = no.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__rm"})
				if err != nil || !r.IsError || !strings.Contains(firstText(r), "needs a human approval") || !strings.Contains(firstText(r), string(action)) {
					t.Fatalf("%s: %v %+v", action, err, r)
				}
			}
			mute := gv.connectAs(t, "alice", &client.Options{Era: era})
			r, err = mute.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__rm"})
			if err != nil || !r.IsError || !strings.Contains(firstText(r), "does not support elicitation") {
				t.Fatalf("no elicitation: %v %+v", err, r)
			}
			if calls.Load() != 0 {
				t.Fatalf("the upstream was called %d times for refused calls", calls.Load())
			}

			var decisions []string
			for _, l := range gv.auditLines(t) {
				if l["name"] == "h__rm" {
					decisions = append(decisions, l["decision"].(string))
				}
			}
			want := []string{"allowed", "approval-declined", "approval-declined", "approval-declined"}
			if era == mcp.EraModern {
				// Each 2026-07-28 call's first round ends asking.
				want = []string{"approval-asked", "allowed", "approval-asked", "approval-declined", "approval-asked", "approval-declined", "approval-declined"}
			}
			if !slices.Equal(decisions, want) {
				t.Fatalf("audit decisions %q, want %q", decisions, want)
			}
		})
	}
}

func TestApprovalOverride(t *testing.T) {
	var calls atomic.Int32
	gv := startGoverned(t, "    policy:\n      approval:\n        - {tool: 'h__rm', require: false}\n        - {tool: 'h__l*', require: true}\n", approvalTools(t, &calls), false, "", nil)
	s := gv.connectAs(t, "alice", &client.Options{Era: mcp.EraLegacy})
	ctx := context.Background()
	if r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__rm"}); err != nil || r.IsError {
		t.Fatalf("rm, approval waived: %v %+v", err, r)
	}
	if r, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__ls"}); err != nil || !r.IsError {
		t.Fatalf("ls, approval required: %v %+v", err, r)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d calls reached the upstream, want 1", calls.Load())
	}
}

func TestRateLimits(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	gv := startGoverned(t, "    policy:\n      perTool: {perMinute: 60, burst: 2}\n      approval: [{tool: '*', require: false}]\n",
		upstreamConfig(t, "a", nil, ""), false, "", func(g *Gateway) { g.gov.now = clock })
	ctx := context.Background()
	bob := gv.connectAs(t, "bob", &client.Options{Era: mcp.EraLegacy})
	for i := range 2 {
		if _, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	_, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != server.CodeRateLimited || !strings.Contains(string(rpc.Data), `"retryAfterMs":1000`) {
		t.Fatalf("third call: %v", err)
	}
	if wait, ok := server.RetryAfter(err); !ok || wait != time.Second {
		t.Fatalf("RetryAfter = %v %v", wait, ok)
	}
	// Another tool, and another caller, have buckets of their own.
	if _, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__secret_write"}); err != nil {
		t.Fatalf("other tool: %v", err)
	}
	carol := gv.connectAs(t, "carol", &client.Options{Era: mcp.EraLegacy})
	if _, err := carol.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
		t.Fatalf("other caller: %v", err)
	}
	// Nor do two callers share a bucket because their subject@issuer
	// reads the same.
	dave := gv.connectAs(t, "dave", &client.Options{Era: mcp.EraLegacy})
	for i := range 2 {
		if _, err := dave.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
			t.Fatalf("dave's call %d: %v", i, err)
		}
	}
	eve := gv.connectAs(t, "eve", &client.Options{Era: mcp.EraLegacy})
	if _, err := eve.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
		t.Fatalf("eve after dave's burst: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if _, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
		t.Fatalf("after the refill: %v", err)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var inFlight, most atomic.Int32
	entered := make(chan struct{}, 8)
	release := make(chan struct{}, 8)
	slow := func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	}
	up := upstreamTools(t, map[string]server.ToolHandler{"slow": slow}, nil) + "        policy: {maxConcurrent: 1}\n"
	gv := startGoverned(t, "", up, false, "", nil)
	s := gv.connectAs(t, "alice", &client.Options{Era: mcp.EraLegacy})
	const n = 3
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "h__slow"})
			errs <- err
		}()
	}
	for range n {
		<-entered
		release <- struct{}{}
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() != 1 {
		t.Fatalf("%d calls were in flight at once, the limit is 1", most.Load())
	}
}

func TestTimeout(t *testing.T) {
	stuck := func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	up := upstreamTools(t, map[string]server.ToolHandler{"stuck": stuck}, nil) + "        policy: {timeout: 100ms}\n"
	gv := startGoverned(t, "", up, false, "", nil)
	s := gv.connectAs(t, "alice", &client.Options{Era: mcp.EraLegacy})
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "h__stuck"})
	if err == nil && (r == nil || !r.IsError) {
		t.Fatalf("a call past the timeout came back: %+v", r)
	}
	msg := fmt.Sprint(err)
	if r != nil {
		msg = firstText(r)
	}
	t.Logf("timeout: %s", msg)
	if !strings.Contains(msg, "upstream h") || !strings.Contains(msg, "deadline exceeded") {
		t.Fatalf("timeout error %q does not say what happened", msg)
	}
}

func TestBreaker(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var calls atomic.Int32
	var failing atomic.Bool
	failing.Store(true)
	flaky := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		calls.Add(1)
		if failing.Load() {
			return nil, jsonrpc.ErrInternal("the backend is down")
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	}
	up := upstreamTools(t, map[string]server.ToolHandler{"flaky": flaky}, nil) + "        policy: {breaker: {failures: 2, cooldown: 30s}}\n"
	gv := startGoverned(t, "", up, false, "", func(g *Gateway) { g.gov.now = clock })
	s := gv.connectAs(t, "alice", &client.Options{Era: mcp.EraLegacy})
	ctx := context.Background()
	call := func() (*mcp.CallToolResult, error) {
		return s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "h__flaky"})
	}
	for i := range 2 {
		if r, err := call(); err == nil && !r.IsError {
			t.Fatalf("failing call %d succeeded", i)
		}
	}
	r, err := call()
	if err != nil || !r.IsError || !strings.Contains(firstText(r), "upstream h is unavailable") || calls.Load() != 2 {
		t.Fatalf("open breaker: %v %+v, %d upstream calls", err, r, calls.Load())
	}
	failing.Store(false)
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	for i := range 2 { // the probe closes it, and calls flow again
		if r, err := call(); err != nil || r.IsError {
			t.Fatalf("call %d after the cooldown: %v %+v", i, err, r)
		}
	}
	if calls.Load() != 4 {
		t.Fatalf("%d upstream calls, want 4", calls.Load())
	}
}

func TestAuditLines(t *testing.T) {
	gv := startGoverned(t, authzSection, upstreamConfig(t, "a", nil, ""), true, "  arguments:\n    a__echo: [repo, token]\n", nil)
	ctx := context.Background()
	carol := gv.connectAs(t, "carol", &client.Options{Era: mcp.EraLegacy})
	toolNames(t, carol)
	args := json.RawMessage(`{"repo":"mcpgen/mcpgen","token":"s3cr3t-token-value","note":"private-note-value","auth":"Bearer abc.def.ghi"}`)
	if _, err := carol.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "a__greet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "a://r"}); err != nil {
		t.Fatal(err)
	}
	bob := gv.connectAs(t, "bob", &client.Options{Era: mcp.EraLegacy})
	if _, err := bob.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__secret_write", Arguments: json.RawMessage(`{"password":"hunter2-value"}`)}); err == nil {
		t.Fatal("bob called a tool he may not see")
	}
	raw, lines := "", gv.auditLines(t)
	byMethod := map[string]map[string]any{}
	var denied map[string]any
	for _, l := range lines {
		b, _ := json.Marshal(l)
		raw += string(b) + "\n"
		if l["decision"] == "denied" {
			denied = l
			continue
		}
		byMethod[l["method"].(string)] = l
	}
	if denied == nil || denied["principal"] != "bob@https://idp.test" || denied["name"] != "a__secret_write" || denied["method"] != "tools/call" {
		t.Fatalf("no denied line for bob's call:\n%s", raw)
	}
	for _, secret := range []string{"s3cr3t-token-value", "private-note-value", "abc.def.ghi", "hunter2-value"} {
		if strings.Contains(raw, secret) {
			t.Fatalf("the audit log holds %q:\n%s", secret, raw)
		}
	}
	for _, m := range []string{"tools/list", "tools/call", "prompts/get", "resources/read"} {
		l := byMethod[m]
		if l == nil || l["principal"] != "carol@https://idp.test" || l["server"] != "default" || l["trust"] != "internal" || l["decision"] != "allowed" {
			t.Fatalf("%s line %v\nall:\n%s", m, l, raw)
		}
		if _, ok := l["latencyMs"].(float64); !ok || l["resultBytes"].(float64) <= 0 {
			t.Fatalf("%s line without latency or size: %v", m, l)
		}
	}
	call := byMethod["tools/call"]
	wantArgs := map[string]any{"repo": "mcpgen/mcpgen", "token": "[redacted]"}
	if call["upstream"] != "a" || call["name"] != "a__echo" || call["argsDigest"] != audit.Digest(args) || fmt.Sprint(call["args"]) != fmt.Sprint(wantArgs) {
		t.Fatalf("call line %v", call)
	}
}

// BenchmarkCallerViews measures a tools/list of 100 tools, 50 of them
// visible, through a gateway with authorization rules: with each caller's
// view kept (warm), and decided afresh for every list (cold: the rules run
// for each tool).
func BenchmarkCallerViews(b *testing.B) {
	tools := map[string]server.ToolHandler{}
	for i := range 100 {
		tools[fmt.Sprintf("t%03d", i)] = func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	}
	rules := "    authz:\n      rules:\n        - allow: 'request.kind != \"tool\" || int(request.name.substring(4)) % 2 == 0'\n"
	g := startConfig(b, parse(b, "servers:\n  default:\n"+rules+"    upstreams:\n"+upstreamTools(b, tools, nil)), nil)
	s, _ := serveOver(b, g, "default", &client.Options{Era: mcp.EraLegacy})
	ctx := context.Background()
	list := func(b *testing.B) {
		r, err := s.ListTools(ctx, nil)
		if err != nil || len(r.Tools) != 50 {
			b.Fatalf("%v, %d tools", err, len(r.Tools))
		}
	}
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			list(b)
		}
	})
	// What a list adds on each side: the rules run for every tool
	// (cold), against the caller's view key (warm).
	vis := callerViews{g.virtuals["default"]}
	var entries []server.Entry
	for name := range tools {
		entries = append(entries, server.Entry{Kind: server.EntryTool, Name: "h__" + name})
	}
	b.Run("rules for 100 tools", func(b *testing.B) {
		for b.Loop() {
			for _, e := range entries {
				vis.Sight(ctx, e)
			}
		}
	})
	b.Run("view key", func(b *testing.B) {
		for b.Loop() {
			vis.ViewKey(ctx)
		}
	})
	b.Run("cold", func(b *testing.B) {
		views := g.virtuals["default"].gov.Load().views
		for b.Loop() {
			views.Reset()
			list(b)
		}
	})
}

// TestRuleErrorsLogged: a rule that fails to evaluate (a claim the caller
// lacks) denies, as a failed deny rule does, and the log says which rule
// failed and why.
func TestRuleErrorsLogged(t *testing.T) {
	log, lines := newLogs()
	cfg := parse(t, configYAML(serverYAML("default", "    authz:\n      rules:\n        - {name: by-team, deny: 'principal.claims.team != \"core\"'}\n", upstreamYAML(t, "a", nil, ""))))
	g := startConfig(t, cfg, log)
	s := connectAt(t, serve(t, g)+"/mcp", nil)
	if names := toolNames(t, s); len(names) != 0 {
		t.Fatalf("an anonymous caller, whom the failed rule denies, sees %q", names)
	}
	for _, l := range lines() {
		if strings.Contains(l, "authz: rules failed to evaluate") && strings.Contains(l, "by-team") && strings.Contains(l, "team") {
			return
		}
	}
	t.Fatalf("no log line names the failed rule: %q", lines())
}
