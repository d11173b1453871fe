package duplicateoption

import "context"

//mcp:tool name=a name=b
func T(ctx context.Context) (string, error) { return "", nil }
