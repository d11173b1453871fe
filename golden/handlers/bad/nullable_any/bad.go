package nullableany

import (
	"context"
	"encoding/json"
)

type In struct {
	Extra json.RawMessage `json:"extra,omitempty" mcp:"nullable"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
