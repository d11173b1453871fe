package formmap

// Labels asks for a map.
//
//mcp:form
type Labels struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}
