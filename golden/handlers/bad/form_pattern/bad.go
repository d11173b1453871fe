package formpattern

// Code asks for a string with a pattern.
//
//mcp:form
type Code struct {
	Code string `json:"code" mcp:"pattern=^[A-Z]+$"`
}
