package scopesseparatedbyspaces

import "context"

// Export needs two scopes, written as an OAuth scope parameter instead of
// a directive's list.
//
//mcp:tool scopes="files:read files:write"
func Export(ctx context.Context) (string, error) { return "", nil }
