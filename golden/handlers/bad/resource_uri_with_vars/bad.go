package resourceuriwithvars

import "context"

type V struct {
	City string `json:"city"`
}

//mcp:resource uri=weather://here
func R(ctx context.Context, v V) (string, error) { return "", nil }
