package inputbeforetasknotask

import "context"

//mcp:tool readonly input-before-task
func T(ctx context.Context) (string, error) { return "", nil }
