package formoption

// Trip takes an option it does not have.
//
//mcp:form title="A trip"
type Trip struct {
	City string `json:"city"`
}
