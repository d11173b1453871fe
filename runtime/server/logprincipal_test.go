package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// credentials is a principal of an application's own that carries a
// secret: logs must not show it.
type credentials struct {
	User  string
	Token string
}

// TestLogNamesPrincipalNotSecret checks that a tool's failure is logged
// with who called, as the principal says itself, and never with the
// fields of a principal that does not.
func TestLogNamesPrincipalNotSecret(t *testing.T) {
	var logs bytes.Buffer
	s := New(mcp.Implementation{Name: "log", Version: "1"}, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	addTool(t, s, "boom", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	call := func(ctx context.Context) {
		t.Helper()
		raw, err := modernCall(t, ctx, s, "tools/call", "{}", `"name":"boom"`)
		if err != nil || !strings.Contains(string(raw), `"isError":true`) {
			t.Fatalf("a panicking tool: %s, %v", raw, err)
		}
	}
	call(WithPrincipal(context.Background(), "alice"))
	if !strings.Contains(logs.String(), "principal=alice") {
		t.Errorf("log without the principal:\n%s", logs.String())
	}
	logs.Reset()
	call(WithPrincipal(context.Background(), credentials{User: "bob", Token: "s3cr3t-token"}))
	if strings.Contains(logs.String(), "s3cr3t-token") || strings.Contains(logs.String(), "bob") {
		t.Errorf("the log shows the principal's fields:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "principal=digest:") {
		t.Errorf("log without the principal's digest:\n%s", logs.String())
	}
}
