package resourcebadtemplate

import "context"

type V struct {
	ID string `json:"id"`
}

//mcp:resource uri-template=mem://{id
func R(ctx context.Context, v V) (string, error) { return "", nil }
