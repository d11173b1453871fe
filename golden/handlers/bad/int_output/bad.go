package intoutput

import "context"

//mcp:tool
func T(ctx context.Context) (int, error) { return 0, nil }
