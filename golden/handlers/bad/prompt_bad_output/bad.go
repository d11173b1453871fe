package promptbadoutput

import "context"

//mcp:prompt
func P(ctx context.Context) (string, error) { return "", nil }
