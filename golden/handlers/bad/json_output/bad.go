package jsonoutput

import "context"

// Opaque marshals itself as JSON, and is an output.
type Opaque int

func (o Opaque) MarshalJSON() ([]byte, error) { return []byte("1"), nil }

type Out struct {
	Value *Opaque `json:"value,omitempty"`
}

//mcp:tool
func T(ctx context.Context) (Out, error) { return Out{}, nil }
