package texttyperule

import (
	"context"
	"net/netip"
)

type In struct {
	Addr netip.Addr `json:"addr" mcp:"pattern='^10\\.'"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
