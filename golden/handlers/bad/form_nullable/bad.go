package formnullable

// Name asks for a name that may be null.
//
//mcp:form
type Name struct {
	Name *string `json:"name" mcp:"nullable"`
}
