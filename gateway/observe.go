package gateway

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// observer keeps the gateway's traces (observe_trace.go) and metrics
// (observe_metrics.go). Both are read on every forwarded request; what is
// off costs a nil check, and tracing without an exporter costs a no-op
// span.
type observer struct {
	tracer trace.Tracer
	// provider is the tracer provider the observer made for
	// telemetry.otlpEndpoint, flushed and shut down by close; nil when
	// spans go to the global provider (a no-op unless an embedding
	// program installed one).
	provider interface{ Shutdown(context.Context) error }
	// metrics is nil when telemetry.metrics is false.
	metrics *metrics
	// entries caches, per entryKey, what observe needs of a registered
	// name: its span name and its metric series. It grows with the names
	// upstreams list, never with what clients send. A map under a lock
	// rather than a sync.Map: looking a struct key up in a sync.Map boxes
	// it, an allocation on every request.
	mu      sync.RWMutex
	entries map[entryKey]*entryObs
	// server serves /metrics on telemetry.metricsListen; nil when /metrics
	// is on the gateway's own mux (or off).
	server *metricsServer
}

func newObserver(g *Gateway) (*observer, error) {
	o := &observer{entries: map[entryKey]*entryObs{}}
	tc := g.cfg.Telemetry
	if tc == nil {
		tc = &TelemetryConfig{}
	}
	if err := o.startTracing(tc); err != nil {
		return nil, err
	}
	if tc.MetricsOn() {
		o.metrics = newMetrics(g)
		if tc.MetricsListen != "" {
			s, err := serveMetrics(tc.MetricsListen, o.metrics.handler(), g.log)
			if err != nil {
				_ = o.close()
				return nil, err
			}
			o.server = s
		}
	}
	return o, nil
}

// close flushes the spans not yet exported and stops the metrics
// listener, each within a few seconds.
func (o *observer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	if o.provider != nil {
		errs = append(errs, o.provider.Shutdown(ctx))
	}
	if o.server != nil {
		errs = append(errs, o.server.close(ctx))
	}
	return errors.Join(errs...)
}

// entryKey names what one request is about, in bounded terms: the virtual
// server, the upstream, the kind and a name the gateway registered. A
// resource read has no name here: a template's URIs are the client's.
type entryKey struct {
	server, upstream string
	kind             kind
	name             string
}

// entryObs is what observe keeps per entryKey.
type entryObs struct {
	method   string
	spanName string
	series   *series // nil when metrics are off
}

func (o *observer) entry(v *virtual, op *op) *entryObs {
	k := entryKey{server: v.name, upstream: op.u.cfg.Name, kind: op.kind}
	if op.kind != kindResource {
		k.name = op.name
	}
	o.mu.RLock()
	e := o.entries[k]
	o.mu.RUnlock()
	if e != nil {
		return e
	}
	e = &entryObs{method: methodOf(op.kind)}
	e.spanName = e.method
	if op.kind == kindTool || op.kind == kindPrompt {
		e.spanName += " " + op.name
	}
	if o.metrics != nil {
		e.series = o.metrics.series(k, e.method)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if prev := o.entries[k]; prev != nil {
		return prev
	}
	o.entries[k] = e
	return e
}

// methodOf is the MCP method a request of kind k arrived as.
func methodOf(k kind) string {
	switch k {
	case kindTool:
		return mcp.MethodCallTool
	case kindPrompt:
		return mcp.MethodGetPrompt
	case kindResource, kindTemplate:
		return mcp.MethodReadResource
	case kindCompletion:
		return mcp.MethodComplete
	}
	return string(k)
}

// observe starts what is measured of request o; end takes its result or
// error. It continues the trace the request's _meta carries, if any, with
// a server span that the forward's upstreamMeta passes on.
func (v *virtual) observe(ctx context.Context, o *op) (context.Context, func(res any, err error)) {
	obs := v.g.obs
	e := obs.entry(v, o)
	start := time.Now()
	ctx, span := obs.startSpan(ctx, v, o, e)
	if e.series != nil {
		e.series.inFlight.Inc()
	}
	return ctx, func(res any, err error) {
		out := classify(res, err)
		if e.series != nil {
			e.series.inFlight.Dec()
			obs.metrics.record(e.series, out, time.Since(start))
		}
		endSpan(span, out, err)
	}
}

// outcome is how a request ended, in the terms of the MCP semantic
// conventions and of the metrics' outcome label.
type outcome struct {
	// label is the metrics' outcome: ok, input_required (a 2026-07-28
	// round ended with questions for the client), tool_error (a result
	// with isError), rejected (a JSON-RPC code that blames the request),
	// canceled, timeout or error.
	label string
	// errType is error.type: the JSON-RPC code, tool_error, timeout,
	// canceled or _OTHER; empty for ok.
	errType string
	// code is the JSON-RPC error code, when the error carries one.
	code    int64
	hasCode bool
	// failed marks an outcome the conventions count as an error of the
	// server: a span with status Error.
	failed bool
}

// classify reads the outcome of a forward's result or error.
func classify(res any, err error) outcome {
	if errors.Is(err, server.ErrInputRequired) {
		return outcome{label: "input_required"}
	}
	var r *refusal
	if errors.As(err, &r) {
		out := outcome{label: "rejected", errType: "refused"}
		var je *jsonrpc.Error
		if errors.As(r.err, &je) {
			out.errType, out.code, out.hasCode = strconv.FormatInt(je.Code, 10), je.Code, true
		}
		return out
	}
	if err == nil || errors.Is(err, server.ErrRelayed) {
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			return outcome{label: "tool_error", errType: "tool_error", failed: true}
		}
		return outcome{label: "ok"}
	}
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		out := outcome{label: "error", errType: strconv.FormatInt(je.Code, 10), code: je.Code, hasCode: true, failed: true}
		if blamesRequest(je.Code) {
			out.label, out.failed = "rejected", false
		}
		return out
	case errors.Is(err, context.DeadlineExceeded):
		return outcome{label: "timeout", errType: "timeout", failed: true}
	case errors.Is(err, context.Canceled):
		return outcome{label: "canceled", errType: "canceled", failed: true}
	}
	return outcome{label: "error", errType: "_OTHER", failed: true}
}

