package gateway

import (
	"context"
	"log/slog"
)

// governance is the gateway-wide part of authorization, policy and audit.
type governance struct{}

func newGovernance(cfg *Config, log *slog.Logger) (*governance, error) {
	return &governance{}, nil
}

func (g *governance) close() error { return nil }

// admit decides whether the request o may go to its upstream. When it may,
// finish must be called with the forward's result or error.
func (v *virtual) admit(ctx context.Context, o *op) (context.Context, func(res any, err error), error) {
	return ctx, func(any, error) {}, nil
}

// validateGovern checks a virtual server's authz and policy sections.
func (s *ServerConfig) validateGovern(where string, bad badFunc) error {
	return nil
}

// setGovern makes the virtual server use the authz and policy sections of
// sc, as a reload of the configuration changed them.
func (v *virtual) setGovern(sc *ServerConfig) error { return nil }
