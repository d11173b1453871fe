//go:build interop

package interop

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// inspectorPackage is the Inspector, whose CLI is one of the gateway's
// clients.
const inspectorPackage = "@modelcontextprotocol/inspector"

// gatewayScenario is one run of mcpgen-gateway in front of the three
// peers: the base configuration plus what config returns (nil adds
// nothing), checked by check. Scenarios that need a feature add its YAML
// here, start what else they need in config, and check what the gateway
// does with the client helpers of gatewayRun.
type gatewayScenario struct {
	name   string
	config func(t *testing.T, p *gatewayPeers) gatewayConfig
	check  func(t *testing.T, g *gatewayRun)
}

// fixed is a scenario's config that needs nothing started.
func fixed(c gatewayConfig) func(*testing.T, *gatewayPeers) gatewayConfig {
	return func(*testing.T, *gatewayPeers) gatewayConfig { return c }
}

// gatewayConfig is what a scenario adds to the base configuration. Each
// field is YAML written from column 0; the helper indents it.
type gatewayConfig struct {
	// Top holds top-level keys: audit, telemetry, lock, auth, rest.
	Top string
	// Server holds keys of the virtual server "default" besides its
	// upstreams: policy, authz, trust, cache.
	Server string
	// Upstream holds keys added to an upstream, by name: gostdio,
	// tsstdio or tsv2 (see writeGatewayConfig).
	Upstream map[string]string
	// Servers holds more virtual servers, keys under servers: each name
	// and its body. gatewayRun.At reaches them.
	Servers string
	// Lock turns pinning on (lock: gateway.lock) and runs
	// `mcpgen-gateway lock` before the gateway serves, so that every
	// tool the upstreams list then is pinned.
	Lock bool
}

// gatewayFilters keeps and drops some of each upstream's tools, one kind
// of filter per upstream and each kind at least once.
var gatewayFilters = gatewayConfig{Upstream: map[string]string{
	"gostdio": "include: [\"test_*\", greet, confirm_delete]\nexclude: [\"test_input_required_*\", \"test_trigger_*\"]\n",
	"tsstdio": "exclude: [\"trigger-*\", \"toggle-*\"]\nexcludeRegex: [\"^gzip-\"]\n",
	"tsv2":    "includeRegex: [\"^(whoami|delete_records)$\"]\n",
}}

// gatewayScenarios are the end-to-end checks of mcpgen-gateway with real
// upstreams and real clients.
var gatewayScenarios = []gatewayScenario{
	{
		name:  "aggregate and route",
		check: checkAggregateAndRoute,
	},
	{
		name:   "filters",
		config: fixed(gatewayFilters),
		check:  checkFilters,
	},
	{
		name:   "HTTP+SSE upstreams",
		config: sseUpstreams,
		check:  checkSSEUpstreams,
	},
	governanceScenario(),
	pinningScenario(),
}

// gatewayCalls are calls each client makes through the gateway, one per
// upstream, each answered in a way only that upstream answers.
var gatewayCalls = []gatewayCall{
	{Name: "go__greet", Arguments: map[string]any{"name": "Ada"}, want: "Hello, Ada!"},
	{Name: "ts__echo", Arguments: map[string]any{"message": "through the gateway"}, want: "Echo: through the gateway"},
	{Name: "ts__get-sum", Arguments: map[string]any{"a": 2, "b": 3.5}, want: "The sum of 2 and 3.5 is 5.5."},
	{Name: "v2__whoami", Arguments: map[string]any{}, want: "ts-v2-server"},
}

// gatewayGets and gatewayReads are prompts/get and resources/read
// requests each client makes through the gateway, one per upstream that
// has prompts and resources. Resource URIs keep the upstream's names.
var (
	gatewayGets = []gatewayGet{
		{Name: "go__test_simple_prompt", want: "This is a simple prompt for testing."},
		{Name: "ts__args-prompt", Arguments: map[string]string{"city": "Paris"}, want: "What's weather in Paris?"},
	}
	gatewayReads = []gatewayRead{
		{URI: "test://static-text", want: "This is the content of the static text resource."},
		{URI: "demo://resource/static/document/architecture.md", want: "# Everything Server – Architecture"},
	}
)

// TestGateway runs mcpgen-gateway in front of examples/everything (stdio,
// mcpgen, both eras), the TypeScript SDK's server-everything (stdio, 2025
// era) and gateway-v2-server.mjs (Streamable HTTP, TypeScript SDK v2,
// 2026-07-28 only), and drives it with the TypeScript SDK 1.32.2 Client
// (2025 era), the SDK v2 Client (2026-07-28) and the Inspector CLI in
// each era, scenario by scenario.
func TestGateway(t *testing.T) {
	peers := startGatewayPeers(t)
	for _, sc := range gatewayScenarios {
		t.Run(sc.name, func(t *testing.T) {
			var extra gatewayConfig
			if sc.config != nil {
				extra = sc.config(t, peers)
			}
			sc.check(t, peers.start(t, extra))
		})
	}
}

// stdioClients are the TypeScript clients again, each starting a gateway
// of the same configuration of its own over stdio (serve --stdio), as a
// client that starts its servers as processes would.
var stdioClients = []gatewayClient{
	{name: "TypeScript SDK 1.32.2 over stdio", era: mcp.EraLegacy, lists: true, run: func(g *gatewayRun, t *testing.T, plan gatewayPlan) *gatewayReport {
		return g.overStdio().tsClientV1(t, plan)
	}},
	{name: "TypeScript SDK 2.4.0 over stdio", era: mcp.EraModern, lists: true, run: func(g *gatewayRun, t *testing.T, plan gatewayPlan) *gatewayReport {
		return g.overStdio().tsClientV2(t, plan)
	}},
}

