package halftextform

import "context"

// Level can be written as text but not read from it.
type Level int

func (l Level) MarshalText() ([]byte, error) { return []byte("info"), nil }

type In struct {
	Level Level `json:"level"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
