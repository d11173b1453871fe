package main

import (
	"context"
	"fmt"

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
func (e *everything) triggerToolChange(ctx context.Context) (string, error) {
	return e.toggle(ctx, dynamicTool)
}

// Adds or removes the prompt test_dynamic_prompt, which changes the prompt
// list.
//
//mcp:tool name=test_trigger_prompt_change
func (e *everything) triggerPromptChange(ctx context.Context) (string, error) {
	return e.toggle(ctx, dynamicPrompt)
}

// toggle adds the dynamic entry name when absent and removes it when
// present, and says which. With -redis the entry's state is a counter in
// Redis, and every replica follows it (see shared.toggle): a client
// listing tools through a load balancer sees one list, whichever replica
// answers.
func (e *everything) toggle(ctx context.Context, name string) (string, error) {
	var present bool
	if e.sh != nil {
		var err error
		if present, err = e.sh.toggle(ctx, e, name); err != nil {
			return "", err
		}
	} else {
		e.dynMu.Lock()
		present = !e.dynamic[name]
		e.dynMu.Unlock()
		if err := e.setDynamic(name, present); err != nil {
			return "", err
		}
	}
	if present {
		return "added " + name, nil
	}
	return "removed " + name, nil
}

// setDynamic lists the dynamic entry name, or stops listing it; doing what
// is already done changes nothing, so replicas may each apply a change
// more than once.
func (e *everything) setDynamic(name string, present bool) error {
	e.dynMu.Lock()
	defer e.dynMu.Unlock()
	if e.dynamic[name] == present {
		return nil
	}
	switch {
	case name == dynamicTool && present:
		def := mcp.Tool{Name: dynamicTool, Description: "A tool that test_trigger_tool_change adds and removes."}
		if err := def.InputSchema.UnmarshalJSON([]byte(`{"type":"object"}`)); err != nil {
			return err
		}
		err := e.srv.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{text("I come and go.")}}, nil
		})
		if err != nil {
			return err
		}
	case name == dynamicTool:
		e.srv.RemoveTool(dynamicTool)
	case name == dynamicPrompt && present:
		def := mcp.Prompt{Name: dynamicPrompt, Description: "A prompt that test_trigger_prompt_change adds and removes."}
		err := e.srv.AddPrompt(def, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
			return userSays(text("I come and go.")), nil
		})
		if err != nil {
			return err
		}
	case name == dynamicPrompt:
		e.srv.RemovePrompt(dynamicPrompt)
	default:
		return fmt.Errorf("no dynamic entry %q", name)
	}
	e.dynamic[name] = present
	return nil
}
