package anonymousstruct

import "context"

type In struct {
	P struct{ X int } `json:"p"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
