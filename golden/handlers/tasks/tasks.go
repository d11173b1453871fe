// Package tasks is a golden case: tools that may or must run as MCP
// tasks (task=optional, task=required) beside one that answers at once.
package tasks

import "context"

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
// as a task.
//
//mcp:tool task=required idempotent
func Export(ctx context.Context, in ExportInput) (ExportOutput, error) {
	return ExportOutput{URL: "file:///exports/" + in.Table}, nil
}

// SearchInput is a query.
type SearchInput struct {
	Query string `json:"query"`
}

// Search searches, as a task when the client can take one.
//
//mcp:tool name=search title="Search" readonly task=optional
func Search(ctx context.Context, in SearchInput) (string, error) {
	return "no results for " + in.Query, nil
}

// Ping answers at once.
//
//mcp:tool
func Ping(ctx context.Context) (string, error) { return "pong", nil }
