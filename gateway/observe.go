package gateway

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// observer keeps the gateway's traces and metrics.
type observer struct{}

func newObserver(cfg *Config, log *slog.Logger) (*observer, error) {
	return &observer{}, nil
}

func (o *observer) close() error { return nil }

// observe starts what is measured of request o; end takes its result or
// error.
func (v *virtual) observe(ctx context.Context, o *op) (context.Context, func(res any, err error)) {
	return ctx, func(any, error) {}
}

// upstreamMeta is the _meta of a request forwarded upstream for the
// downstream request ctx serves.
func upstreamMeta(ctx context.Context) *mcp.RequestMetaObject {
	return nil
}

// validateTelemetry checks the telemetry section.
func (c *Config) validateTelemetry(bad badFunc) error {
	return nil
}

// TelemetryConfig configures the gateway's traces and metrics.
type TelemetryConfig struct{}

// mount adds the telemetry endpoints (/metrics) to mux.
func (o *observer) mount(mux *http.ServeMux) {}
