package enumbeyondconstants

import "context"

// Priority orders issues.
type Priority int

const (
	Low Priority = iota + 1
	Medium
	High
)

type In struct {
	Priority Priority `json:"priority" mcp:"enum=2|3|4"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
