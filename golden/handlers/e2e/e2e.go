// Package e2e is a server built from generated code, for the end-to-end
// test: its mcpgen_gen.go is committed and kept up to date by
// go test ./gen (TestHandlersE2E).
package e2e

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import (
	"context"
	"errors"
	"strings"
)

// AddInput is two numbers.
type AddInput struct {
	// First addend.
	A int `json:"a"`
	// Second addend.
	B int `json:"b" mcp:"minimum=0,maximum=100"`
	// Words to echo back.
	Words []string `json:"words,omitempty" mcp:"maxItems=3"`
}

// AddOutput is a sum.
type AddOutput struct {
	Sum   int      `json:"sum"`
	Words []string `json:"words"`
	Note  *string  `json:"note,omitempty"`
}

// Add adds two numbers.
//
//mcp:tool readonly
func Add(ctx context.Context, in AddInput) (AddOutput, error) {
	return AddOutput{Sum: in.A + in.B}, nil
}

// GreetInput names someone.
type GreetInput struct {
	Name string `json:"name" mcp:"minLength=1"`
}

// Greeter greets.
type Greeter struct{ Greeting string }

// Greet greets someone.
//
//mcp:tool title="Say hello"
func (g *Greeter) Greet(ctx context.Context, in GreetInput) (string, error) {
	if strings.EqualFold(in.Name, "nobody") {
		return "", errors.New("nobody is not there")
	}
	return g.Greeting + ", " + in.Name, nil
}