func checkAggregateAndRoute(t *testing.T, g *gatewayRun) {
	for _, c := range append(slices.Clone(gatewayClients), stdioClients...) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.run(g, t, gatewayPlan{Calls: gatewayCalls, Gets: gatewayGets, Reads: gatewayReads})
			// The Inspector does not say what it negotiated.
			if r.ProtocolVersion != "" && mcp.ProtocolVersion(r.ProtocolVersion).Era() != c.era {
				t.Errorf("negotiated %s, want a version of the client's era", r.ProtocolVersion)
			}
			for _, name := range r.Tools {
				if !strings.HasPrefix(name, "go__") && !strings.HasPrefix(name, "ts__") && !strings.HasPrefix(name, "v2__") {
					t.Errorf("tool %s has none of the three prefixes", name)
				}
			}
			for _, want := range []string{"go__test_simple_text", "go__slow_compute", "go__greet", "ts__echo", "ts__get-sum", "ts__trigger-long-running-operation", "v2__whoami", "v2__delete_records", "v2__stats"} {
				if !slices.Contains(r.Tools, want) {
					t.Errorf("tools/list lacks %s: %v", want, r.Tools)
				}
			}
			if c.lists {
				for _, want := range []string{"go__test_simple_prompt", "ts__simple-prompt"} {
					if !slices.Contains(r.Prompts, want) {
						t.Errorf("prompts/list lacks %s: %v", want, r.Prompts)
					}
				}
				// Resource URIs are routed as the upstreams name them.
				for _, want := range []string{"test://static-text", "demo://resource/static/document/architecture.md"} {
					if !slices.Contains(r.Resources, want) {
						t.Errorf("resources/list lacks %s: %v", want, r.Resources)
					}
				}
			}
			checkCalls(t, r, gatewayCalls)
			checkGetsAndReads(t, r, gatewayGets, gatewayReads)
		})
	}
}

func checkFilters(t *testing.T, g *gatewayRun) {
	kept := []string{"go__test_simple_text", "go__greet", "go__confirm_delete", "ts__echo", "ts__get-sum", "ts__get-env", "v2__whoami", "v2__delete_records"}
	dropped := []string{
		"go__slow_compute",                           // not in include
		"go__test_input_required_result_elicitation", // exclude glob
		"go__test_trigger_tool_change",               // exclude glob
		"ts__trigger-long-running-operation",         // exclude glob
		"ts__toggle-simulated-logging",               // exclude glob
		"ts__gzip-file-as-resource",                  // excludeRegex
		"v2__stats",                                  // not in includeRegex
	}
	calls := []gatewayCall{
		{Name: "v2__whoami", Arguments: map[string]any{}, want: "ts-v2-server"},
		{Name: "v2__stats", Arguments: map[string]any{}, refused: true},
		{Name: "go__slow_compute", Arguments: map[string]any{}, refused: true},
	}
	for _, c := range gatewayClients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.run(g, t, gatewayPlan{Calls: calls})
			for _, want := range kept {
				if !slices.Contains(r.Tools, want) {
					t.Errorf("the filters dropped %s: %v", want, r.Tools)
				}
			}
			for _, name := range dropped {
				if slices.Contains(r.Tools, name) {
					t.Errorf("the filters kept %s", name)
				}
			}
			if got := countPrefixed(r.Tools, "v2__"); got != 2 {
				t.Errorf("%d tools of tsv2, want 2 (whoami, delete_records): %v", got, r.Tools)
			}
			checkCalls(t, r, calls)
		})
	}
}

// sseUpstreams starts the TypeScript server-everything over the HTTP+SSE
// transport of 2024-11-05 and puts it behind two more virtual servers:
// "sse" reaches it with transport: sse, "auto" with transport: auto,
// which tries Streamable HTTP first. They are virtual servers of their
// own because the server lists the resources tsstdio lists, under the
// same URIs.
func sseUpstreams(t *testing.T, p *gatewayPeers) gatewayConfig {
	url := startTSEverythingSSE(t, p)
	return gatewayConfig{Servers: fmt.Sprintf(`sse:
  upstreams:
    - name: legacy
      url: %[1]s
      transport: sse
      prefix: sse__
auto:
  upstreams:
    - name: probed
      url: %[1]s
      transport: auto
      prefix: auto__
`, url)}
}

func checkSSEUpstreams(t *testing.T, g *gatewayRun) {
	for _, server := range []string{"sse", "auto"} {
		calls := []gatewayCall{{Name: server + "__echo", Arguments: map[string]any{"message": "over " + server}, want: "Echo: over " + server}}
		for _, c := range gatewayClients {
			t.Run(server+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				r := c.run(g.At(server), t, gatewayPlan{Calls: calls})
				if n := countPrefixed(r.Tools, server+"__"); n == 0 || n != len(r.Tools) {
					t.Errorf("virtual server %s lists %v, want only %s__ tools", server, r.Tools, server)
				}
				checkCalls(t, r, calls)
			})
		}
	}
}

// startTSEverythingSSE runs the TypeScript server-everything over
// HTTP+SSE until the test ends, and returns its SSE endpoint.
func startTSEverythingSSE(t *testing.T, p *gatewayPeers) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(p.node, p.tsEverything, "sse")
	cmd.Env = append(os.Environ(), "PORT="+port)
	var stderr testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("server-everything sse:\n%s", stderr.String())
		}
	})
	waitListening(t, addr, "server-everything sse", nil)
	return "http://" + addr + "/sse"
}

// waitListening returns once addr accepts connections, and fails the test
// after 30s or once exited (which may be nil) is closed.
func waitListening(t *testing.T, addr, what string, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("%s exited before it listened", what)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not listen on %s within 30s", what, addr)
}

func countPrefixed(names []string, prefix string) int {
	n := 0
	for _, name := range names {
		if strings.HasPrefix(name, prefix) {
			n++
		}
	}
	return n
}

// checkCalls checks that every call of want got its answer, or was
// refused when it should be.
func checkCalls(t *testing.T, r *gatewayReport, want []gatewayCall) {
	t.Helper()
	if len(r.Calls) != len(want) {
		t.Fatalf("%d calls reported, want %d: %+v", len(r.Calls), len(want), r.Calls)
	}
	for i, c := range want {
		got := r.Calls[i]
		switch {
		case c.refused || c.refusedWith != "":
			if got.Error == nil && (got.Result == nil || !got.Result.IsError) {
				t.Errorf("%s was answered %s; want it refused", c.Name, got.text())
			} else if !strings.Contains(got.text(), c.refusedWith) {
				t.Errorf("%s was refused with %s, want a message with %q", c.Name, got.text(), c.refusedWith)
			}
		case got.Error != nil:
			t.Errorf("%s: %s", c.Name, got.Error.Message)
		case got.Result == nil || got.Result.IsError || got.text() != c.want:
			t.Errorf("%s answered %s, want %q", c.Name, got.text(), c.want)
		}
	}
}

