package boundsleavenothing

import "context"

type In struct {
	Ratio *float64 `json:"ratio" mcp:"exclusiveMinimum=1,maximum=1"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
