package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The test upstream's knobs, from its environment: GATEWAY_TEST_TOOLS
// adds that many tools t000, t001, ...; GATEWAY_TEST_PAGE is its page
// size; GATEWAY_TEST_TTL_MS the ttlMs of its lists; GATEWAY_TEST_GROW=1
// adds a tool "grow" whose call adds a tool "grown".

func upstreamOptions() *server.Options {
	o := &server.Options{}
	if n, err := strconv.Atoi(os.Getenv("GATEWAY_TEST_PAGE")); err == nil {
		o.PageSize = n
	}
	if n, err := strconv.Atoi(os.Getenv("GATEWAY_TEST_TTL_MS")); err == nil {
		o.Caching.TTL = time.Duration(n) * time.Millisecond
	}
	return o
}

func extendUpstream(s *server.Server) {
	text := &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}
	h := func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return text, nil }
	n, _ := strconv.Atoi(os.Getenv("GATEWAY_TEST_TOOLS"))
	for i := range n {
		_ = s.AddTool(mcp.Tool{Name: fmt.Sprintf("t%03d", i)}, h)
	}
	if os.Getenv("GATEWAY_TEST_GROW") == "1" {
		_ = s.AddTool(mcp.Tool{Name: "grow"}, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return text, s.AddTool(mcp.Tool{Name: "grown"}, h)
		})
	}
}

// upstreamYAML is the config of a test upstream with more environment.
func upstreamYAML(t *testing.T, name string, env map[string]string, extra string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := "GATEWAY_TEST_UPSTREAM: " + name
	for _, k := range slices.Sorted(maps.Keys(env)) {
		e += ", " + k + ": " + strconv.Quote(env[k])
	}
	return fmt.Sprintf("      - name: %s\n        command: [%q]\n        env: {%s}\n%s", name, exe, e, extra)
}

// configYAML is a config of virtual servers, each given by its lines
// below "servers:".
func configYAML(servers ...string) string {
	return "listen: 127.0.0.1:0\nservers:\n" + strings.Join(servers, "")
}

func serverYAML(name, extra string, upstreams ...string) string {
	return "  " + name + ":\n" + extra + "    upstreams:\n" + strings.Join(upstreams, "")
}

func parse(t testing.TB, yaml string) *Config {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// msgLog is a slog.Handler that keeps each record's message and err.
type msgLog struct {
	mu  *sync.Mutex
	out *[]string
}

func newLogs() (*slog.Logger, func() []string) {
	l := msgLog{&sync.Mutex{}, new([]string)}
	return slog.New(l), func() []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.Clone(*l.out)
	}
}

func (l msgLog) Enabled(context.Context, slog.Level) bool { return true }
func (l msgLog) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			line += ": " + a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	*l.out = append(*l.out, line)
	l.mu.Unlock()
	return nil
}
func (l msgLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l msgLog) WithGroup(string) slog.Handler      { return l }

func startConfig(t testing.TB, cfg *Config, log *slog.Logger) *Gateway {
	t.Helper()
	g, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// connectAt connects a client to path on a test server of g.
func connectAt(t *testing.T, url string, opts *client.Options) *client.Session {
	t.Helper()
	s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), streamable.NewClientTransport(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func serve(t *testing.T, g *Gateway) string {
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// eventually retries check until it returns nil, for up to 20 seconds.
func eventually(t *testing.T, check func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err = check(); err == nil {
			return
		}
	}
	t.Fatal(err)
}

func TestReloadAddsUpstream(t *testing.T) {
	a := upstreamYAML(t, "a", nil, "")
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", a))), nil)
	var changed atomic.Int32
	s := connectAt(t, serve(t, g)+"/mcp", &client.Options{Era: mcp.EraLegacy, OnToolsListChanged: func() { changed.Add(1) }})
	if got := toolNames(t, s); !slices.Equal(got, []string{"a__echo", "a__secret_write", "a__big"}) {
		t.Fatalf("tools before %q", got)
	}
	if err := g.Reload(parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "b", nil, ""), a)))); err != nil {
		t.Fatal(err)
	}
	// b comes first in the new config, and the merged list follows it.
	want := []string{"b__echo", "b__secret_write", "b__big", "a__echo", "a__secret_write", "a__big"}
	if got := toolNames(t, s); !slices.Equal(got, want) {
		t.Fatalf("tools after %q, want %q", got, want)
	}
	r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "b__echo"})
	if err != nil || firstText(r) != "b:echo" {
		t.Fatalf("b__echo on the same session: %v %q", err, firstText(r))
	}
	eventually(t, func() error {
		if changed.Load() == 0 {
			return errors.New("no tools/list_changed after the reload")
		}
		return nil
	})
}

