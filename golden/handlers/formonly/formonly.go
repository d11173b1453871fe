// Package formonly declares a form and no handlers: its generated file
// holds the form alone.
package formonly

// Feedback asks for a rating and a comment.
//
//mcp:form
type Feedback struct {
	// From 1 to 5.
	Rating int `json:"rating" mcp:"minimum=1,maximum=5"`
	// Anything else.
	Comment *string `json:"comment,omitempty" mcp:"maxLength=500"`
}
