package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The tools and the prompt of the 2026-07-28 multi round-trip scenarios
// (SEP-2322). Each asks its client as any handler does: a generated
// elicitX function for a //mcp:form (forms.go), server.SampleText and
// server.ListRoots. In a legacy session those send the client a request
// and wait; in 2026-07-28 the engine ends the round with an
// InputRequiredResult and replays the handler when the client retries
// with the answers. server.InputKey names each question as the contract
// wants its inputRequests key.

// rootList names the roots of a roots/list answer.
func rootList(r *mcp.ListRootsResult) string {
	uris := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return strings.Join(uris, ", ")
}

// Asks the user's name, then greets them.
//
//mcp:tool name=test_input_required_result_elicitation
func roundsElicitationTool(ctx context.Context) (string, error) {
	r, _, err := elicitNameAnswer(ctx, "What is your name?", server.InputKey("user_name"))
	if err != nil {
		return "", err
	}
	return "Hello, " + r.Name + "!", nil
}

// Asks the client's model for a capital city.
//
//mcp:tool name=test_input_required_result_sampling
func roundsSamplingTool(ctx context.Context) (string, error) {
	return server.SampleText(ctx, "What is the capital of France?", server.SampleMaxTokens(100), server.InputKey("capital_question"))
}

// Asks the client for its roots.
//
//mcp:tool name=test_input_required_result_list_roots
func roundsRootsTool(ctx context.Context) (string, error) {
	r, err := server.ListRoots(ctx, server.InputKey("client_roots"))
	if err != nil {
		return "", err
	}
	return "The client's roots: " + rootList(r), nil
}

// Asks for a confirmation; its state travels in the sealed requestState.
//
//mcp:tool name=test_input_required_result_request_state
func roundsStateTool(ctx context.Context) (string, error) {
	// The engine seals every requestState and refuses one that does not
	// open; reaching this point with an answer means it was validated.
	if _, _, err := elicitOkAnswer(ctx, "Please confirm", server.InputKey("confirm")); err != nil {
		return "", err
	}
	return "state-ok: the confirmation arrived with a requestState the server validated", nil
}

// Asks three questions of three kinds in one round.
//
//mcp:tool name=test_input_required_result_multiple_inputs
func roundsMultipleTool(ctx context.Context) (string, error) {
	// Each call records its question before the tool looks at any answer,
	// so that all three go out together.
	name, _, err1 := elicitNameAnswer(ctx, "What is your name?", server.InputKey("user_name"))
	greeting, err2 := server.SampleText(ctx, "Generate a greeting", server.SampleMaxTokens(50), server.InputKey("greeting"))
	roots, err3 := server.ListRoots(ctx, server.InputKey("client_roots"))
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %s (roots: %s)", greeting, name.Name, rootList(roots)), nil
}

// Asks two questions, one round each.
//
//mcp:tool name=test_input_required_result_multi_round
func roundsMultiTool(ctx context.Context) (string, error) {
	name, _, err := elicitNameAnswer(ctx, "Step 1: What is your name?", server.InputKey("step1"))
	if err != nil {
		return "", err
	}
	color, _, err := elicitColorAnswer(ctx, "Step 2: What is your favorite color?", server.InputKey("step2"))
	if err != nil {
		return "", err
	}
	return name.Name + " likes " + color.Color, nil
}

// Asks for a confirmation whose requestState a client may tamper with.
//
//mcp:tool name=test_input_required_result_tampered_state
func roundsTamperedTool(ctx context.Context) (string, error) {
	return roundsStateTool(ctx)
}

// Asks only for what the client declared it can answer.
//
//mcp:tool name=test_input_required_result_capabilities
func roundsCapabilitiesTool(ctx context.Context) (string, error) {
	caps := server.ClientCapabilities(ctx)
	var errs []error
	var got []string
	if caps.Elicitation != nil {
		r, _, err := elicitNameAnswer(ctx, "What is your name?", server.InputKey("user_name"))
		if err == nil {
			got = append(got, "name: "+r.Name)
		}
		errs = append(errs, err)
	}
	if caps.Sampling != nil {
		r, err := server.SampleText(ctx, "Say hello", server.SampleMaxTokens(20), server.InputKey("hello"))
		if err == nil {
			got = append(got, "sampled: "+r)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	if len(got) == 0 {
		return "The client declared neither elicitation nor sampling: nothing to ask", nil
	}
	return strings.Join(got, "; "), nil
}

// Samples without checking the client's capabilities: a client that did
// not declare sampling gets MissingRequiredClientCapability (-32021).
//
//mcp:tool name=test_missing_capability
func missingCapabilityTool(ctx context.Context) (string, error) {
	r, err := server.SampleText(ctx, "Say something", server.SampleMaxTokens(20))
	if err != nil {
		return "", err
	}
	return "The model says: " + r, nil
}

// Asks for input, which a 2026-07-28 response carries in its result and
// never as a request of its own on the stream.
//
//mcp:tool name=test_streaming_elicitation
func streamingElicitationTool(ctx context.Context) (string, error) {
	r, _, err := elicitNameAnswer(ctx, "What is your name?")
	if err != nil {
		return "", err
	}
	return "Hello, " + r.Name + "!", nil
}

// Logs three messages: only a client that set a log level hears them.
//
//mcp:tool name=test_logging_tool
func quietLoggingTool(ctx context.Context) (string, error) {
	for _, step := range logSteps {
		if err := server.Log(ctx, mcp.LoggingLevelInfo, "test_logging_tool", step); err != nil {
			return "", err
		}
	}
	return "Logged " + fmt.Sprint(len(logSteps)) + " messages", nil
}

// A prompt that asks the user for its context before it renders.
//
//mcp:prompt name=test_input_required_result_prompt
func roundsPrompt(ctx context.Context) (*mcp.GetPromptResult, error) {
	r, _, err := elicitContextAnswer(ctx, "What context should the prompt use?", server.InputKey("user_context"))
	if err != nil {
		return nil, err
	}
	return userSays(text("Use this context: " + r.Context)), nil
}
