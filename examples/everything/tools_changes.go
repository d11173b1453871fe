package main

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// The tools that change what the server lists, so that the 2026-07-28
// subscription scenarios see notifications/tools/list_changed and
// notifications/prompts/list_changed arrive on a subscriptions/listen
// stream. Each toggles one extra entry: added when absent, removed when
// present, so that repeated runs leave the lists as they were every
// second time.

// dynamicTool and dynamicPrompt are the names of the toggled entries.
const (
	dynamicTool   = "test_dynamic_tool"
	dynamicPrompt = "test_dynamic_prompt"
)

// Adds or removes the tool test_dynamic_tool, which changes the tool list.
//
//mcp:tool name=test_trigger_tool_change
func (e *everything) triggerToolChange(context.Context) (string, error) {
	if e.srv.RemoveTool(dynamicTool) {
		return "removed " + dynamicTool, nil
	}
	def := mcp.Tool{Name: dynamicTool, Description: "A tool that test_trigger_tool_change adds and removes."}
	if err := def.InputSchema.UnmarshalJSON([]byte(`{"type":"object"}`)); err != nil {
		return "", err
	}
	err := e.srv.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{text("I come and go.")}}, nil
	})
	if err != nil {
		return "", err
	}
	return "added " + dynamicTool, nil
}

// Adds or removes the prompt test_dynamic_prompt, which changes the prompt
// list.
//
//mcp:tool name=test_trigger_prompt_change
func (e *everything) triggerPromptChange(context.Context) (string, error) {
	if e.srv.RemovePrompt(dynamicPrompt) {
		return "removed " + dynamicPrompt, nil
	}
	def := mcp.Prompt{Name: dynamicPrompt, Description: "A prompt that test_trigger_prompt_change adds and removes."}
	err := e.srv.AddPrompt(def, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return userSays(text("I come and go.")), nil
	})
	if err != nil {
		return "", err
	}
	return "added " + dynamicPrompt, nil
}
