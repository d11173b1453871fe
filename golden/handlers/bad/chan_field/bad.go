package chanfield

import "context"

type In struct {
	C chan int `json:"c"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
