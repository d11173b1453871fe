// Package recursive is a golden case: recursive types through $defs and $ref.
package recursive

import "context"

// Tree is a node with children.
type Tree struct {
	Name     string  `json:"name"`
	Children []Tree  `json:"children,omitempty"`
	Parent   *Parent `json:"parent,omitempty"`
}

// Parent points back into a tree.
type Parent struct {
	Node *Tree `json:"node,omitempty"`
}

// Input wraps a tree.
type Input struct {
	Root Tree `json:"root"`
	// Depth to walk.
	Depth int `json:"depth,omitempty" mcp:"minimum=0"`
}

// Count counts nodes.
type Count struct {
	Nodes int `json:"nodes"`
}

// Walk walks a tree.
//
//mcp:tool readonly
func Walk(ctx context.Context, in Input) (Count, error) {
	return Count{Nodes: 1 + len(in.Root.Children)}, nil
}
