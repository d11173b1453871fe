package formnameclash

import "context"

// Trip is a form whose asking function the package already declares.
//
//mcp:form
type Trip struct {
	City string `json:"city"`
}

// ElicitTrip is the package's own.
func ElicitTrip(ctx context.Context) {}
