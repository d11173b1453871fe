package baddefault

import "context"

type In struct {
	N int `json:"n,omitempty" mcp:"default=many"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
