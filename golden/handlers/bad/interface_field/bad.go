package interfacefield

import (
	"context"
	"fmt"
)

type In struct {
	S fmt.Stringer `json:"s"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
