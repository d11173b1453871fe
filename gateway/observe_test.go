package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// startConfig builds and starts the gateway of a whole configuration.
func startYAML(t *testing.T, yaml string) *Gateway {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return startConfig(t, cfg, nil)
}

// scrape reads the metrics at url as "name{labels}" → value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// metricKey names a request metric of the default server's upstream a as
// the exposition writes it: labels sorted, a histogram's le last. extra is
// one more label, key="value", or "".
func metricKey(metric, kind, method, name, extra string) string {
	labels := []string{`kind="` + kind + `"`, `method="` + method + `"`, `name="` + name + `"`, `server="default"`, `upstream="a"`}
	if extra != "" && !strings.HasPrefix(extra, "le=") {
		labels = append(labels, extra)
		slices.Sort(labels)
	} else if extra != "" {
		labels = append(labels, extra)
	}
	return metric + "{" + strings.Join(labels, ",") + "}"
}

func TestMetricsScrape(t *testing.T) {
	g, err := startGateway(t, upstreamConfig(t, "a", nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	var quarantined atomic.Int32
	wired := g.obs.metrics.quarantined
	g.obs.metrics.quarantined = func() int { return int(quarantined.Load()) }
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	s := connect(t, g, &client.Options{Era: mcp.EraLegacy})
	ctx := context.Background()
	for range 2 {
		if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "a__greet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "a://r"}); err != nil {
		t.Fatal(err)
	}
	// A name the gateway never registered must not become a label.
	_, _ = s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "no_such_tool_from_the_client"})

	m := scrape(t, ts.URL+"/metrics")
	want := map[string]float64{
		metricKey("mcpgen_gateway_requests_total", "tool", "tools/call", "a__echo", `outcome="ok"`):               2,
		metricKey("mcpgen_gateway_requests_total", "prompt", "prompts/get", "a__greet", `outcome="ok"`):           1,
		metricKey("mcpgen_gateway_requests_total", "resource", "resources/read", "", `outcome="ok"`):              1,
		metricKey("mcpgen_gateway_request_duration_seconds_count", "tool", "tools/call", "a__echo", ""):           2,
		metricKey("mcpgen_gateway_request_duration_seconds_bucket", "tool", "tools/call", "a__echo", `le="+Inf"`): 2,
		metricKey("mcpgen_gateway_requests_in_flight", "tool", "tools/call", "a__echo", ""):                       0,
		`mcpgen_gateway_upstream_up{server="default",upstream="a"}`:                                               1,
		`mcpgen_gateway_downstream_sessions{server="default"}`:                                                    1,
		`mcpgen_gateway_quarantined_tools`:                                                                        0,
	}
	for k, v := range want {
		got, ok := m[k]
		if !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if sum := m[metricKey("mcpgen_gateway_request_duration_seconds_sum", "tool", "tools/call", "a__echo", "")]; sum <= 0 {
		t.Errorf("latency sum %v, want > 0", sum)
	}
	for k := range m {
		if strings.Contains(k, "no_such_tool") {
			t.Errorf("a client's unknown tool name became a series: %s", k)
		}
	}

	// The quarantine gauge asks pinning at each scrape.
	if wired() != g.quarantinedCount() {
		t.Fatal("the quarantine gauge is not wired to quarantinedCount")
	}
	quarantined.Store(3)
	if got := scrape(t, ts.URL+"/metrics")["mcpgen_gateway_quarantined_tools"]; got != 3 {
		t.Fatalf("quarantined tools %v, want 3", got)
	}
	quarantined.Store(1)
	if got := scrape(t, ts.URL+"/metrics")["mcpgen_gateway_quarantined_tools"]; got != 1 {
		t.Fatalf("quarantined tools %v, want 1", got)
	}
}

func TestMetricsUpstreamHealth(t *testing.T) {
	g, err := startGateway(t, upstreamConfig(t, "a", nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(g.Handler())
	t.Cleanup(ts.Close)
	const up = `mcpgen_gateway_upstream_up{server="default",upstream="a"}`
	if v := scrape(t, ts.URL+"/metrics")[up]; v != 1 {
		t.Fatalf("upstream_up %v before the kill, want 1", v)
	}
	u := g.virtuals["default"].ups[0]
	u.mu.Lock()
	pid := u.proc.Pid()
	u.mu.Unlock()
	p, _ := os.FindProcess(pid)
	_ = p.Kill()
	// Down from the disconnect until the restart has reconnected (at
	// least the minimum backoff), then up again. seen holds the values in
	// the order they changed, from the 1 read before the kill.
	seen := []float64{1}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		v := scrape(t, ts.URL+"/metrics")[up]
		if seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
		if len(seen) >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(seen) < 3 || seen[0] != 1 || seen[1] != 0 || seen[2] != 1 {
		t.Fatalf("upstream_up went %v, want [1 0 1]", seen)
	}
}

func TestMetricsOffAndElsewhere(t *testing.T) {
	head := "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n" + upstreamConfig(t, "a", nil, "")
	off := startYAML(t, head+"telemetry:\n  metrics: false\n")
	ts := httptest.NewServer(off.Handler())
	t.Cleanup(ts.Close)
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("metrics: false still serves /metrics: %s", resp.Status)
	}

	g := startYAML(t, head+"telemetry:\n  metricsListen: 127.0.0.1:0\n")
	main := httptest.NewServer(g.Handler())
	t.Cleanup(main.Close)
	resp, err = http.Get(main.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("with metricsListen, /metrics is still on the main listener: %s", resp.Status)
	}
	m := scrape(t, "http://"+g.obs.server.addr.String()+"/metrics")
	if m[`mcpgen_gateway_upstream_up{server="default",upstream="a"}`] != 1 {
		t.Fatalf("metricsListen serves no upstream health: %v", m)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + g.obs.server.addr.String() + "/metrics"); err == nil {
		t.Fatal("the metrics listener outlived Close")
	}
}

// obsVirtual is a virtual server with one upstream, a, and no
// connection: enough to run route with an observer of cfg.
func obsVirtual(t testing.TB, telemetry string) (*virtual, *op) {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte("listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: a\n        url: http://127.0.0.1:1/mcp\n"+telemetry))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	v := g.virtuals["default"]
	return v, &op{kind: kindTool, name: "a__echo", upName: "echo", u: v.ups[0]}
}

func TestObserveOutcomes(t *testing.T) {
	v, o := obsVirtual(t, "")
	exp := tracetest.NewInMemoryExporter()
	v.g.obs.tracer = sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)).Tracer("test")
	cases := []struct {
		name             string
		res              any
		err              error
		outcome, errType string
		status           codes.Code
	}{
		{"ok", &mcp.CallToolResult{}, nil, "ok", "", codes.Unset},
		{"tool error", &mcp.CallToolResult{IsError: true}, nil, "tool_error", "tool_error", codes.Error},
		{"internal", nil, fmt.Errorf("upstream a: %w", jsonrpc.NewError(jsonrpc.CodeInternalError, "boom")), "error", "-32603", codes.Error},
		{"invalid params", nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad"), "rejected", "-32602", codes.Unset},
		{"timeout", nil, fmt.Errorf("wait: %w", context.DeadlineExceeded), "timeout", "timeout", codes.Error},
		{"canceled", nil, context.Canceled, "canceled", "canceled", codes.Error},
		{"other", nil, errors.New("upstream a is not connected"), "error", "_OTHER", codes.Error},
	}
	for _, c := range cases {
		exp.Reset()
		_, _ = route(context.Background(), v, o, func(context.Context) (any, error) { return c.res, c.err })
		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("%s: %d spans", c.name, len(spans))
		}
		sp := spans[0]
		if sp.Status.Code != c.status {
			t.Errorf("%s: status %v, want %v", c.name, sp.Status.Code, c.status)
		}
		got, ok := attr(sp.Attributes, attrErrorType)
		if c.status == codes.Error && got != c.errType {
			t.Errorf("%s: error.type %q, want %q", c.name, got, c.errType)
		}
		if c.status != codes.Error && ok {
			t.Errorf("%s: error.type %q on a span that did not fail", c.name, got)
		}
		if code, ok := attr(sp.Attributes, attrStatusCode); strings.HasPrefix(c.errType, "-") && (!ok || code != c.errType) {
			t.Errorf("%s: rpc.response.status_code %q, want %q", c.name, code, c.errType)
		}
	}
	ts := httptest.NewServer(v.g.Handler())
	t.Cleanup(ts.Close)
	m := scrape(t, ts.URL+"/metrics")
	for _, c := range cases {
		k := metricKey("mcpgen_gateway_requests_total", "tool", "tools/call", "a__echo", `outcome="`+c.outcome+`"`)
		if m[k] < 1 {
			t.Errorf("%s: %s = %v", c.name, k, m[k])
		}
		if c.errType != "" {
			k := metricKey("mcpgen_gateway_request_errors_total", "tool", "tools/call", "a__echo", `error_type="`+c.errType+`"`)
			if m[k] != 1 {
				t.Errorf("%s: %s = %v, want 1", c.name, k, m[k])
			}
		}
	}
}

