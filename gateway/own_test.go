package gateway

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// TestResultsAreTheGateways: what a 2026-07-28 upstream answers reaches a
// legacy client without the fields of 2026-07-28, and a 2026-07-28 client
// with the gateway's identity, not the upstream's.
func TestResultsAreTheGateways(t *testing.T) {
	g := startConfig(t, parse(t, configYAML(serverYAML("default", "", upstreamYAML(t, "a", nil, "")))), nil)
	if s, _ := g.virtuals["default"].upstreams()[0].session(); s.Era() != mcp.EraModern {
		t.Fatalf("the upstream speaks %s", s.ProtocolVersion())
	}
	url := serve(t, g) + "/mcp"
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		s := connectAt(t, url, &client.Options{Era: era})
		r, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "a__echo"})
		if err != nil {
			t.Fatal(err)
		}
		if firstText(r) != "a:echo" {
			t.Fatalf("%v: the upstream's answer %q did not come through", era, firstText(r))
		}
		var who *mcp.Implementation
		if r.Meta != nil {
			who = r.Meta.ServerInfo
		}
		switch era {
		case mcp.EraLegacy:
			if r.ResultType != "" || who != nil {
				t.Errorf("legacy client: resultType %q, serverInfo %v", r.ResultType, who)
			}
		case mcp.EraModern:
			if r.ResultType != "complete" || who == nil || who.Name != "mcpgen-gateway/default" {
				t.Errorf("2026-07-28 client: resultType %q, serverInfo %v", r.ResultType, who)
			}
		}
	}
}

// TestRootsOutsideCalls: an upstream that asks for roots while no call is
// in flight (some ask as soon as they start) gets an empty list: the
// gateway has none of its own, and no client to ask.
func TestRootsOutsideCalls(t *testing.T) {
	u := &upstream{cfg: &UpstreamConfig{Name: "up"}}
	roots, err := u.clientOptions(func() {}).Roots(context.Background())
	if err != nil || roots == nil || len(roots) != 0 {
		t.Fatalf("roots %v, %v; want an empty list", roots, err)
	}
}
