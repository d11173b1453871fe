package unterminatedtitle

import "context"

//mcp:tool title="Plan a trip
func T(ctx context.Context) (string, error) { return "", nil }
