package templateextrafield

import "context"

type V struct {
	City string `json:"city"`
	Day  string `json:"day"`
}

//mcp:resource uri-template=weather://{city}
func R(ctx context.Context, v V) (string, error) { return "", nil }
