package formtwice

// Trip says it is a form twice.
//
//mcp:form
//mcp:form
type Trip struct {
	City string `json:"city"`
}
