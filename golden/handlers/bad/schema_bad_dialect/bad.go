package schemabaddialect

//mcp:schema draft-04

import "context"

//mcp:tool
func T(ctx context.Context) (string, error) { return "", nil }
