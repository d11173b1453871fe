package main

// The forms the tools of the multi round-trip and task scenarios ask. Each
// //mcp:form struct gets, in mcpgen_gen.go, its requestedSchema and an
// elicitX function that asks it and returns the answer as the struct, with
// the user's action. The fields carry no doc comments: the scenarios'
// forms are plain single properties.

// nameAnswer asks for a name.
//
//mcp:form
type nameAnswer struct {
	Name string `json:"name"`
}

// colorAnswer asks for a favourite color.
//
//mcp:form
type colorAnswer struct {
	Color string `json:"color"`
}

// contextAnswer asks for the context a prompt should use.
//
//mcp:form
type contextAnswer struct {
	Context string `json:"context"`
}

// okAnswer asks for a confirmation.
//
//mcp:form
type okAnswer struct {
	OK bool `json:"ok"`
}

// confirmAnswer asks whether to go ahead.
//
//mcp:form
type confirmAnswer struct {
	Confirm bool `json:"confirm"`
}
