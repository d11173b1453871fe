package emptydescription

import "context"

// T does nothing.
//
//mcp:tool description=""
func T(ctx context.Context) (string, error) { return "", nil }