// checkGetsAndReads checks that every prompts/get and resources/read got
// its answer: the first message's text, the first contents' text
// beginning with want.
func checkGetsAndReads(t *testing.T, r *gatewayReport, gets []gatewayGet, reads []gatewayRead) {
	t.Helper()
	if len(r.Gets) != len(gets) || len(r.Reads) != len(reads) {
		t.Fatalf("%d gets and %d reads reported, want %d and %d", len(r.Gets), len(r.Reads), len(gets), len(reads))
	}
	for i, want := range gets {
		got := r.Gets[i]
		switch {
		case got.Error != nil:
			t.Errorf("prompts/get %s: %s", want.Name, got.Error.Message)
		case got.Result == nil || len(got.Result.Messages) == 0:
			t.Errorf("prompts/get %s: no messages", want.Name)
		default:
			if tc, ok := got.Result.Messages[0].Content.Value.(*mcp.TextContent); !ok {
				t.Errorf("prompts/get %s: first message is a %T, want text", want.Name, got.Result.Messages[0].Content.Value)
			} else if tc.Text != want.want {
				t.Errorf("prompts/get %s: first message %q, want %q", want.Name, tc.Text, want.want)
			}
		}
	}
	for i, want := range reads {
		got := r.Reads[i]
		switch {
		case got.Error != nil:
			t.Errorf("resources/read %s: %s", want.URI, got.Error.Message)
		case got.Result == nil || len(got.Result.Contents) == 0:
			t.Errorf("resources/read %s: no contents", want.URI)
		default:
			if tc, ok := got.Result.Contents[0].Value.(*mcp.TextResourceContents); !ok {
				t.Errorf("resources/read %s: first contents is a %T, want text", want.URI, got.Result.Contents[0].Value)
			} else if tc.URI != want.URI || !strings.HasPrefix(tc.Text, want.want) {
				t.Errorf("resources/read %s: first contents %s %.40q, want %s beginning %q", want.URI, tc.URI, tc.Text, want.URI, want.want)
			}
		}
	}
}

// gatewayPeers are what every scenario shares: the binaries and the
// HTTP upstream.
type gatewayPeers struct {
	node         string
	gateway      string // mcpgen-gateway, built
	everything   string // examples/everything, built
	tsEverything string // the TypeScript server-everything's entry point
	inspector    string // the Inspector's launcher
	v2URL        string // gateway-v2-server.mjs
}

// startGatewayPeers builds mcpgen-gateway and examples/everything and
// starts gateway-v2-server.mjs until the test ends.
func startGatewayPeers(t *testing.T) *gatewayPeers {
	t.Helper()
	node := requireNode(t)
	requireInspector(t)
	dir := t.TempDir()
	p := &gatewayPeers{
		node:    node,
		gateway: filepath.Join(dir, "mcpgen-gateway"),
	}
	var wg sync.WaitGroup
	var gwOut []byte
	var gwErr error
	wg.Go(func() {
		gwOut, gwErr = exec.Command("go", "build", "-C", "../gateway", "-o", p.gateway, "./cmd/mcpgen-gateway").CombinedOutput()
	})
	p.everything = buildEverything(t)
	wg.Wait()
	if gwErr != nil {
		t.Fatalf("go build -C ../gateway ./cmd/mcpgen-gateway: %v\n%s", gwErr, gwOut)
	}
	abs := func(rel string) string {
		a, err := filepath.Abs(rel)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	p.tsEverything = abs(filepath.Join("node_modules", everythingPackage, "dist", "index.js"))
	p.inspector = abs(filepath.Join("node_modules", inspectorPackage, "clients", "launcher", "build", "index.js"))
	p.v2URL = startNodeServer(t, node, "gateway-v2-server.mjs")
	return p
}

// requireInspector fails the test unless node_modules holds the Inspector
// version package.json pins.
func requireInspector(t *testing.T) {
	t.Helper()
	var pins struct{ Dependencies map[string]string }
	readJSON(t, "package.json", &pins)
	path := filepath.Join("node_modules", inspectorPackage, "package.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed (%v): run `npm ci` in interop/, or `make interop`", inspectorPackage, err)
	}
	var installed struct{ Version string }
	readJSON(t, path, &installed)
	if want := pins.Dependencies[inspectorPackage]; installed.Version != want {
		t.Fatalf("interop/node_modules holds %s@%s but package.json pins %s: run `npm ci` in interop/", inspectorPackage, installed.Version, want)
	}
}

// writeGatewayConfig writes the configuration of a gateway listening on
// addr, with the three upstreams and what extra adds, into dir.
//
//	gostdio  examples/everything over stdio, prefix go__
//	tsstdio  the TypeScript server-everything over stdio, prefix ts__
//	tsv2     gateway-v2-server.mjs over Streamable HTTP, prefix v2__
//
// The prefixes differ from the names, as a configured prefix does.
func (p *gatewayPeers) writeGatewayConfig(t *testing.T, dir, addr string, extra gatewayConfig) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "listen: %s\n", addr)
	if extra.Lock {
		b.WriteString("lock: gateway.lock\n")
	}
	b.WriteString(extra.Top)
	b.WriteString("servers:\n")
	b.WriteString(indent(extra.Servers, 2))
	b.WriteString("  default:\n")
	b.WriteString(indent(extra.Server, 4))
	b.WriteString("    upstreams:\n")
	upstream := func(name, body string) {
		fmt.Fprintf(&b, "      - name: %s\n", name)
		b.WriteString(indent(body+extra.Upstream[name], 8))
	}
	upstream("gostdio", fmt.Sprintf("command: [%q, -stdio]\nprefix: go__\n", p.everything))
	upstream("tsstdio", fmt.Sprintf("command: [%q, %q, stdio]\nprefix: ts__\n", p.node, p.tsEverything))
	upstream("tsv2", fmt.Sprintf("url: %s\nprefix: v2__\n", p.v2URL))
	for name := range extra.Upstream {
		if !slices.Contains([]string{"gostdio", "tsstdio", "tsv2"}, name) {
			t.Fatalf("gatewayConfig.Upstream names %q, which is no upstream", name)
		}
	}
	path := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// indent puts n spaces before every line of s.
func indent(s string, n int) string {
	if s == "" {
		return ""
	}
	pad := strings.Repeat(" ", n)
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "") + "\n"
}

// gatewayRun is a running mcpgen-gateway.
type gatewayRun struct {
	peers  *gatewayPeers
	dir    string // the scenario's folder: config, log, the Inspector's home
	config string // the configuration file
	addr   string // host:port
	url    string // the default virtual server's endpoint
	log    string // the file the gateway's stderr goes to
	apiKey string // what the TypeScript clients and REST present, if anything
	// stdio makes the TypeScript clients start a gateway of the
	// configuration over stdio, serving its default virtual server,
	// instead of reaching url.
	stdio bool
}

// overStdio returns the gateway as TypeScript clients start it over stdio.
func (g *gatewayRun) overStdio() *gatewayRun {
	over := *g
	over.stdio = true
	return &over
}

