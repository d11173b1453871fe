package defaultabovemaximum

import "context"

type In struct {
	Limit int `json:"limit,omitempty" mcp:"minimum=1,maximum=100,default=500"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
