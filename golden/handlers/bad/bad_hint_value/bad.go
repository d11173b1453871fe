package badhintvalue

import "context"

//mcp:tool destructive=maybe
func T(ctx context.Context) (string, error) { return "", nil }
