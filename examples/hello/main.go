// Command hello is a small MCP server on mcpgen's server engine, serving
// one client over stdin and stdout:
//
//	go run ./examples/hello
//
// It shows the pieces a server is made of: a tool that answers with text
// (echo), a tool whose structuredContent follows an outputSchema (add), a
// prompt with a required argument (greet) and a resource with a fixed URI
// (hello://world). Schemas are plain JSON Schema; the engine checks
// arguments against the input schema before a handler runs, and
// structuredContent against the output schema before it is sent.
//
// Stdout carries the protocol alone, so the server logs to stderr.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s, err := newServer(log)
	if err == nil {
		log.Info("serving on stdio")
		err = s.ServeStdio(ctx)
	}
	if err != nil {
		log.Error("hello", "error", err)
		os.Exit(1)
	}
}

// newServer registers the tools, the prompt and the resource.
func newServer(log *slog.Logger) (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "mcpgen-hello", Version: "1.0.0"}, &server.Options{Logger: log})

	echo := mcp.Tool{
		Name:        "echo",
		Description: "Echoes the text back.",
		InputSchema: mcp.ToolInputSchema{
			Properties: map[string]json.RawMessage{"text": json.RawMessage(`{"type":"string"}`)},
			Required:   []string{"text"},
		},
	}
	if err := s.AddTool(echo, echoText); err != nil {
		return nil, err
	}

	add := mcp.Tool{
		Name:        "add",
		Description: "Adds two numbers.",
		InputSchema: mcp.ToolInputSchema{
			Properties: map[string]json.RawMessage{
				"a": json.RawMessage(`{"type":"number"}`),
				"b": json.RawMessage(`{"type":"number"}`),
			},
			Required: []string{"a", "b"},
		},
		OutputSchema: &mcp.ToolOutputSchema{
			Type:       "object",
			Properties: map[string]json.RawMessage{"sum": json.RawMessage(`{"type":"number"}`)},
			Required:   []string{"sum"},
		},
	}
	if err := s.AddTool(add, addNumbers); err != nil {
		return nil, err
	}

	greet := mcp.Prompt{
		Name:        "greet",
		Description: "Asks the model to greet someone.",
		Arguments:   []mcp.PromptArgument{{Name: "name", Description: "Who to greet.", Required: true}},
	}
	if err := s.AddPrompt(greet, greetPrompt); err != nil {
		return nil, err
	}

	world := mcp.Resource{URI: "hello://world", Name: "world", MIMEType: "text/plain"}
	if err := s.AddResource(world, readWorld); err != nil {
		return nil, err
	}
	return s, nil
}

// echoText answers echo. The input schema has been checked, so text is there.
func echoText(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(p.Arguments, &in); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: in.Text}}}}, nil
}

// addNumbers answers add, both as text for the model and as
// structuredContent for programs.
func addNumbers(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var in struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	if err := json.Unmarshal(p.Arguments, &in); err != nil {
		return nil, err
	}
	sum := in.A + in.B
	structured, err := json.Marshal(struct {
		Sum float64 `json:"sum"`
	}{sum})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.ContentBlock{{Value: &mcp.TextContent{Text: strconv.FormatFloat(sum, 'g', -1, 64)}}},
		StructuredContent: structured,
	}, nil
}

// greetPrompt renders greet; the engine has checked that name was given.
func greetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	text := fmt.Sprintf("Say hello to %s.", p.Arguments["name"])
	return &mcp.GetPromptResult{
		Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: text}}}},
	}, nil
}

// readWorld reads hello://world.
func readWorld(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{
		Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, MIMEType: "text/plain", Text: "Hello, world!"}}},
	}, nil
}
