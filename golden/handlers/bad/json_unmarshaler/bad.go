package jsonunmarshaler

import (
	"context"
	"encoding/json"
)

// Color reads itself from JSON of its own choosing.
type Color struct{ R, G, B uint8 }

func (c *Color) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &[]uint8{c.R}) }

func (c Color) MarshalJSON() ([]byte, error) { return json.Marshal([]uint8{c.R, c.G, c.B}) }

type In struct {
	Colors []*Color `json:"colors"`
}

//mcp:tool
func T(ctx context.Context, in In) (string, error) { return "", nil }
