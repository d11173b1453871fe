package mcpheader

import (
	"context"
	"net/http"
)

// A client knows a tool's annotated parameters from tools/list; the
// transport that sends the tools/call writes the headers. The two meet in
// the ctx of the request: the client attaches the tool's Params with
// WithParams, the transport reads them back with ParamsFrom.

type paramsKey struct{}

// WithParams returns a copy of ctx that carries the annotated parameters
// of the tool a tools/call sent with it calls.
func WithParams(ctx context.Context, params []Param) context.Context {
	if len(params) == 0 {
		return ctx
	}
	return context.WithValue(ctx, paramsKey{}, params)
}

// ParamsFrom returns the parameters WithParams attached to ctx, or nil.
func ParamsFrom(ctx context.Context) []Param {
	p, _ := ctx.Value(paramsKey{}).([]Param)
	return p
}

// SetHeaders sets the Mcp-Param-* headers of params from the call's
// arguments: a header for each parameter whose value is present and not
// null, in the encoding the rules require.
func SetHeaders(h http.Header, params []Param, args []byte) {
	for _, p := range params {
		raw, err := Lookup(args, p.Path)
		if err != nil || raw == nil {
			continue
		}
		if v, ok := FormatValue(raw, p.Type); ok {
			h.Set(p.Header(), v)
		}
	}
}
