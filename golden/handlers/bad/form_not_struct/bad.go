package formnotstruct

// Name is a string type.
//
//mcp:form
type Name string
