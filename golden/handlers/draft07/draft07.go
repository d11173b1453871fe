// Package draft07 is a golden case: the package option that makes every
// schema JSON Schema draft-07, with a recursive type (definitions instead
// of $defs), exclusive bounds (numbers, as draft-06 and later write them),
// nullable fields (a type list, and an anyOf around a $ref, whose siblings
// draft-07 ignores) and a tool without input.
package draft07

//mcp:schema draft-07

import "context"

// Node is a tree.
type Node struct {
	// The node's name.
	Name     string  `json:"name" mcp:"minLength=1"`
	Children []*Node `json:"children,omitempty"`
}

// CountInput is a tree and a limit.
type CountInput struct {
	Root  Node    `json:"root"`
	Ratio float64 `json:"ratio,omitempty" mcp:"exclusiveMinimum=0,exclusiveMaximum=1"`
	// A second tree, or null for none.
	Other *Node   `json:"other,omitempty" mcp:"nullable"`
	Label *string `json:"label" mcp:"nullable,minLength=1"`
}

// Count counts nodes.
type Count struct {
	N int `json:"n"`
}

// CountNodes counts the nodes of a tree.
//
//mcp:tool readonly
func CountNodes(ctx context.Context, in CountInput) (Count, error) {
	var walk func(*Node) int
	walk = func(n *Node) int {
		c := 1
		for _, ch := range n.Children {
			c += walk(ch)
		}
		return c
	}
	return Count{N: walk(&in.Root)}, nil
}

// Ping answers.
//
//mcp:tool
func Ping(ctx context.Context) (string, error) { return "pong", nil }
