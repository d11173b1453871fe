package formonfunc

import "context"

// Ask is a function, not a type.
//
//mcp:form
func Ask(ctx context.Context) (string, error) { return "", nil }
