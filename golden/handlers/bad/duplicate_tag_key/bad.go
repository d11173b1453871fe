package duplicatetagkey

import "context"

type In struct {
	N int `json:"n" mcp:"minimum=1,minimum=2"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
