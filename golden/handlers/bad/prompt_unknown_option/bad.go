package promptunknownoption

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

//mcp:prompt name=p readonly
func P(ctx context.Context) ([]mcp.PromptMessage, error) { return nil, nil }
