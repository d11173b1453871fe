package formbadformat

// Host asks for a host name in a format elicitation lacks.
//
//mcp:form
type Host struct {
	Host string `json:"host" mcp:"format=hostname"`
}
