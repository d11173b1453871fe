package noerror

import "context"

//mcp:tool
func T(ctx context.Context) string { return "" }
