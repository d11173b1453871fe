package duplicatename

import "context"

//mcp:tool name=same
func A(ctx context.Context) (string, error) { return "", nil }

//mcp:tool name=same
func B(ctx context.Context) (string, error) { return "", nil }