// start runs mcpgen-gateway serve with the base configuration plus extra
// until the test ends, and returns once it accepts connections. When the
// test fails, its log is shown.
func (p *gatewayPeers) start(t *testing.T, extra gatewayConfig) *gatewayRun {
	t.Helper()
	g := &gatewayRun{peers: p, dir: t.TempDir(), addr: freeAddr(t)}
	g.url = "http://" + g.addr + "/mcp"
	g.config = p.writeGatewayConfig(t, g.dir, g.addr, extra)
	g.log = filepath.Join(g.dir, "gateway.log")
	if extra.Lock {
		g.Pin(t, "lock")
	}
	logFile, err := os.Create(g.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(p.gateway, "serve", "--config", g.config)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			config, _ := os.ReadFile(g.config)
			t.Logf("the gateway's configuration:\n%s\nits log:\n%s", config, g.Log(t))
		}
	})
	// The upstreams connect before the gateway listens: a stdio node
	// server takes a second or so on a busy machine. Its log is shown
	// when this fails.
	waitListening(t, g.addr, "mcpgen-gateway", exited)
	return g
}

// At returns the gateway as reached at the virtual server of that name,
// /mcp/<name>.
func (g *gatewayRun) At(server string) *gatewayRun {
	at := *g
	at.url = "http://" + g.addr + "/mcp/" + server
	return &at
}

// As returns the gateway as reached with the API key key: the TypeScript
// clients send it as a bearer token, REST requests as X-API-Key.
func (g *gatewayRun) As(key string) *gatewayRun {
	as := *g
	as.apiKey = key
	return &as
}

// Log returns what the gateway has logged so far, for scenarios that
// check its audit lines or its warnings.
func (g *gatewayRun) Log(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(g.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// gatewayPlan is what a client does once connected: gateway-client.mjs's
// PLAN.
type gatewayPlan struct {
	Calls []gatewayCall `json:"calls"`
	Gets  []gatewayGet  `json:"gets,omitempty"`
	Reads []gatewayRead `json:"-"` // sent as their URIs
	// Elicit is how the client answers an elicitation request: "accept"
	// (the default), "decline" or "cancel".
	Elicit string `json:"elicit,omitempty"`
}

// gatewayCall is a tools/call and what a check expects of it.
type gatewayCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`

	want    string // the text of the one text block of the result
	refused bool   // an error, or a result with isError
	// refusedWith is what the refusal's message must contain; it
	// implies refused.
	refusedWith string
}

// gatewayGet is a prompts/get and the text its first message must hold.
type gatewayGet struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`

	want string
}

// gatewayRead is a resources/read and how the text of its first contents
// must begin.
type gatewayRead struct {
	URI  string
	want string
}

// MarshalJSON writes the plan as gateway-client.mjs reads it.
func (p gatewayPlan) MarshalJSON() ([]byte, error) {
	type plan gatewayPlan
	uris := []string{}
	for _, r := range p.Reads {
		uris = append(uris, r.URI)
	}
	return json.Marshal(struct {
		plan
		Reads []string `json:"reads"`
	}{plan(p), uris})
}

// gatewayReport is what a client saw: gateway-client.mjs's output, and
// the same gathered from the Inspector's runs.
type gatewayReport struct {
	ProtocolVersion string             `json:"protocolVersion"` // empty from the Inspector
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Tools           []string           `json:"tools"`
	Prompts         []string           `json:"prompts"`
	Resources       []string           `json:"resources"`
	Calls           []gatewayOutcome   `json:"calls"`
	Gets            []gatewayPrompt    `json:"gets"`
	Reads           []gatewayContents  `json:"reads"`
	Elicitations    []struct {
		Message string `json:"message"`
	} `json:"elicitations"`
}

// gatewayOutcome is the result of a call, or its error.
type gatewayOutcome struct {
	Name   string              `json:"name"`
	Result *mcp.CallToolResult `json:"result"`
	Error  *gatewayError       `json:"error"`
}

// gatewayPrompt is the result of a prompts/get, or its error.
type gatewayPrompt struct {
	Result *mcp.GetPromptResult `json:"result"`
	Error  *gatewayError        `json:"error"`
}

// gatewayContents is the result of a resources/read, or its error.
type gatewayContents struct {
	Result *mcp.ReadResourceResult `json:"result"`
	Error  *gatewayError           `json:"error"`
}

// gatewayError is a request's failure as the client reported it.
type gatewayError struct {
	Code    any    `json:"code"` // the JSON-RPC code, or the SDK's
	Message string `json:"message"`
}

// text is the result's one text block, or a description of what came
// instead.
func (o gatewayOutcome) text() string {
	if o.Error != nil {
		return "error " + o.Error.Message
	}
	if o.Result == nil {
		return "nothing"
	}
	if s, err := onlyText(o.Result); err == nil {
		return s
	}
	data, _ := json.Marshal(o.Result)
	return string(data)
}

// gatewayClient is a kind of client the scenarios drive.
type gatewayClient struct {
	name  string
	era   mcp.Era // the era it must negotiate
	lists bool    // it reports prompts and resources besides tools
	run   func(g *gatewayRun, t *testing.T, plan gatewayPlan) *gatewayReport
}

// gatewayClients are the clients every scenario can drive. A scenario
// may run them in parallel subtests: each has its own session.
var gatewayClients = []gatewayClient{
	{name: "TypeScript SDK 1.32.2", era: mcp.EraLegacy, lists: true, run: (*gatewayRun).tsClientV1},
	{name: "TypeScript SDK 2.4.0", era: mcp.EraModern, lists: true, run: (*gatewayRun).tsClientV2},
	{name: "Inspector CLI legacy", era: mcp.EraLegacy, run: func(g *gatewayRun, t *testing.T, plan gatewayPlan) *gatewayReport {
		return g.inspectorSession(t, mcp.EraLegacy, plan)
	}},
	{name: "Inspector CLI modern", era: mcp.EraModern, run: func(g *gatewayRun, t *testing.T, plan gatewayPlan) *gatewayReport {
		return g.inspectorSession(t, mcp.EraModern, plan)
	}},
}

// tsClientV1 runs the plan with the TypeScript SDK 1.32.2 Client.
func (g *gatewayRun) tsClientV1(t *testing.T, plan gatewayPlan) *gatewayReport {
	return g.tsClient(t, "v1", plan)
}

// tsClientV2 runs the plan with the TypeScript SDK v2 Client, pinned to
// 2026-07-28.
func (g *gatewayRun) tsClientV2(t *testing.T, plan gatewayPlan) *gatewayReport {
	return g.tsClient(t, "v2", plan)
}

func (g *gatewayRun) tsClient(t *testing.T, sdk string, plan gatewayPlan) *gatewayReport {
	t.Helper()
	planJSON, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := g.runClient(t, sdk, string(planJSON))
	if err != nil {
		t.Fatalf("gateway-client.mjs %s: %v\n%s", sdk, err, stderr)
	}
	var r gatewayReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("gateway-client.mjs %s printed %s: %v\n%s", sdk, out, err, stderr)
	}
	if !strings.HasPrefix(r.ServerInfo.Name, "mcpgen-gateway/") {
		t.Errorf("serverInfo %+v, want the gateway's", r.ServerInfo)
	}
	return &r
}

