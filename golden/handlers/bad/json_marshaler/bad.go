package jsonmarshaler

import "context"

// Money writes itself as JSON of its own choosing.
type Money struct{ Cents int64 }

func (m Money) MarshalJSON() ([]byte, error) { return []byte(`{"cents":1}`), nil }

type In struct {
	Price Money `json:"price"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