func attr(kvs []attribute.KeyValue, key string) (string, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.Emit(), true
		}
	}
	return "", false
}

// metaUpstream is an HTTP upstream whose tool "meta" and prompt "p" keep
// the _meta they were called with.
type metaUpstream struct {
	mu   sync.Mutex
	last *mcp.RequestMetaObject
}

func (m *metaUpstream) lastTraceparent() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m.last.Extra["traceparent"], &s)
	return s
}

func startMetaUpstream(t *testing.T) (*metaUpstream, string) {
	m := &metaUpstream{}
	s := server.New(mcp.Implementation{Name: "meta", Version: "1"}, nil)
	_ = s.AddTool(mcp.Tool{Name: "meta"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		m.mu.Lock()
		m.last = p.Meta
		m.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	})
	_ = s.AddPrompt(mcp.Prompt{Name: "p"}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		m.mu.Lock()
		m.last = p.Meta
		m.mu.Unlock()
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{}}, nil
	})
	h := streamable.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return m, ts.URL
}

func withTraceparent(tp string) *mcp.RequestMetaObject {
	return &mcp.RequestMetaObject{Extra: map[string]json.RawMessage{
		"traceparent": json.RawMessage(strconv.Quote(tp)),
		"tracestate":  json.RawMessage(`"mcpgen=t1"`),
	}}
}

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan   = "00f067aa0ba902b7"
	clientParent = "00-" + clientTrace + "-" + clientSpan + "-01"
)

