// Package tasks is a golden case: tools that may or must run as MCP
// tasks (task=optional, task=required), one of them asking for input
// before it becomes a task (input-before-task), beside one that answers
// at once; two of them rate-limited (rate=, burst=).
package tasks

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// ExportInput names what to export.
type ExportInput struct {
	// The table to export.
	Table string `json:"table" mcp:"minLength=1"`
}

// ExportOutput says where the export went.
type ExportOutput struct {
	URL string `json:"url"`
}

// Export writes a table out, which takes long enough that it always runs
// as a task, and costs enough that each caller may start 30 a minute, 5
// at once.
//
//mcp:tool task=required idempotent rate=30/m burst=5
func Export(ctx context.Context, in ExportInput) (ExportOutput, error) {
	return ExportOutput{URL: "file:///exports/" + in.Table}, nil
}

// SearchInput is a query.
type SearchInput struct {
	Query string `json:"query"`
}

// Search searches, as a task when the client can take one.
//
//mcp:tool name=search title="Search" readonly task=optional rate=10/s
func Search(ctx context.Context, in SearchInput) (string, error) {
	return "no results for " + in.Query, nil
}

// PurgeInput names what to purge.
type PurgeInput struct {
	// The path to purge.
	Path string `json:"path" mcp:"minLength=1"`
}

// Purge asks the user to confirm, in rounds of the call itself, and only
// then becomes a task that does the work.
//
//mcp:tool task=optional input-before-task destructive
func Purge(ctx context.Context, in PurgeInput) (string, error) {
	r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "Purge " + in.Path + "?"}})
	if err != nil {
		return "", err
	}
	if r.Action != "accept" {
		return "kept " + in.Path, nil
	}
	if err := server.StartTask(ctx); err != nil && !errors.Is(err, server.ErrNotTask) {
		return "", err
	}
	return "purged " + in.Path, nil
}

// Ping answers at once.
//
//mcp:tool
func Ping(ctx context.Context) (string, error) { return "pong", nil }
