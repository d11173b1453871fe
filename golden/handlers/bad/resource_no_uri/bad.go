package resourcenouri

import "context"

//mcp:resource name=r
func R(ctx context.Context) (string, error) { return "", nil }