// runClient runs gateway-client.mjs as runNode does, with the API key,
// if any, in its environment rather than on its command line.
func (g *gatewayRun) runClient(t *testing.T, sdk, plan string) (stdout, stderr []byte, err error) {
	t.Helper()
	target := g.url
	if g.stdio {
		argv, err := json.Marshal([]string{g.peers.gateway, "serve", "--config", g.config, "--stdio"})
		if err != nil {
			t.Fatal(err)
		}
		target = "stdio:" + string(argv)
	}
	return runNodeEnv(t, g.peers.node, []string{"GATEWAY_CLIENT_API_KEY=" + g.apiKey}, "gateway-client.mjs", sdk, target, plan)
}

// Inspector runs the Inspector CLI against the gateway in era with args
// (--method and its options), and returns the result it printed, or the
// error envelope and exit error of a refusal.
func (g *gatewayRun) Inspector(t *testing.T, era mcp.Era, args ...string) (result json.RawMessage, refusal string, err error) {
	t.Helper()
	eraFlag := "legacy"
	if era == mcp.EraModern {
		eraFlag = "modern"
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	argv := append([]string{g.peers.inspector, "--cli", g.url, "--transport", "http", "--protocol-era", eraFlag, "--format", "json", "-q"}, args...)
	cmd := exec.CommandContext(ctx, g.peers.node, argv...)
	// The Inspector keeps a catalog and storage under HOME: give it the
	// scenario's folder.
	home := filepath.Join(g.dir, "inspector-home")
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "catalog.json"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, strings.TrimSpace(out.String() + errOut.String()), fmt.Errorf("inspector %s: %w", strings.Join(args, " "), err)
	}
	var envelope struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &envelope); err != nil || envelope.Result == nil {
		t.Fatalf("the Inspector printed %q (%v)\n%s", out.String(), err, errOut.String())
	}
	return envelope.Result, "", nil
}

