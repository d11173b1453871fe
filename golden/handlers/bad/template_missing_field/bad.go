package templatemissingfield

import "context"

type V struct {
	City string `json:"city"`
}

//mcp:resource uri-template=weather://{city}/{day}
func R(ctx context.Context, v V) (string, error) { return "", nil }
