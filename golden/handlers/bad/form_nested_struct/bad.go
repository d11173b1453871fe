package formnestedstruct

// Address is a struct of its own.
type Address struct {
	Street string `json:"street"`
}

// Signup asks for an address inside a form.
//
//mcp:form
type Signup struct {
	Name    string  `json:"name"`
	Address Address `json:"address"`
}