// inspectorSession runs the plan as one Inspector run per request:
// tools/list, then each call, get and read.
func (g *gatewayRun) inspectorSession(t *testing.T, era mcp.Era, plan gatewayPlan) *gatewayReport {
	t.Helper()
	if plan.Elicit != "" {
		t.Fatal("the Inspector CLI answers no elicitation: drive approvals with a TypeScript client")
	}
	res, refusal, err := g.Inspector(t, era, "--method", "tools/list")
	if err != nil {
		t.Fatalf("%v: %s", err, refusal)
	}
	var list mcp.ListToolsResult
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	r := &gatewayReport{}
	for _, tool := range list.Tools {
		r.Tools = append(r.Tools, tool.Name)
	}
	for _, c := range plan.Calls {
		args, err := json.Marshal(c.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		o := gatewayOutcome{Name: c.Name}
		res, refusal, err := g.Inspector(t, era, "--method", "tools/call", "--tool-name", c.Name, "--tool-args-json", string(args))
		if err != nil {
			o.Error = &gatewayError{Message: fmt.Sprintf("%v: %s", err, refusal)}
		} else {
			o.Result = &mcp.CallToolResult{}
			if err := json.Unmarshal(res, o.Result); err != nil {
				t.Fatalf("tools/call %s: %v", c.Name, err)
			}
		}
		r.Calls = append(r.Calls, o)
	}
	for _, get := range plan.Gets {
		args := []string{"--method", "prompts/get", "--prompt-name", get.Name}
		if len(get.Arguments) > 0 {
			args = append(args, "--prompt-args")
			for _, k := range slices.Sorted(maps.Keys(get.Arguments)) {
				args = append(args, k+"="+get.Arguments[k])
			}
		}
		var o gatewayPrompt
		res, refusal, err := g.Inspector(t, era, args...)
		if err != nil {
			o.Error = &gatewayError{Message: fmt.Sprintf("%v: %s", err, refusal)}
		} else if o.Result = new(mcp.GetPromptResult); json.Unmarshal(res, o.Result) != nil {
			t.Fatalf("prompts/get %s: %s", get.Name, res)
		}
		r.Gets = append(r.Gets, o)
	}
	for _, read := range plan.Reads {
		var o gatewayContents
		res, refusal, err := g.Inspector(t, era, "--method", "resources/read", "--uri", read.URI)
		if err != nil {
			o.Error = &gatewayError{Message: fmt.Sprintf("%v: %s", err, refusal)}
		} else if o.Result = new(mcp.ReadResourceResult); json.Unmarshal(res, o.Result) != nil {
			t.Fatalf("resources/read %s: %s", read.URI, res)
		}
		r.Reads = append(r.Reads, o)
	}
	return r
}

// Pin runs `mcpgen-gateway CMD --config` (lock or approve) on the
// gateway's configuration and returns what it printed.
func (g *gatewayRun) Pin(t *testing.T, cmd string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, g.peers.gateway, cmd, "--config", g.config).CombinedOutput()
	if err != nil {
		t.Fatalf("mcpgen-gateway %s: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// governKeys are the API keys of the governance scenario, in files the
// configuration names, and the audit file it writes.
type governKeys struct {
	admin, guest string // the keys
	audit        string // the audit file
}

// adminPrincipal and guestPrincipal are the two keys' principals as audit
// lines name them.
const (
	adminPrincipal = "admin@mcpgen-gateway:api-key"
	guestPrincipal = "guest@mcpgen-gateway:api-key"
)

// governanceScenario checks authorization, policy, audit, metrics and
// the REST facade together, on one gateway: two API keys, admin (scope
// tools.admin) and guest (tools.read); a rule that hides ts__get-sum from
// whoever lacks tools.admin; a policy section, which makes
// v2__delete_records (destructiveHint) need an approval while the
// overrides spare the go__ and ts__ tools; a per-tool rate limit of three
// calls; an audit file and the REST facade.
func governanceScenario() gatewayScenario {
	var keys governKeys
	return gatewayScenario{
		name: "governance",
		config: func(t *testing.T, _ *gatewayPeers) gatewayConfig {
			dir := t.TempDir()
			keys = governKeys{admin: newAPIKey(t), guest: newAPIKey(t), audit: filepath.Join(dir, "audit.jsonl")}
			keyFile := func(name, key string) string {
				path := filepath.Join(dir, name+".key")
				if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				return path
			}
			return gatewayConfig{
				Top: fmt.Sprintf(`auth:
  keys:
    - key: {file: %q}
      subject: admin
      scopes: [tools.admin]
    - key: {file: %q}
      subject: guest
      scopes: [tools.read]
rest: {}
audit:
  file: %q
`, keyFile("admin", keys.admin), keyFile("guest", keys.guest), keys.audit),
				Server: `authz:
  default: allow
  rules:
    - name: sums-for-admins
      deny: 'request.name == "ts__get-sum" && !("tools.admin" in principal.scopes)'
policy:
  perTool: {perMinute: 0.001, burst: 3}  # three calls, then none for 16 hours
  approval:
    - {tool: "go__*", require: false}
    - {tool: "ts__*", require: false}
`,
			}
		},
		check: func(t *testing.T, g *gatewayRun) { checkGovernance(t, g, keys) },
	}
}

// newAPIKey returns a random API key.
func newAPIKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "mcpgen-test-" + hex.EncodeToString(b)
}

func checkGovernance(t *testing.T, g *gatewayRun, keys governKeys) {
	admin, guest := g.As(keys.admin), g.As(keys.guest)
	greet := gatewayCall{Name: "go__greet", Arguments: map[string]any{"name": "Ada"}, want: "Hello, Ada!"}
	echo := gatewayCall{Name: "ts__echo", Arguments: map[string]any{"message": "limited"}, want: "Echo: limited"}
	sum := gatewayCall{Name: "ts__get-sum", Arguments: map[string]any{"a": 2, "b": 3.5}, want: "The sum of 2 and 3.5 is 5.5."}
	hiddenSum := gatewayCall{Name: "ts__get-sum", Arguments: map[string]any{"a": 1, "b": 1}, refusedWith: "unknown tool"}
	deleted := gatewayCall{Name: "v2__delete_records", Arguments: map[string]any{}, want: "deleted by ts-v2-server"}
	notDeleted := gatewayCall{Name: "v2__delete_records", Arguments: map[string]any{}, refusedWith: "was not called"}
	limited := func(c gatewayCall) gatewayCall {
		return gatewayCall{Name: c.Name, Arguments: c.Arguments, refusedWith: "rate limit exceeded"}
	}
	t.Run("clients", func(t *testing.T) {
		// The guests use up the burst of three calls of one tool each,
		// in each era, and do not see ts__get-sum.
		for _, c := range []struct {
			client gatewayClient
			tool   gatewayCall
		}{{gatewayClients[0], greet}, {gatewayClients[1], echo}} {
			t.Run("guest/"+c.client.name, func(t *testing.T) {
				t.Parallel()
				calls := []gatewayCall{hiddenSum, c.tool, c.tool, c.tool, limited(c.tool)}
				r := c.client.run(guest, t, gatewayPlan{Calls: calls})
				if slices.Contains(r.Tools, "ts__get-sum") {
					t.Errorf("the guest sees ts__get-sum, which rule sums-for-admins hides: %v", r.Tools)
				}
				for _, want := range []string{"go__greet", "ts__echo", "v2__delete_records"} {
					if !slices.Contains(r.Tools, want) {
						t.Errorf("the guest does not see %s: %v", want, r.Tools)
					}
				}
				checkCalls(t, r, calls)
				// SDK 1.32.2 reports the JSON-RPC code; SDK 2.4.0 one of
				// its own for the HTTP 429 the refusal comes with.
				if e := r.Calls[len(r.Calls)-1].Error; c.client.era == mcp.EraLegacy && (e == nil || e.Code != float64(-31429)) {
					t.Errorf("the rate limit's refusal is %+v, want code -31429", e)
				}
			})
		}
		// The admin sees and calls ts__get-sum, and is asked to approve
		// each call of v2__delete_records: the legacy client through an
		// elicitation request, the 2026-07-28 one through an input round.
		for _, c := range gatewayClients[:2] {
			for _, answer := range []string{"accept", "decline"} {
				t.Run("admin/"+c.name+"/"+answer, func(t *testing.T) {
					t.Parallel()
					calls := []gatewayCall{sum, deleted}
					if answer == "decline" {
						calls = []gatewayCall{notDeleted}
					}
					r := c.run(admin, t, gatewayPlan{Calls: calls, Elicit: answer})
					if !slices.Contains(r.Tools, "ts__get-sum") {
						t.Errorf("the admin does not see ts__get-sum: %v", r.Tools)
					}
					checkCalls(t, r, calls)
					if len(r.Elicitations) != 1 || !strings.Contains(r.Elicitations[0].Message, "v2__delete_records") {
						t.Errorf("the client was asked %+v, want one approval of v2__delete_records", r.Elicitations)
					}
				})
			}
		}
		t.Run("REST", func(t *testing.T) {
			t.Parallel()
			checkGovernedREST(t, g, keys)
		})
	})
	if t.Failed() {
		return
	}

	// The two declined calls never reached the upstream. (It is every
	// scenario's tsv2, but no other deletes.)
	if got, want := upstreamText(t, g.peers.v2URL, "stats"), "stats from ts-v2-server: 2 deletions"; got != want {
		t.Errorf("the upstream says %q, want %q: only the two approved calls reach it", got, want)
	}

	calls := func(who, name string, d string) auditCount { return auditCount{who, "tools/call", name, d} }
	want := map[auditCount]int{
		calls(guestPrincipal, "go__greet", "allowed"):                    3,
		calls(guestPrincipal, "go__greet", "rate-limited"):               1,
		calls(guestPrincipal, "ts__echo", "allowed"):                     3,
		calls(guestPrincipal, "ts__echo", "rate-limited"):                1,
		calls(guestPrincipal, "ts__get-sum", "denied"):                   2,
		calls(adminPrincipal, "ts__get-sum", "allowed"):                  2,
		calls(adminPrincipal, "go__greet", "allowed"):                    1, // by REST
		calls(adminPrincipal, "v2__delete_records", "allowed"):           2,
		calls(adminPrincipal, "v2__delete_records", "approval-declined"): 2,
		calls(adminPrincipal, "v2__delete_records", "approval-asked"):    2, // the 2026-07-28 first rounds
	}
	lines := waitAudit(t, keys.audit, want)
	for _, l := range lines {
		if l.Principal != adminPrincipal && l.Principal != guestPrincipal {
			t.Errorf("audit line of principal %q, want admin's or guest's: %s", l.Principal, l.raw)
		}
	}
	for _, who := range []string{adminPrincipal, guestPrincipal} {
		if !slices.ContainsFunc(lines, func(l auditLine) bool {
			return l.Principal == who && l.Method == "tools/list" && l.Decision == "allowed"
		}) {
			t.Errorf("no audit line of a tools/list by %s", who)
		}
	}
	audit, err := os.ReadFile(keys.audit)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the audit file": string(audit), "the gateway's log": g.Log(t)} {
		for _, key := range []string{keys.admin, keys.guest} {
			if strings.Contains(text, key) {
				t.Errorf("%s holds an API key", what)
			}
		}
	}

	m := g.Metrics(t, keys.admin)
	for _, c := range []struct {
		name, outcome string
		want          float64
	}{
		{"go__greet", "ok", 4}, // three by the guest, one by REST
		{"ts__echo", "ok", 3},
		{"ts__get-sum", "ok", 2},
		{"v2__delete_records", "ok", 2},
	} {
		labels := map[string]string{"server": "default", "method": "tools/call", "name": c.name, "outcome": c.outcome}
		if got := m.sum("mcpgen_gateway_requests_total", labels); got != c.want {
			t.Errorf("mcpgen_gateway_requests_total%v = %v, want %v", labels, got, c.want)
		}
	}
	// The refusal of the fourth call is counted too, as rejected: the
	// gateway refused it, no server failed.
	for _, name := range []string{"go__greet", "ts__echo"} {
		all := m.sum("mcpgen_gateway_requests_total", map[string]string{"method": "tools/call", "name": name})
		ok := m.sum("mcpgen_gateway_requests_total", map[string]string{"method": "tools/call", "name": name, "outcome": "ok"})
		rejected := m.sum("mcpgen_gateway_requests_total", map[string]string{"method": "tools/call", "name": name, "outcome": "rejected"})
		if all-ok != 1 || rejected != 1 {
			t.Errorf("calls of %s: %v counted that did not end ok, %v rejected; want 1 and 1 (rate-limited)", name, all-ok, rejected)
		}
	}
}

// checkGovernedREST checks the REST facade under the keys: each sees the
// tools it may call in the OpenAPI document, a call answers with the
// tool's result, and a hidden tool is not found.
func checkGovernedREST(t *testing.T, g *gatewayRun, keys governKeys) {
	paths := func(key string) []string {
		status, body := g.REST(t, key, "GET", "/rest/openapi.json", "")
		if status != 200 {
			t.Fatalf("GET /rest/openapi.json: %d %s", status, body)
		}
		var doc struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("GET /rest/openapi.json: %v: %s", err, body)
		}
		return slices.Sorted(maps.Keys(doc.Paths))
	}
	guestPaths, adminPaths := paths(keys.guest), paths(keys.admin)
	if !slices.Contains(guestPaths, "/tools/go__greet") || slices.Contains(guestPaths, "/tools/ts__get-sum") {
		t.Errorf("the guest's OpenAPI document has paths %v, want /tools/go__greet and not /tools/ts__get-sum", guestPaths)
	}
	if !slices.Contains(adminPaths, "/tools/ts__get-sum") {
		t.Errorf("the admin's OpenAPI document has paths %v, want /tools/ts__get-sum", adminPaths)
	}
	if status, body := g.REST(t, keys.admin, "POST", "/rest/tools/go__greet", `{"name": "REST"}`); status != 200 || !strings.Contains(string(body), "Hello, REST!") {
		t.Errorf("POST /rest/tools/go__greet: %d %s, want 200 with Hello, REST!", status, body)
	}
	if status, body := g.REST(t, keys.guest, "POST", "/rest/tools/ts__get-sum", `{}`); status != 404 {
		t.Errorf("the guest's POST /rest/tools/ts__get-sum: %d %s, want 404", status, body)
	}
	if status, body := g.REST(t, "", "GET", "/rest/openapi.json", ""); status != 401 {
		t.Errorf("GET /rest/openapi.json without a key: %d %s, want 401", status, body)
	}
}

