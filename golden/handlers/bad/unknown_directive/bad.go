package unknowndirective

import "context"

//mcp:tol
func T(ctx context.Context) (string, error) { return "", nil }
