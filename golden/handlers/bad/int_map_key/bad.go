package intmapkey

import "context"

type In struct {
	M map[int]string `json:"m"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