// REST sends a request to the gateway's REST facade with the API key, if
// any, as X-API-Key, and returns the status and body of the answer.
func (g *gatewayRun) REST(t *testing.T, key, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+g.addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	return httpDo(t, req)
}

func httpDo(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return resp.StatusCode, data
}

// promText is a scrape of /metrics.
type promText string

// Metrics scrapes the gateway's /metrics, with the API key key when it
// is not empty.
func (g *gatewayRun) Metrics(t *testing.T, key string) promText {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", "http://"+g.addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	status, body := httpDo(t, req)
	if status != 200 {
		t.Fatalf("GET /metrics: %d %s", status, body)
	}
	return promText(body)
}

// sum adds up the samples of the metric name whose labels include
// labels.
func (p promText) sum(name string, labels map[string]string) float64 {
	total := 0.0
	for _, line := range strings.Split(string(p), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		set, value := "", rest
		if rest[0] == '{' {
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				continue
			}
			set, value = rest[1:end], rest[end+1:]
		}
		matched := true
		for k, v := range labels {
			if !strings.Contains(","+set+",", ","+k+"="+strconv.Quote(v)+",") {
				matched = false
				break
			}
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); matched && err == nil {
			total += f
		}
	}
	return total
}

// auditLine is one line of the audit file.
type auditLine struct {
	Principal string `json:"principal"`
	Method    string `json:"method"`
	Name      string `json:"name"`
	Decision  string `json:"decision"`
	Reason    string `json:"reason"`
	raw       string
}

// auditCount is what waitAudit counts lines by.
type auditCount struct{ principal, method, name, decision string }

// waitAudit waits until the audit file holds at least the lines want
// counts (the gateway writes them in the background), then checks it
// holds exactly those, and returns every line.
func waitAudit(t *testing.T, path string, want map[auditCount]int) []auditLine {
	t.Helper()
	var lines []auditLine
	var got map[auditCount]int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		lines, got = nil, map[auditCount]int{}
		for _, text := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if text == "" {
				continue
			}
			l := auditLine{raw: text}
			if err := json.Unmarshal([]byte(text), &l); err != nil {
				t.Fatalf("audit line %s: %v", text, err)
			}
			lines = append(lines, l)
			got[auditCount{l.Principal, l.Method, l.Name, l.Decision}]++
		}
		short := false
		for k, n := range want {
			short = short || got[k] < n
		}
		if !short || time.Now().After(deadline) {
			break
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%d audit lines of %s %s %s by %s, want %d", got[k], k.method, k.name, k.decision, k.principal, n)
		}
	}
	if t.Failed() {
		for _, l := range lines {
			t.Logf("audit: %s", l.raw)
		}
	}
	return lines
}