func TestReloadRemovesAndChangesUpstreams(t *testing.T) {
	a := upstreamYAML(t, "a", nil, "")
	b := upstreamYAML(t, "b", nil, "")
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", a, b))), nil)
	s := connectAt(t, serve(t, g)+"/mcp", nil)
	before := g.virtuals["default"].upstreams()
	// a gets a filter (and so reconnects), b goes.
	err := g.Reload(parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", nil, "        exclude: [big]\n")))))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, s), []string{"a__echo", "a__secret_write"}; !slices.Equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
	if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "b__echo"}); err == nil {
		t.Fatal("a removed upstream's tool was called")
	}
	after := g.virtuals["default"].upstreams()
	if len(after) != 1 || after[0] == before[0] {
		t.Fatal("the changed upstream was not replaced")
	}
	if before[1].sess.Load() != nil {
		t.Fatal("the removed upstream is still connected")
	}
	// A reload that changes nothing keeps every upstream as it is.
	if err := g.Reload(parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", nil, "        exclude: [big]\n"))))); err != nil {
		t.Fatal(err)
	}
	if again := g.virtuals["default"].upstreams(); again[0] != after[0] {
		t.Fatal("an unchanged upstream was reconnected")
	}
}

func TestReloadKeepsOrderWhenAnEarlierUpstreamChanges(t *testing.T) {
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", nil, ""), upstreamYAML(t, "b", nil, "")))), nil)
	s := connectAt(t, serve(t, g)+"/mcp", nil)
	// a reconnects and registers its tools again, after b's in the
	// server's own table; the merged list keeps a first.
	err := g.Reload(parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", nil, "        include: [echo]\n"), upstreamYAML(t, "b", nil, "")))))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, s), []string{"a__echo", "b__echo", "b__secret_write", "b__big"}; !slices.Equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
}

func TestWatchInvalidConfigKeepsRunning(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gateway.yaml")
	write := func(yaml string) {
		// Written beside and renamed over, as editors do.
		tmp := filepath.Join(dir, ".gateway.yaml.tmp")
		if err := os.WriteFile(tmp, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	a := upstreamYAML(t, "a", nil, "")
	write("watch: true\n" + configYAML(serverYAML("default", "", a)))
	_, s, lines := startFile(t, file)

	write("watch: true\n" + configYAML(serverYAML("default", "", a+"        bogus: 1\n")))
	eventually(t, func() error {
		for _, l := range lines() {
			if strings.Contains(l, "not reloaded") && strings.Contains(l, "gateway.yaml:") && strings.Contains(l, "field bogus not found") {
				return nil
			}
		}
		return fmt.Errorf("no log line for the invalid config: %q", lines())
	})
	if got := toolNames(t, s); len(got) != 3 {
		t.Fatalf("tools after an invalid config %q", got)
	}

	write("watch: true\n" + configYAML(serverYAML("default", "", a, upstreamYAML(t, "b", nil, "        include: [echo]\n"))))
	eventually(t, func() error {
		if got := toolNames(t, s); !slices.Contains(got, "b__echo") {
			return fmt.Errorf("tools %q after the valid config", got)
		}
		return nil
	})
}

func TestReloadServers(t *testing.T) {
	a := upstreamYAML(t, "a", nil, "")
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", a))), nil)
	url := serve(t, g)
	if resp, err := http.Get(url + "/mcp/second"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown server: %v %v", err, resp)
	}
	err := g.Reload(parse(t, configYAML(serverYAML("default", "", a), serverYAML("second", "", upstreamYAML(t, "b", nil, "")))))
	if err != nil {
		t.Fatal(err)
	}
	s := connectAt(t, url+"/mcp/second", &client.Options{Era: mcp.EraLegacy})
	if got := toolNames(t, s); !slices.Equal(got, []string{"b__echo", "b__secret_write", "b__big"}) {
		t.Fatalf("the new server lists %q", got)
	}
	def := connectAt(t, url+"/mcp", &client.Options{Era: mcp.EraLegacy})

	if err := g.Reload(parse(t, configYAML(serverYAML("default", "", a)))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(context.Background(), nil); err == nil {
		t.Fatal("a session of a removed server still answers")
	}
	if resp, err := http.Get(url + "/mcp/second"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a removed server: %v %v", err, resp)
	}
	if got := toolNames(t, def); len(got) != 3 {
		t.Fatalf("the default server's session after the reload: %q", got)
	}
}

func TestReloadErrors(t *testing.T) {
	a := upstreamYAML(t, "a", nil, "")
	cfg := parse(t, configYAML(serverYAML("default", "", a)))
	log, lines := newLogs()
	g, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Reload(cfg); err == nil || !strings.Contains(err.Error(), "before Start") {
		t.Fatalf("Reload before Start: %v", err)
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// listen is kept; an upstream that cannot start is retried, and said.
	bad := parse(t, strings.Replace(configYAML(serverYAML("default", "", a, "      - name: nope\n        command: [\"/nonexistent/upstream\"]\n")), "127.0.0.1:0", "127.0.0.1:1", 1))
	err = g.Reload(bad)
	if err == nil || !strings.Contains(err.Error(), "upstream nope") {
		t.Fatalf("Reload with an upstream that does not start: %v", err)
	}
	if !slices.ContainsFunc(lines(), func(l string) bool { return strings.Contains(l, "listen changed, which needs a restart") }) {
		t.Fatalf("no log line about listen: %q", lines())
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Reload(cfg); err == nil {
		t.Fatal("Reload after Close")
	}
}

func TestDownstreamCaching(t *testing.T) {
	a := upstreamYAML(t, "a", nil, "")
	cfg := parse(t, configYAML(serverYAML("default", "    cache: {ttlMs: 5000}\n", a)))
	g := startConfig(t, cfg, nil)
	url := serve(t, g)
	s := connectAt(t, url+"/mcp", nil)
	r, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.TTLMs != 5000 || r.CacheScope != "public" {
		t.Fatalf("ttlMs %d, cacheScope %q", r.TTLMs, r.CacheScope)
	}
	// Authorization rules make the lists private; the server is built
	// anew for it.
	err = g.Reload(parse(t, configYAML(serverYAML("default", "    cache: {ttlMs: 5000}\n    authz: {rules: [{allow: 'true'}]}\n", a))))
	if err != nil {
		t.Fatal(err)
	}
	s = connectAt(t, url+"/mcp", nil)
	if r, err = s.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if r.TTLMs != 5000 || r.CacheScope != "private" {
		t.Fatalf("with authz rules: ttlMs %d, cacheScope %q", r.TTLMs, r.CacheScope)
	}
	if _, err := ParseConfig("c.yaml", []byte(configYAML(serverYAML("default", "    cache: {ttlMs: -1}\n", a)))); err == nil || !strings.Contains(err.Error(), "servers.default.cache.ttlMs: -1") {
		t.Fatalf("a negative ttlMs: %v", err)
	}
}

func TestModernUpstreamRelistedAfterTTL(t *testing.T) {
	old, oldListen := MinRelist, listenForChanges
	MinRelist, listenForChanges = time.Millisecond, false // an upstream that tells nobody
	t.Cleanup(func() { MinRelist, listenForChanges = old, oldListen })
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", map[string]string{"GATEWAY_TEST_GROW": "1", "GATEWAY_TEST_TTL_MS": "30"}, "")))), nil)
	v := g.virtuals["default"]
	u := v.upstreams()[0]
	if s, _ := u.session(); s.Era() != mcp.EraModern {
		t.Fatalf("the upstream speaks %s", s.ProtocolVersion())
	}
	v.mu.Lock()
	ttl := *v.lists.listed[u].ttl
	v.mu.Unlock()
	if ttl != 30*time.Millisecond {
		t.Fatalf("the listing's ttl is %v, want the upstream's 30ms", ttl)
	}

	// A re-list that finds nothing new changes nothing.
	gen := v.lists.gen.Load()
	v.refresh(context.Background(), u)
	if v.lists.gen.Load() != gen {
		t.Fatal("an unchanged re-list changed the tables")
	}

	var changed atomic.Int32
	s := connectAt(t, serve(t, g)+"/mcp", &client.Options{Era: mcp.EraLegacy, OnToolsListChanged: func() { changed.Add(1) }})
	if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__grow"}); err != nil {
		t.Fatal(err)
	}
	// The upstream tells nobody; the first list after the ttl finds it.
	eventually(t, func() error {
		if got := toolNames(t, s); !slices.Contains(got, "a__grown") {
			return fmt.Errorf("tools %q", got)
		}
		return nil
	})
	if r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__grown"}); err != nil || firstText(r) != "ok" {
		t.Fatalf("a__grown: %v", err)
	}
	eventually(t, func() error {
		if changed.Load() == 0 {
			return errors.New("no tools/list_changed after the re-list")
		}
		return nil
	})
}

func TestPaginationAcrossUpstreams(t *testing.T) {
	env := map[string]string{"GATEWAY_TEST_TOOLS": "90", "GATEWAY_TEST_PAGE": "7"}
	ups := []string{upstreamYAML(t, "a", env, ""), upstreamYAML(t, "b", env, ""), upstreamYAML(t, "c", env, "")}
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", ups...))), nil)
	var want []string
	for _, u := range []string{"a", "b", "c"} {
		want = append(want, u+"__echo", u+"__secret_write", u+"__big")
		for i := range 90 {
			want = append(want, fmt.Sprintf("%s__t%03d", u, i))
		}
	}
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		s := connectAt(t, serve(t, g)+"/mcp", &client.Options{Era: era})
		ctx := context.Background()
		var got []string
		pages := 0
		cursor := ""
		for {
			r, err := s.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, tool := range r.Tools {
				got = append(got, tool.Name)
			}
			if cursor = r.NextCursor; cursor == "" {
				break
			}
		}
		if pages != 3 || !slices.Equal(got, want) {
			t.Fatalf("era %d: %d pages, %d tools; first difference at %d", era, pages, len(got), firstDiff(got, want))
		}
	}

	s := connectAt(t, serve(t, g)+"/mcp", nil)
	ctx := context.Background()
	first, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A re-list that finds the same entries keeps the cursor good.
	v := g.virtuals["default"]
	v.refresh(ctx, v.upstreams()[1])
	if _, err := s.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: first.NextCursor}); err != nil {
		t.Fatalf("the cursor after an unchanged re-list: %v", err)
	}
	// One that changes them makes it fail, saying to start again.
	ups[1] = upstreamYAML(t, "b", env, "        exclude: [t001]\n")
	if err := g.Reload(parse(t, configYAML(serverYAML("default", "", ups...)))); err != nil {
		t.Fatal(err)
	}
	_, err = s.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: first.NextCursor})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "list again from the start") {
		t.Fatalf("a cursor from before the change: %v", err)
	}
	if got := toolNames(t, s); len(got) != len(want)-1 || slices.Contains(got, "b__t001") || firstDiff(got, want) != 3+90+4 {
		t.Fatalf("after the change: %d tools, first difference at %d", len(got), firstDiff(got, want))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestModernUpstreamChangesReachClients: a 2026-07-28 upstream tells of
// its list changes only on a subscriptions/listen stream, which the
// gateway opens, so a change reaches downstream sessions long before the
// listing's ttl (ten minutes here). Without the stream (an upstream that
// refuses it), the gateway lists an idle upstream again by itself. In
// both, no list request is made until the notification.
func TestModernUpstreamChangesReachClients(t *testing.T) {
	for _, c := range []struct {
		name   string
		listen bool
		ttlMs  string
	}{
		{"heard on subscriptions/listen", true, "600000"},
		{"listed again when idle", false, "30"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldMin, oldIdle, oldListen := MinRelist, IdleRelist, listenForChanges
			t.Cleanup(func() { MinRelist, IdleRelist, listenForChanges = oldMin, oldIdle, oldListen })
			listenForChanges = c.listen
			if !c.listen {
				MinRelist, IdleRelist = time.Millisecond, 10*time.Millisecond
			}
			g := startConfig(t, parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", map[string]string{"GATEWAY_TEST_GROW": "1", "GATEWAY_TEST_TTL_MS": c.ttlMs}, "")))), nil)
			if s, _ := g.virtuals["default"].upstreams()[0].session(); s.Era() != mcp.EraModern {
				t.Fatalf("the upstream speaks %s", s.ProtocolVersion())
			}
			var changed atomic.Int32
			s := connectAt(t, serve(t, g)+"/mcp", &client.Options{Era: mcp.EraLegacy, OnToolsListChanged: func() { changed.Add(1) }})
			if got := toolNames(t, s); slices.Contains(got, "a__grown") {
				t.Fatalf("tools before growing %q", got)
			}
			if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__grow"}); err != nil {
				t.Fatal(err)
			}
			eventually(t, func() error {
				if changed.Load() == 0 {
					return errors.New("no tools/list_changed")
				}
				return nil
			})
			if got := toolNames(t, s); !slices.Contains(got, "a__grown") {
				t.Fatalf("tools after the notification %q", got)
			}
		})
	}
}

