// Package embedded is a golden case: embedded structs flattened as
// encoding/json flattens them, with shadowing by depth and by tag.
package embedded

import "context"

// Base holds fields shared by requests.
type Base struct {
	// Request id.
	ID string `json:"id"`
	// Shadowed by Request.Note, which is shallower.
	Note string `json:"note"`
}

// Paging says which page to read.
type Paging struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty" mcp:"minimum=1,maximum=100"`
}

// Named is embedded under a name, so it is not flattened.
type Named struct {
	X int `json:"x"`
}

// Request embeds Base and Paging.
type Request struct {
	Base
	Paging
	Named `json:"named"`
	// A note, hiding Base.Note.
	Note string `json:"note,omitempty"`
}

// Result is what list returns.
type Result struct {
	Base
	Items []string `json:"items"`
}

// List lists things.
//
//mcp:tool
func List(ctx context.Context, in Request) (Result, error) {
	return Result{Base: in.Base}, nil
}
