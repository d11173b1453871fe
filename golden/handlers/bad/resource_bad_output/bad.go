package resourcebadoutput

import "context"

//mcp:resource uri=mem://n
func R(ctx context.Context) (int, error) { return 0, nil }