func TestTracing(t *testing.T) {
	mu, url := startMetaUpstream(t)
	g := startYAML(t, "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: a\n        url: "+url+"\n")
	exp := tracetest.NewInMemoryExporter()
	g.obs.tracer = sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)).Tracer("test")
	ctx := context.Background()
	for name, era := range map[string]mcp.Era{"legacy": mcp.EraLegacy, "2026-07-28": mcp.EraModern} {
		t.Run(name, func(t *testing.T) {
			s := connect(t, g, &client.Options{Era: era})

			// A request without trace context starts a trace, and the
			// upstream hears of the gateway's span.
			exp.Reset()
			if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__meta"}); err != nil {
				t.Fatal(err)
			}
			spans := exp.GetSpans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			sp := spans[0]
			if sp.Name != "tools/call a__meta" || sp.SpanKind != trace.SpanKindServer {
				t.Fatalf("span %q kind %v", sp.Name, sp.SpanKind)
			}
			for k, want := range map[string]string{
				attrMethod: "tools/call", attrToolName: "a__meta", attrOperation: "execute_tool",
				attrServer: "default", attrUpstream: "a", attrUpstreamName: "meta",
			} {
				if got, _ := attr(sp.Attributes, k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			for _, k := range []string{attrRequestID, attrProtocolVersion} {
				if got, _ := attr(sp.Attributes, k); got == "" {
					t.Errorf("%s missing", k)
				}
			}
			if sp.Parent.IsValid() {
				t.Errorf("a request without traceparent got parent %v", sp.Parent)
			}
			want := "00-" + sp.SpanContext.TraceID().String() + "-" + sp.SpanContext.SpanID().String() + "-01"
			if got := mu.lastTraceparent(); got != want {
				t.Fatalf("upstream got traceparent %q, want %q", got, want)
			}

			// A request with trace context continues it.
			exp.Reset()
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "a__p", Meta: withTraceparent(clientParent)}); err != nil {
				t.Fatal(err)
			}
			spans = exp.GetSpans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			sp = spans[0]
			if sp.Name != "prompts/get a__p" {
				t.Errorf("span %q", sp.Name)
			}
			if got, _ := attr(sp.Attributes, attrPromptName); got != "a__p" {
				t.Errorf("gen_ai.prompt.name %q", got)
			}
			if sp.SpanContext.TraceID().String() != clientTrace || sp.Parent.SpanID().String() != clientSpan || !sp.Parent.IsRemote() {
				t.Fatalf("span of trace %s has parent %s (remote %v); want trace %s, remote parent %s",
					sp.SpanContext.TraceID(), sp.Parent.SpanID(), sp.Parent.IsRemote(), clientTrace, clientSpan)
			}
			if ts := sp.SpanContext.TraceState().String(); ts != "mcpgen=t1" {
				t.Errorf("tracestate %q, want the client's", ts)
			}
			want = "00-" + clientTrace + "-" + sp.SpanContext.SpanID().String() + "-01"
			if got := mu.lastTraceparent(); got != want {
				t.Fatalf("upstream got traceparent %q, want %q", got, want)
			}
			mu.mu.Lock()
			state := string(mu.last.Extra["tracestate"])
			mu.mu.Unlock()
			if state != `"mcpgen=t1"` {
				t.Errorf("upstream got tracestate %s", state)
			}
		})
	}
}

