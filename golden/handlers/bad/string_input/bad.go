package stringinput

import "context"

//mcp:tool
func T(ctx context.Context, in string) (string, error) { return in, nil }
