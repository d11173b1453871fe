package taskbadvalue

import "context"

//mcp:tool task=maybe
func T(ctx context.Context) (string, error) { return "", nil }