// refusal is how route tells end that governance refused the request
// (an authorization rule, a quarantine, a declined approval, a limit, an
// open breaker): the gateway did its job, so it is no error of the server.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// blamesRequest reports whether a JSON-RPC error code says the caller sent
// a request that could not be served; the conventions do not count those
// as errors of the server.
func blamesRequest(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, server.CodeResourceNotFound:
		return true
	}
	return false
}

// validateTelemetry checks the telemetry section.
func (c *Config) validateTelemetry(bad badFunc) error {
	t := c.Telemetry
	if t == nil {
		return nil
	}
	if t.OTLPEndpoint != "" {
		u, err := url.Parse(t.OTLPEndpoint)
		switch {
		case err != nil || u.Scheme != "http" && u.Scheme != "https":
			return bad(0, "telemetry.otlpEndpoint: %q: use an http:// or https:// URL, such as http://127.0.0.1:4318", t.OTLPEndpoint)
		case u.Host == "":
			return bad(0, "telemetry.otlpEndpoint: %q has no host", t.OTLPEndpoint)
		case u.User != nil:
			return bad(0, "telemetry.otlpEndpoint: credentials do not belong in the URL; set OTEL_EXPORTER_OTLP_HEADERS")
		case u.RawQuery != "" || u.Fragment != "":
			return bad(0, "telemetry.otlpEndpoint: %q: a query or fragment is not sent; leave it out", t.OTLPEndpoint)
		}
	}
	if t.MetricsListen != "" {
		if !t.MetricsOn() {
			return bad(0, "telemetry.metricsListen: metrics are off (metrics: false); remove one of the two")
		}
		if _, _, err := net.SplitHostPort(t.MetricsListen); err != nil {
			return bad(0, "telemetry.metricsListen: %q: want host:port: %v", t.MetricsListen, err)
		}
		if _, port, _ := net.SplitHostPort(t.MetricsListen); t.MetricsListen == c.Listen && port != "0" {
			return bad(0, "telemetry.metricsListen: %s is also listen; leave metricsListen out to serve /metrics there", t.MetricsListen)
		}
	}
	return nil
}

// TelemetryConfig configures the gateway's traces and metrics.
//
//	telemetry:
//	  otlpEndpoint: http://127.0.0.1:4318   # spans over OTLP/HTTP; none without it
//	  metrics: true                         # /metrics (the default)
//	  metricsListen: 127.0.0.1:9464         # serve /metrics there instead of on listen
type TelemetryConfig struct {
	// OTLPEndpoint is the OTLP/HTTP collector spans are exported to. A URL
	// without a path gets the standard /v1/traces. Empty exports nothing,
	// and spans go to the global tracer provider, a no-op unless a
	// program that embeds the gateway installed one. Headers for the
	// collector (credentials) come from OTEL_EXPORTER_OTLP_HEADERS, never
	// from this file.
	OTLPEndpoint string `yaml:"otlpEndpoint"`
	// Metrics, when false, turns /metrics off; absent means on.
	Metrics *bool `yaml:"metrics"`
	// MetricsListen, when set, serves /metrics on its own address
	// (host:port) instead of on Listen, so that it can be kept off the
	// network the clients reach. It is bound when the gateway is built.
	MetricsListen string `yaml:"metricsListen"`
}

// MetricsOn reports whether /metrics is served.
func (t *TelemetryConfig) MetricsOn() bool {
	return t == nil || t.Metrics == nil || *t.Metrics
}

// mount adds the telemetry endpoints (/metrics) to mux, unless they are
// off or served on telemetry.metricsListen.
func (o *observer) mount(mux *http.ServeMux, guard func(http.Handler) http.Handler) {
	if o.metrics != nil && o.server == nil {
		mux.Handle("/metrics", guard(o.metrics.handler()))
	}
}
