// Package scopes is a golden case: OAuth scopes required of a tool (beside
// a rate limit, and on a method), a prompt, a resource and a resource
// template, with a tool that requires none beside them.
package scopes

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// PathInput names a file.
type PathInput struct {
	Path string `json:"path" mcp:"minLength=1"`
}

// ReadFile reads a file.
//
//mcp:tool readonly scopes=files:read
func ReadFile(ctx context.Context, in PathInput) (string, error) {
	return "contents of " + in.Path, nil
}

// WriteFile writes a file; the scopes keep the order written.
//
//mcp:tool rate=10/s scopes=files:write|files:read
func WriteFile(ctx context.Context, in PathInput) (string, error) {
	return "wrote " + in.Path, nil
}

// StatOutput says whether a file exists.
type StatOutput struct {
	Exists bool `json:"exists"`
}

// Stat tells whether a file exists, to everyone.
//
//mcp:tool readonly
func Stat(ctx context.Context, in PathInput) (StatOutput, error) {
	return StatOutput{Exists: in.Path != ""}, nil
}

// Admin holds the server's administrative handlers.
type Admin struct{ Root string }

// Purge deletes every file.
//
//mcp:tool destructive scopes=https://mcp.example/scopes/admin
func (a *Admin) Purge(ctx context.Context) (string, error) {
	return "purged " + a.Root, nil
}

// ReviewArgs are the arguments of review.
type ReviewArgs struct {
	Path string `json:"path"`
}

// Review asks the model to review a file.
//
//mcp:prompt name=review scopes=files:read|prompts:review
func Review(ctx context.Context, in ReviewArgs) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: "Review " + in.Path}}}}, nil
}

// Secrets is the server's secret configuration.
//
//mcp:resource uri=config://secrets mime=application/json scopes=config:read
func Secrets(ctx context.Context) (string, error) {
	return "{}", nil
}

// FileVars are the variables of file.
type FileVars struct {
	Path string `json:"path"`
}

// File is a file of the served tree.
//
//mcp:resource uri-template=file:///{+path} name=file scopes=files:read
func (a *Admin) File(ctx context.Context, v FileVars) ([]byte, error) {
	return []byte(a.Root + "/" + v.Path), nil
}
