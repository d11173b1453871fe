// Package nested is a golden case: nested structs, slices of structs, maps
// and arrays, and a map output.
package nested

import "context"

// Order is a customer's order.
type Order struct {
	// Who ordered.
	Customer Customer `json:"customer"`
	// What they ordered.
	Lines []Line `json:"lines" mcp:"minItems=1,maxItems=50"`
	// Free-form labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Where, as latitude and longitude.
	At [2]float64 `json:"at"`
	// Gift wrapping per line.
	Wrap map[string][]bool `json:"wrap,omitempty"`
}

// Customer names a customer.
type Customer struct {
	Name  string `json:"name" mcp:"minLength=1"`
	Email string `json:"email,omitempty" mcp:"format=email"`
}

// Line is one line of an order.
type Line struct {
	SKU      string `json:"sku"`
	Quantity uint16 `json:"quantity" mcp:"minimum=1"`
}

// Totals are amounts by currency.
type Totals map[string]float64

// Price prices an order.
//
//mcp:tool
func Price(ctx context.Context, in Order) (Totals, error) {
	return Totals{"EUR": float64(len(in.Lines))}, nil
}
