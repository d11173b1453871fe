package promptintfield

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

type Args struct {
	Count int `json:"count"`
}

//mcp:prompt
func P(ctx context.Context, in Args) ([]mcp.PromptMessage, error) { return nil, nil }