// TestReloadAPIKeys rotates, revokes and adds API keys with Reload: each
// change holds for the next request, a session opened with a key that
// stays goes on, and keys that cannot be read fail the reload with the
// running keys left as they were.
func TestReloadAPIKeys(t *testing.T) {
	const carolKey = "carol-key-0123456789abcdef-c"
	t.Setenv("GW_TEST_ALICE", aliceKey)
	t.Setenv("GW_TEST_CAROL", carolKey)
	bobFile := filepath.Join(t.TempDir(), "bob")
	if err := os.WriteFile(bobFile, []byte(bobKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := upstreamYAML(t, "a", nil, "")
	withKeys := func(keys ...string) *Config {
		return parse(t, "listen: 127.0.0.1:0\nauth:\n  keys:\n"+strings.Join(keys, "")+"servers:\n"+serverYAML("default", "", a))
	}
	alice := "    - {subject: alice, key: {env: GW_TEST_ALICE}}\n"
	bob := "    - {subject: bob, key: {file: " + bobFile + "}}\n"
	carol := "    - {subject: carol, key: {env: GW_TEST_CAROL}}\n"
	log, logs := newLogs()
	g := startConfig(t, withKeys(alice, bob), log)
	url := serve(t, g)
	status := func(key string) int { t.Helper(); return keyStatus(t, url, key) }
	want := func(step string, codes map[string]int) {
		t.Helper()
		for key, code := range codes {
			if got := status(key); got != code {
				t.Errorf("%s: the key of %s: %d, want %d", step, key[:strings.IndexByte(key, '-')], got, code)
			}
		}
	}
	want("at start", map[string]int{aliceKey: 200, bobKey: 200, carolKey: 401})
	open := func(key string) *client.Session {
		t.Helper()
		tr := streamable.NewClientTransport(url+"/mcp", &streamable.ClientOptions{Header: http.Header{APIKeyHeader: {key}}})
		s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{ProtocolVersion: mcp.Version20251125}).Connect(context.Background(), tr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	echo := func(s *client.Session) error {
		_, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
		return err
	}
	s := open(aliceKey)

	// Bob's key is rotated in its file, and carol's added: the old value of
	// bob's is refused from the next request on.
	const bobNew = "bob-key-rotated-0123456789abcdef"
	if err := os.WriteFile(bobFile, []byte(bobNew+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.Reload(withKeys(alice, bob, carol)); err != nil {
		t.Fatal(err)
	}
	want("after rotating bob's and adding carol's", map[string]int{aliceKey: 200, bobKey: 401, bobNew: 200, carolKey: 200})
	if !slices.Contains(logs(), "config: API keys reloaded") {
		t.Errorf("the reload was not logged: %q", logs())
	}
	for _, line := range logs() {
		if strings.Contains(line, "key-") {
			t.Errorf("a log line shows a key: %q", line)
		}
	}

	// A key that cannot be read fails the reload, and nothing changes.
	if err := g.Reload(withKeys(alice, "    - {subject: dave, key: {env: GW_TEST_DAVE_UNSET}}\n")); err == nil || !strings.Contains(err.Error(), "dave") {
		t.Fatalf("a reload with an unreadable key: err = %v, want one naming it", err)
	}
	want("after a failed reload", map[string]int{aliceKey: 200, bobNew: 200, carolKey: 200})

	// Bob's and carol's are revoked: bob's session ends; alice's, opened
	// before both reloads with a key that stayed, goes on.
	sb := open(bobNew)
	if err := echo(sb); err != nil {
		t.Fatalf("bob's session before his key is revoked: %v", err)
	}
	sessions := g.endpointOf("default").sessions
	if n := sessions(); n != 2 {
		t.Fatalf("%d sessions before the revocation, want alice's and bob's", n)
	}
	if err := g.Reload(withKeys(alice)); err != nil {
		t.Fatal(err)
	}
	if n := sessions(); n != 1 {
		t.Errorf("%d sessions after bob's key was revoked, want alice's alone", n)
	}
	want("after revoking bob's and carol's", map[string]int{aliceKey: 200, bobNew: 401, carolKey: 401})
	if err := echo(sb); err == nil {
		t.Error("bob's session still calls tools after his key was revoked")
	}
	if !slices.Contains(logs(), "config: the sessions of revoked API keys ended") {
		t.Errorf("the ended sessions were not logged: %q", logs())
	}
	if err := echo(s); err != nil {
		t.Errorf("alice's session after the reloads: %v", err)
	}
}

// TestWatchKeyFile rotates an API key in its file alone, under watch:
// the new value is in force and the old one refused, with the config
// untouched.
func TestWatchKeyFile(t *testing.T) {
	dir := t.TempDir()
	keyDir := t.TempDir() // a folder of its own, as /run/secrets is
	keyFile := filepath.Join(keyDir, "alice")
	writeKey := func(key string) {
		tmp := keyFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, keyFile); err != nil {
			t.Fatal(err)
		}
	}
	writeKey(aliceKey)
	file := filepath.Join(dir, "gateway.yaml")
	yaml := "watch: true\nlisten: 127.0.0.1:0\nauth:\n  keys:\n    - {subject: alice, key: {file: " + keyFile + "}}\nservers:\n" + serverYAML("default", "", upstreamYAML(t, "a", nil, ""))
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	g := startConfig(t, cfg, nil)
	url := serve(t, g)
	status := func(key string) int { return keyStatus(t, url, key) }
	if got := status(aliceKey); got != 200 {
		t.Fatalf("alice's key at start: %d", got)
	}
	const rotated = "alice-key-rotated-0123456789abcdef"
	writeKey(rotated)
	eventually(t, func() error {
		if old, cur := status(aliceKey), status(rotated); old != 401 || cur != 200 {
			return fmt.Errorf("after the rotation: the old key %d, the new %d; want 401 and 200", old, cur)
		}
		return nil
	})
}

// keyStatus is the status of GET /metrics at url with key, which the
// gateway's guard answers like any endpoint.
func keyStatus(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	req.Header.Set(APIKeyHeader, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestReloadFile reloads from the file, as SIGHUP does; a file that is
// gone is logged and changes nothing.
func TestReloadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gateway.yaml")
	a := upstreamYAML(t, "a", nil, "")
	if err := os.WriteFile(file, []byte(configYAML(serverYAML("default", "", a))), 0o600); err != nil {
		t.Fatal(err)
	}
	g, s, lines := startFile(t, file)
	g.ReloadFile(file + ".missing")
	if !slices.ContainsFunc(lines(), func(l string) bool { return strings.Contains(l, "not reloaded") }) {
		t.Errorf("a missing file was not logged: %q", lines())
	}
	if err := os.WriteFile(file, []byte(configYAML(serverYAML("default", "", a, upstreamYAML(t, "b", nil, "        include: [echo]\n")))), 0o600); err != nil {
		t.Fatal(err)
	}
	g.ReloadFile(file)
	eventually(t, func() error {
		if got := toolNames(t, s); !slices.Contains(got, "b__echo") {
			return fmt.Errorf("tools %q after ReloadFile", got)
		}
		return nil
	})
}

// startFile starts a gateway of the config in file, with its log kept,
// and connects a client to it.
func startFile(t *testing.T, file string) (*Gateway, *client.Session, func() []string) {
	t.Helper()
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	log, lines := newLogs()
	g := startConfig(t, cfg, log)
	return g, connectAt(t, serve(t, g)+"/mcp", nil), lines
}
