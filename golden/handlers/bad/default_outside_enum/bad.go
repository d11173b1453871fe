package defaultoutsideenum

import "context"

type In struct {
	Sort string `json:"sort,omitempty" mcp:"enum=asc|desc,default=newest"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
