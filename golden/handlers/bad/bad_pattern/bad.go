package badpattern

import "context"

type In struct {
	S string `json:"s" mcp:"pattern='(unclosed'"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
