package complexfield

import "context"

type In struct {
	Z complex128 `json:"z"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
