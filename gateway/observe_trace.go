package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// tracerName is the instrumentation scope of the gateway's spans.
const tracerName = "github.com/mcpgen/mcpgen/gateway"

// The attributes of a request's span. The MCP semantic conventions of
// OpenTelemetry name the first group; the gateway's own, under
// mcpgen.gateway, say where the request went.
const (
	attrMethod          = "mcp.method.name"
	attrProtocolVersion = "mcp.protocol.version"
	attrResourceURI     = "mcp.resource.uri"
	attrRequestID       = "jsonrpc.request.id"
	attrStatusCode      = "rpc.response.status_code"
	attrErrorType       = "error.type"
	attrOperation       = "gen_ai.operation.name"
	attrToolName        = "gen_ai.tool.name"
	attrPromptName      = "gen_ai.prompt.name"

	attrServer       = "mcpgen.gateway.server"        // the virtual server
	attrUpstream     = "mcpgen.gateway.upstream"      // the upstream's configured name
	attrUpstreamName = "mcpgen.gateway.upstream.name" // the upstream's own name for the tool or prompt
)

// traceContext reads and writes W3C trace context (traceparent,
// tracestate), the keys the conventions carry in a request's _meta.
var traceContext propagation.TraceContext

// startTracing sets up where spans go: an OTLP/HTTP exporter behind a
// batching provider when the config names a collector, else the global
// provider.
func (o *observer) startTracing(tc *TelemetryConfig) error {
	if tc.OTLPEndpoint == "" {
		o.tracer = otel.GetTracerProvider().Tracer(tracerName)
		return nil
	}
	endpoint, err := url.Parse(tc.OTLPEndpoint)
	if err != nil {
		return fmt.Errorf("telemetry.otlpEndpoint: %w", err)
	}
	if endpoint.Path == "" || endpoint.Path == "/" {
		endpoint.Path = "/v1/traces"
	}
	// New only configures the exporter: nothing is dialled until the
	// first batch is sent, so this context bounds nothing that blocks.
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(endpoint.String()))
	if err != nil {
		return fmt.Errorf("telemetry.otlpEndpoint: %w", err)
	}
	// The service is mcpgen-gateway unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES say otherwise.
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "mcpgen-gateway")))
	if err == nil {
		res, err = resource.Merge(res, resource.Environment())
	}
	if err != nil {
		return fmt.Errorf("telemetry: resource: %w", err)
	}
	// The batcher's queue is bounded (2048 spans by default): spans past
	// it are dropped rather than held while the collector is slow.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	o.provider = tp
	o.tracer = tp.Tracer(tracerName)
	return nil
}

// serverSpan is the options of every request's span, made once.
var serverSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}

// startSpan starts the server span of request op, as a child of the
// trace context in the request's _meta when it has one.
func (o *observer) startSpan(ctx context.Context, v *virtual, op *op, e *entryObs) (context.Context, trace.Span) {
	ctx = continueTrace(ctx)
	ctx, span := o.tracer.Start(ctx, e.spanName, serverSpan...)
	if !span.IsRecording() {
		return ctx, span
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs,
		attribute.String(attrMethod, e.method),
		attribute.String(attrServer, v.name),
		attribute.String(attrUpstream, op.u.cfg.Name),
	)
	switch op.kind {
	case kindTool:
		attrs = append(attrs,
			attribute.String(attrOperation, "execute_tool"),
			attribute.String(attrToolName, op.name),
			attribute.String(attrUpstreamName, op.upName))
	case kindPrompt:
		attrs = append(attrs,
			attribute.String(attrPromptName, op.name),
			attribute.String(attrUpstreamName, op.upName))
	case kindResource:
		attrs = append(attrs, attribute.String(attrResourceURI, op.name))
	}
	if pv := server.ProtocolVersion(ctx); pv != "" {
		attrs = append(attrs, attribute.String(attrProtocolVersion, string(pv)))
	}
	if id := server.RequestID(ctx); !id.IsZero() {
		s, ok := id.Str()
		if !ok {
			s = id.String()
		}
		attrs = append(attrs, attribute.String(attrRequestID, s))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// endSpan records the outcome on the span and ends it.
func endSpan(span trace.Span, out outcome, err error) {
	if span.IsRecording() {
		if out.hasCode {
			span.SetAttributes(attribute.String(attrStatusCode, strconv.FormatInt(out.code, 10)))
		}
		if out.failed {
			span.SetAttributes(attribute.String(attrErrorType, out.errType))
			msg := out.errType
			if err != nil {
				msg = err.Error()
			}
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
}

// metaCarrier is the trace context keys of a request's _meta.
type metaCarrier struct {
	Traceparent string `json:"traceparent"`
	Tracestate  string `json:"tracestate"`
}

func (c *metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.Traceparent
	case "tracestate":
		return c.Tracestate
	}
	return ""
}

func (c *metaCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		c.Traceparent = value
	case "tracestate":
		c.Tracestate = value
	}
}

func (c *metaCarrier) Keys() []string { return []string{"traceparent", "tracestate"} }

// continueTrace returns ctx with the remote span context of the
// traceparent (and tracestate) in the _meta of the request ctx serves, or
// ctx itself when the request carries none or a malformed one.
func continueTrace(ctx context.Context) context.Context {
	raw := server.RequestMeta(ctx)
	if !bytes.Contains(raw, []byte(`"traceparent"`)) {
		return ctx
	}
	var c metaCarrier
	if json.Unmarshal(raw, &c) != nil {
		return ctx
	}
	return traceContext.Extract(ctx, &c)
}

// upstreamMeta is the _meta of a request forwarded upstream for the
// downstream request ctx serves: the W3C trace context of the request's
// span, so that the upstream's spans join the trace. With tracing off and
// no trace context from the client it is nil.
func upstreamMeta(ctx context.Context) *mcp.RequestMetaObject {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	var c metaCarrier
	traceContext.Inject(ctx, &c)
	if c.Traceparent == "" {
		return nil
	}
	m := &mcp.RequestMetaObject{Extra: map[string]json.RawMessage{"traceparent": jsonString(c.Traceparent)}}
	if c.Tracestate != "" {
		m.Extra["tracestate"] = jsonString(c.Tracestate)
	}
	return m
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
