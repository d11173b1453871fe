package nullablerequired

import "context"

type In struct {
	Name string `json:"name" mcp:"nullable"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
