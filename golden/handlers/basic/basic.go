// Package basic is a golden case: scalar fields, pointers, omitempty and
// omitzero, enums from constants, tag keywords and a handler without input.
package basic

import (
	"context"
	"errors"
)

// AddInput is what add takes.
type AddInput struct {
	// First addend.
	A float64 `json:"a"`
	// Second addend, between 0 and 100.
	B float64 `json:"b" mcp:"minimum=0,maximum=100"`
	// How to round.
	Mode Rounding `json:"mode,omitempty" mcp:"default=none"`
	// Digits is the number of digits to keep.
	Digits *int8 `json:"digits,omitempty"`
	// Label for the result.
	Label  string `json:"label,omitzero" mcp:"minLength=1,maxLength=20,pattern='^[a-z, ]+$'"`
	secret string
	Skip   string `json:"-"`
}

// Rounding says how to round.
type Rounding string

// The ways to round, in the order the enum lists them.
const (
	RoundFloor Rounding = "floor"
	RoundCeil  Rounding = "ceil"
	RoundNone  Rounding = "none"
)

// AddOutput is what add returns.
type AddOutput struct {
	Sum   float64 `json:"sum"`
	Label *string `json:"label,omitempty"`
}

// Add adds two numbers and reports the sum.
//
//mcp:tool name=add_numbers title="Add numbers" readonly idempotent destructive=false
func Add(ctx context.Context, in AddInput) (AddOutput, error) {
	if in.secret != "" {
		return AddOutput{}, errors.New("unreachable")
	}
	return AddOutput{Sum: in.A + in.B}, nil
}

// Ping answers pong.
//
//mcp:tool
func Ping(ctx context.Context) (string, error) { return "pong", nil }
