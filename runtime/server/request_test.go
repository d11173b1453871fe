package server

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// TestRequestMetaAndID reads a request's own _meta and id from its
// handler's ctx, in both eras: the keys the engine does not read (a trace
// context) come through as the client wrote them.
func TestRequestMetaAndID(t *testing.T) {
	s := newServer(nil)
	addTool(t, s, "meta", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf(RequestID(ctx).String() + " " + string(RequestMeta(ctx))), nil
	})
	p := start(t, s)
	p.initialize(t, "2025-11-25", "")
	const tp = `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`
	for _, c := range []struct{ name, params, want string }{
		{"legacy", `{"name":"meta","_meta":{` + tp + `}}`, "{" + tp + "}"},
		{"legacy without _meta", `{"name":"meta"}`, ""},
		{"2026-07-28", `{` + strings.TrimSuffix(modernMeta(""), "}") + `,` + tp + `},"name":"meta"}`, tp + "}"},
	} {
		out, err := p.call(t, "tools/call", c.params)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var r mcp.CallToolResult
		if err := r.UnmarshalJSON(out); err != nil || len(r.Content) != 1 {
			t.Fatalf("%s: %s %v", c.name, out, err)
		}
		id, meta, _ := strings.Cut(r.Content[0].Value.(*mcp.TextContent).Text, " ")
		if id == "" || id == "null" {
			t.Errorf("%s: RequestID %q", c.name, id)
		}
		if !strings.HasSuffix(meta, c.want) || (c.want == "") != (meta == "") {
			t.Errorf("%s: RequestMeta %q, want one ending %q", c.name, meta, c.want)
		}
	}
	if RequestMeta(context.Background()) != nil || !RequestID(context.Background()).IsZero() {
		t.Error("a ctx that serves no request has a _meta or an id")
	}
}
