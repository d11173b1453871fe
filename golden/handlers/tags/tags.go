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
	Note    *string  `json:"note" mcp:"nullable,maxLength=5"`
	Shade   string   `json:"shade,omitempty" mcp:"nullable,enum=dark|light"`
	Sizes   []int    `json:"sizes,omitzero" mcp:"nullable,maxItems=2"`
	Where   *Point   `json:"where,omitempty" mcp:"nullable"`
	Chain   *Link    `json:"chain,omitempty" mcp:"nullable,title='A chain'"`
}

// Point is a plain struct: a nullable one keeps its schema inline.
type Point struct {
	X int `json:"x"`
}

// Link is recursive, so its schema is a $ref: a nullable one is an anyOf.
type Link struct {
	Name string `json:"name"`
	Next *Link  `json:"next,omitempty" mcp:"nullable"`
}

// Check checks its input.
//
//mcp:tool name=check
func Check(ctx context.Context, in Input) (string, error) { return "ok", nil }
