package usernameclash

import "context"

// Ping answers.
//
//mcp:tool name=ping
func Ping(ctx context.Context) (string, error) { return "pong", nil }

// Register is the user's own, and the name of the function mcpgen
// generates for the package's handlers.
func Register() {}