// With no exporter the gateway records nothing, but a client's trace
// context still reaches the upstream.
func TestTracingOffPassesContext(t *testing.T) {
	mu, url := startMetaUpstream(t)
	g := startYAML(t, "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n      - name: a\n        url: "+url+"\n")
	s := connect(t, g, nil)
	ctx := context.Background()
	if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__meta"}); err != nil {
		t.Fatal(err)
	}
	if got := mu.lastTraceparent(); got != "" {
		t.Fatalf("tracing off and no client context, yet the upstream got traceparent %q", got)
	}
	// Nobody downstream asked for progress, so the upstream is not asked.
	mu.mu.Lock()
	if mu.last != nil && !mu.last.ProgressToken.IsZero() {
		t.Errorf("a call without a progress token reached the upstream with token %v", mu.last.ProgressToken)
	}
	mu.mu.Unlock()
	if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__meta", Meta: withTraceparent(clientParent)}); err != nil {
		t.Fatal(err)
	}
	if got := mu.lastTraceparent(); got != clientParent {
		t.Fatalf("upstream got traceparent %q, want the client's %q", got, clientParent)
	}
	// A malformed one is not passed on.
	if _, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "a__meta", Meta: withTraceparent("00-not-a-trace\n-01")}); err != nil {
		t.Fatal(err)
	}
	if got := mu.lastTraceparent(); got != "" {
		t.Fatalf("a malformed traceparent reached the upstream as %q", got)
	}
}

