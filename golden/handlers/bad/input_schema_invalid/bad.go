package inputschemainvalid

import (
	"context"
	"encoding/json"
)

//mcp:tool input-schema=in.json
func T(ctx context.Context, in json.RawMessage) (string, error) { return "", nil }
