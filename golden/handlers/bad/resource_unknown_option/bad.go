package resourceunknownoption

import "context"

//mcp:resource uri=mem://r mimetype=text/plain
func R(ctx context.Context) (string, error) { return "", nil }