// modernSession connects a 2026-07-28 mcpgen client to url.
func modernSession(t *testing.T, ctx context.Context, url string) *client.Session {
	t.Helper()
	s, err := client.New(mcp.Implementation{Name: "mcpgen-interop", Version: "1.0.0"}, &client.Options{Era: mcp.EraModern}).
		Connect(ctx, streamable.NewClientTransport(url, nil))
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	return s
}

// upstreamText calls the tool of the 2026-07-28 upstream at url, without
// arguments and around the gateway, and returns its text.
func upstreamText(t *testing.T, url, tool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s := modernSession(t, ctx, url)
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: tool, Arguments: json.RawMessage("{}")})
	if err != nil {
		t.Fatalf("%s of %s: %v", tool, url, err)
	}
	text, err := onlyText(res)
	if err != nil {
		t.Fatalf("%s of %s: %v", tool, url, err)
	}
	return text
}

// pinningScenario runs `mcpgen-gateway lock` before the gateway serves,
// and puts a gateway-v2-server.mjs of its own behind the virtual server
// "pinned" (only its whoami, as pin__whoami), so that it can restart it
// with another description of whoami. The gateway writes an audit file.
func pinningScenario() gatewayScenario {
	var up *v2Upstream
	var audit string
	return gatewayScenario{
		name: "pinning",
		config: func(t *testing.T, p *gatewayPeers) gatewayConfig {
			up = startV2Upstream(t, p.node, "")
			audit = filepath.Join(t.TempDir(), "audit.jsonl")
			return gatewayConfig{Lock: true, Top: fmt.Sprintf("audit: {file: %q}\n", audit), Servers: fmt.Sprintf(`pinned:
  upstreams:
    - name: pinned
      url: %s
      prefix: pin__
      include: [whoami]
`, up.url)}
		},
		check: func(t *testing.T, g *gatewayRun) { checkPinning(t, g.At("pinned"), up, audit) },
	}
}

// checkPinning checks that the pinned tool is served, that once the
// upstream changed its description it is quarantined (unlisted, a call
// refused naming the change, the gauge at one), that `mcpgen-gateway
// approve` brings it back on the running gateway, and that every call
// left an audit line.
func checkPinning(t *testing.T, g *gatewayRun, up *v2Upstream, audit string) {
	served := []gatewayCall{{Name: "pin__whoami", Arguments: map[string]any{}, want: "ts-v2-server"}}
	refused := []gatewayCall{{Name: "pin__whoami", Arguments: map[string]any{}, refusedWith: "description changed"}}
	clients := func(name string, calls []gatewayCall, listed bool) {
		t.Run(name, func(t *testing.T) {
			for _, c := range gatewayClients[:2] {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					r := c.run(g, t, gatewayPlan{Calls: calls})
					if slices.Contains(r.Tools, "pin__whoami") != listed {
						t.Errorf("tools/list gives %v; want pin__whoami listed: %v", r.Tools, listed)
					}
					checkCalls(t, r, calls)
				})
			}
		})
	}
	quarantined := func(want float64) {
		t.Helper()
		if got := g.Metrics(t, "").sum("mcpgen_gateway_quarantined_tools", nil); got != want {
			t.Errorf("mcpgen_gateway_quarantined_tools = %v, want %v", got, want)
		}
	}

	clients("pinned", served, true)
	quarantined(0)
	if t.Failed() {
		return
	}

	up.restart(t, "Names the server that answers, and now does more.")
	waitListed(t, g.url, "pin__whoami", false)
	clients("changed", refused, false)
	quarantined(1)
	if !strings.Contains(g.Log(t), "tool quarantined") {
		t.Error("the gateway did not log the quarantine")
	}

	out := g.Pin(t, "approve")
	if !strings.Contains(out, "approved   pinned/whoami: description changed") {
		t.Errorf("mcpgen-gateway approve printed\n%s\nwithout the approval of pinned/whoami", out)
	}
	clients("approved", served, true)
	quarantined(0)

	// Each call has its line: the four served, and the two refused
	// while quarantined.
	lines := waitAudit(t, audit, map[auditCount]int{{"anonymous", "tools/call", "pin__whoami", "allowed"}: 4})
	if n := countFunc(lines, func(l auditLine) bool { return l.Method == "tools/call" && l.Name == "pin__whoami" }); n != 6 {
		t.Errorf("%d audit lines of calls of pin__whoami, want 6", n)
	}
}

func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

// waitListed waits until a tools/list of the virtual server at url lists
// the tool name, or does not (listed false): a 2026-07-28 upstream's
// change shows once the gateway lists it again, which the first list
// request after its listing expired does. It fails the test after 30s.
func waitListed(t *testing.T, url, name string, listed bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s := modernSession(t, ctx, url)
	defer s.Close()
	var names []string
	for {
		names = names[:0]
		for tool, err := range s.AllTools(ctx) {
			if err != nil {
				t.Fatalf("tools/list of %s (want %s listed: %v): %v", url, name, listed, err)
			}
			names = append(names, tool.Name)
		}
		if slices.Contains(names, name) == listed {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tools/list of %s gives %v after 30s; want %s listed: %v", url, names, name, listed)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// v2Upstream is a gateway-v2-server.mjs of a scenario's own, which keeps
// its port across restarts.
type v2Upstream struct {
	node, port string
	url        string
	cmd        *exec.Cmd
}

// startV2Upstream runs gateway-v2-server.mjs with whoami described by
// description ("" for its own) until the test ends.
func startV2Upstream(t *testing.T, node, description string) *v2Upstream {
	t.Helper()
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	u := &v2Upstream{node: node, port: port}
	t.Cleanup(u.stop)
	u.start(t, description)
	return u
}

func (u *v2Upstream) start(t *testing.T, description string) {
	t.Helper()
	cmd := exec.Command(u.node, "gateway-v2-server.mjs")
	cmd.Env = append(os.Environ(), "GATEWAY_V2_PORT="+u.port, "GATEWAY_V2_WHOAMI_DESCRIPTION="+description)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	u.cmd = cmd
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("gateway-v2-server.mjs on port %s printed nothing: %v", u.port, lines.Err())
	}
	url, ok := strings.CutPrefix(lines.Text(), "listening ")
	if !ok {
		t.Fatalf("gateway-v2-server.mjs printed %q", lines.Text())
	}
	u.url = url
}

// restart stops the server and starts it again, on the same port, with
// whoami described by description.
func (u *v2Upstream) restart(t *testing.T, description string) {
	t.Helper()
	u.stop()
	u.start(t, description)
}

func (u *v2Upstream) stop() {
	if u.cmd == nil {
		return
	}
	_ = u.cmd.Process.Kill()
	_ = u.cmd.Wait()
	u.cmd = nil
}