// The OTLP exporter sends the spans to the configured collector, at the
// standard path when the URL has none, by Close at the latest.
func TestTracingOTLPExport(t *testing.T) {
	type post struct {
		path, ctype string
		req         coltracepb.ExportTraceServiceRequest
		err         error
	}
	got := make(chan *post, 16)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := &post{path: r.URL.Path, ctype: r.Header.Get("Content-Type")}
		body, err := io.ReadAll(r.Body)
		if p.err = err; err == nil {
			p.err = proto.Unmarshal(body, &p.req)
		}
		select {
		case got <- p:
		default:
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(collector.Close)
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	g := startYAML(t, "listen: 127.0.0.1:0\nservers:\n  default:\n    upstreams:\n"+upstreamConfig(t, "a", nil, "")+
		"telemetry:\n  otlpEndpoint: "+collector.URL+"\n")
	s := connect(t, g, nil)
	if _, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__echo"}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	var p *post
	select {
	case p = <-got:
	default:
		t.Fatal("the collector got no spans by Close")
	}
	if p.path != "/v1/traces" || p.ctype != "application/x-protobuf" || p.err != nil {
		t.Fatalf("collector got %s %s: %v", p.path, p.ctype, p.err)
	}
	var service string
	var names []string
	for _, rs := range p.req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				names = append(names, sp.Name)
			}
		}
	}
	if service != "mcpgen-gateway" || !slices.Contains(names, "tools/call a__echo") {
		t.Fatalf("exported service %q, spans %q", service, names)
	}
}

func TestTelemetryConfig(t *testing.T) {
	head := "listen: 127.0.0.1:8080\nservers:\n  default:\n    upstreams:\n      - name: a\n        url: http://127.0.0.1:1/mcp\ntelemetry:\n"
	cases := []struct{ body, want string }{
		{"  otlpEndpoint: 127.0.0.1:4318\n", "use an http:// or https:// URL"},
		{"  otlpEndpoint: http://\n", "has no host"},
		{"  otlpEndpoint: http://u:secret@collector:4318\n", "credentials do not belong in the URL"},
		{"  otlpEndpoint: http://collector:4318/v1/traces?x=1\n", "query or fragment"},
		{"  metrics: false\n  metricsListen: 127.0.0.1:9464\n", "metrics are off"},
		{"  metricsListen: 9464\n", "want host:port"},
		{"  metricsListen: 127.0.0.1:8080\n", "is also listen"},
		{"  tracing: true\n", "field tracing not found"},
	}
	for _, c := range cases {
		_, err := ParseConfig("t.yaml", []byte(head+c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want one containing %q", c.body, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the credential: %v", c.body, err)
		}
	}
	ok := "  otlpEndpoint: https://collector.example:4318\n  metrics: true\n  metricsListen: 127.0.0.1:9464\n"
	if _, err := ParseConfig("t.yaml", []byte(head+ok)); err != nil {
		t.Fatalf("a good telemetry section: %v", err)
	}
}

// BenchmarkRoute measures what observation adds to a forwarded request:
// bare is route's forward alone; the others run the whole route with
// telemetry off, metrics only (the default), and metrics with recorded
// spans.
func BenchmarkRoute(b *testing.B) {
	res := &mcp.CallToolResult{}
	forward := func(context.Context) (*mcp.CallToolResult, error) { return res, nil }
	b.Run("bare", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_, _ = forward(ctx)
		}
	})
	for _, c := range []struct{ name, telemetry string }{
		{"off", "telemetry:\n  metrics: false\n"},
		{"metrics", ""},
		{"metrics+spans", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, o := obsVirtual(b, c.telemetry)
			if c.name == "metrics+spans" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewBatchSpanProcessor(discard{})))
				defer func() { _ = tp.Shutdown(context.Background()) }()
				v.g.obs.tracer = tp.Tracer("bench")
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, _ = route(ctx, v, o, forward)
			}
		})
	}
}

// discard is a span exporter that drops what it is given.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }
