// Package special is a golden case: time.Time, []byte, json.RawMessage and
// any, and a *mcp.CallToolResult output.
package special

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Event is something that happened.
type Event struct {
	// When it happened.
	At time.Time `json:"at"`
	// Until when it lasts.
	Until *time.Time `json:"until,omitempty"`
	// Attached bytes.
	Data []byte `json:"data,omitempty"`
	// Anything the caller wants kept as written.
	Extra json.RawMessage `json:"extra,omitempty"`
	// Anything at all.
	Meta any `json:"meta,omitempty"`
	// A list of anything.
	Tags []any `json:"tags,omitempty"`
}

// Echo is what record returns.
type Echo struct {
	At    time.Time       `json:"at"`
	Data  []byte          `json:"data"`
	Extra json.RawMessage `json:"extra,omitempty"`
	Meta  any             `json:"meta,omitempty"`
}

// Record records an event.
//
//mcp:tool openworld
func Record(ctx context.Context, in Event) (Echo, error) {
	return Echo{At: in.At, Data: in.Data, Extra: in.Extra, Meta: in.Meta}, nil
}

// Raw returns a hand-made result.
//
//mcp:tool
func Raw(ctx context.Context, in Event) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: in.At.String()}}}}, nil
}
