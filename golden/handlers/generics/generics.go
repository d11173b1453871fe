// Package generics is a golden case: instantiations of generic types.
package generics

import "context"

// Page is one page of items.
type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// Pair holds two values.
type Pair[K comparable, V any] struct {
	Key   K `json:"key"`
	Value V `json:"value"`
}

// Item is a thing.
type Item struct {
	ID int `json:"id"`
}

// Query asks for a page.
type Query struct {
	Filter Pair[string, int] `json:"filter"`
	Seen   Page[int]         `json:"seen"`
}

// Fetch fetches a page.
//
//mcp:tool
func Fetch(ctx context.Context, in Query) (Page[Item], error) {
	return Page[Item]{}, nil
}
