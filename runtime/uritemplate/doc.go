// Package uritemplate parses RFC 6570 URI templates, expands them with
// variables, and matches URIs back against them. MCP servers use it to
// route a resources/read request to the resource template it belongs to and
// to pull the template's variables out of the requested URI.
//
// [Parse] accepts the full syntax of levels 1 to 4: all eight operators,
// variable lists, prefix modifiers ({var:3}) and explode modifiers
// ({var*}). Malformed templates are reported as a [*SyntaxError] carrying
// the byte offset of the fault.
//
// [Template.Expand] implements expansion exactly as RFC 6570 section 3
// describes it, for string, []string and map[string]string values. Maps
// have no order in Go, so their pairs are expanded sorted by key; the RFC's
// examples, which keep insertion order, differ from this only in that.
//
// [Template.Match] is the inverse of Expand for the cases that can be
// inverted without guessing; its documentation lists them and says how
// ambiguity is resolved. A [Template] never changes after Parse, so all of
// its methods are safe for concurrent use.
package uritemplate
