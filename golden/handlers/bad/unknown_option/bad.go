package unknownoption

import "context"

//mcp:tool name=t readonyl
func T(ctx context.Context) (string, error) { return "", nil }
