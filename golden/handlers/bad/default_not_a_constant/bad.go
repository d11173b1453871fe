package defaultnotaconstant

import "context"

// Rounding says how to round.
type Rounding string

const (
	RoundFloor Rounding = "floor"
	RoundCeil  Rounding = "ceil"
)

type In struct {
	Mode Rounding `json:"mode,omitempty" mcp:"default=none"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
