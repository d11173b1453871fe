package directiveontype

// T is not a function.
//
//mcp:tool
type T struct{}
