package tagwrongkind

import "context"

type In struct {
	N int `json:"n" mcp:"minLength=1"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
