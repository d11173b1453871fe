package funcfield

import "context"

type In struct {
	F func() `json:"f"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
