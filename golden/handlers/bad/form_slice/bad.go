package formslice

// Tags asks for a list.
//
//mcp:form
type Tags struct {
	Tags []string `json:"tags"`
}
