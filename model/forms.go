package model

// Form is one //mcp:form struct type: an elicitation form whose fields are
// the struct's properties, each a string, number, integer, boolean or
// string enum (elicitation allows no nesting). gen writes its
// requestedSchema, the decoder of its answer and the function that asks
// it.
type Form struct {
	Pos    SrcPos
	GoName string // the struct type's name
	Value  *Value // ValStruct
}
