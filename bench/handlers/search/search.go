// Package search is the tool the handler benchmarks decode: an input
// struct of the size and shape tools usually take (strings, numbers, an
// enum, a slice, a nested struct, optional fields), served by mcpgen from
// the committed mcpgen_gen.go.
package search

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import "context"

// Order is how results are sorted.
type Order string

// The orders.
const (
	OrderRelevance Order = "relevance"
	OrderNewest    Order = "newest"
	OrderOldest    Order = "oldest"
)

// Range bounds a date range, as RFC 3339 dates.
type Range struct {
	From string `json:"from"`
	To   string `json:"to,omitempty"`
}

// Input is what search takes.
type Input struct {
	// What to look for.
	Query string `json:"query" mcp:"minLength=1,maxLength=200"`
	// How many results to return.
	Limit int `json:"limit" mcp:"minimum=1,maximum=100"`
	// Results to skip.
	Offset *int `json:"offset,omitempty" mcp:"minimum=0"`
	// How to sort.
	Order Order `json:"order,omitempty"`
	// Only results with all of these tags.
	Tags []string `json:"tags,omitempty" mcp:"maxItems=10"`
	// Only results in this range.
	Within *Range `json:"within,omitempty"`
	// Include archived results.
	Archived bool `json:"archived,omitempty"`
	// Minimum score between 0 and 1.
	MinScore float64 `json:"minScore,omitempty" mcp:"minimum=0,maximum=1"`
}

// Result is what search returns.
type Result struct {
	Hits []string `json:"hits"`
}

// Search looks things up.
//
//mcp:tool readonly
func Search(ctx context.Context, in Input) (Result, error) {
	return Result{Hits: []string{in.Query}}, nil
}
