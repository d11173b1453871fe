// Package tags is a golden case: every mcp tag keyword.
package tags

import "context"

// Input exercises the tag keywords.
type Input struct {
	Min     int      `json:"min" mcp:"minimum=-5,maximum=5"`
	Excl    float64  `json:"excl" mcp:"exclusiveMinimum=0,exclusiveMaximum=1.5"`
	Name    string   `json:"name" mcp:"minLength=2,maxLength=8,pattern='^[a-z]+$',title='A name'"`
	Day     string   `json:"day,omitempty" mcp:"format=date"`
	When    string   `json:"when,omitempty" mcp:"format=date-time"`
	Color   string   `json:"color,omitempty" mcp:"enum=red|green|blue\\|ish,default=red"`
	Level   int      `json:"level,omitempty" mcp:"enum=1|2|3"`
	Ratio   float32  `json:"ratio,omitempty" mcp:"default=0.5"`
	On      bool     `json:"on,omitempty" mcp:"default=true"`
	Tags    []string `json:"tags,omitempty" mcp:"minItems=1,maxItems=3,uniqueItems"`
	Old     string   `json:"old,omitempty" mcp:"deprecated"`
	Quote   string   `json:"quote,omitempty" mcp:"pattern='^it''s,[a-z]*$'"`
	Small   int8     `json:"small,omitempty" mcp:"minimum=-1000"`
	Counter uint32   `json:"counter,omitempty"`
}

// Check checks its input.
//
//mcp:tool name=check
func Check(ctx context.Context, in Input) (string, error) { return "ok", nil }
