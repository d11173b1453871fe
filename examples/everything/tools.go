package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The texts the tools answer with.
const (
	simpleText          = "This is a simple text response for testing."
	embeddedResourceURI = "test://embedded-resource"
	embeddedText        = "This is an embedded resource content."
	mixedText           = "Multiple content types test:"
	mixedResourceURI    = "test://mixed-content-resource"
	mixedResourceJSON   = `{"test":"data","value":123}`
	errorText           = "This tool intentionally returns an error for testing"
	reconnectionText    = "Reconnection test completed successfully"
)

// logSteps are the messages test_tool_with_logging sends, at info level.
var logSteps = []string{"Tool execution started", "Tool processing data", "Tool execution completed"}

// progressSteps are the progress values test_tool_with_progress reports,
// out of 100.
var progressSteps = []float64{0, 50, 100}

// stepDelay separates the log and progress notifications of a tool.
const stepDelay = 50 * time.Millisecond

// tools/list gives the tools below in the order they are declared, the
// order of the contract.

// Returns one text block.
//
//mcp:tool name=test_simple_text
func simpleTextTool(context.Context) (string, error) {
	return simpleText, nil
}

// Returns a PNG image.
//
//mcp:tool name=test_image_content
func imageTool(context.Context) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}}}}, nil
}

// Returns a WAV recording.
//
//mcp:tool name=test_audio_content
func audioTool(context.Context) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.AudioContent{Data: silenceWAV, MIMEType: "audio/wav"}}}}, nil
}

// embedded is a content block embedding a text resource.
func embedded(uri, mimeType, body string) mcp.ContentBlock {
	return mcp.ContentBlock{Value: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{
		Value: &mcp.TextResourceContents{URI: uri, MIMEType: mimeType, Text: body},
	}}}
}

// Returns an embedded text resource.
//
//mcp:tool name=test_embedded_resource
func embeddedResourceTool(context.Context) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{embedded(embeddedResourceURI, "text/plain", embeddedText)}}, nil
}

// Returns text, an image and an embedded resource.
//
//mcp:tool name=test_multiple_content_types
func mixedContentTool(context.Context) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{
		text(mixedText),
		{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}},
		embedded(mixedResourceURI, "application/json", mixedResourceJSON),
	}}, nil
}

// Sends three info log messages while it runs.
//
//mcp:tool name=test_tool_with_logging
func loggingTool(ctx context.Context) (string, error) {
	for i, msg := range logSteps {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return "", err
			}
		}
		if err := server.Log(ctx, mcp.LoggingLevelInfo, "test_tool_with_logging", msg); err != nil {
			return "", err
		}
	}
	return "Tool with logging executed successfully", nil
}

// Always fails, with an isError result.
//
//mcp:tool name=test_error_handling
func errorTool(context.Context) (string, error) {
	return "", errors.New(errorText)
}

// Reports progress 0, 50 and 100 out of 100 while it runs.
//
//mcp:tool name=test_tool_with_progress
func progressTool(ctx context.Context) (string, error) {
	// server.Progress sends nothing when the client gave no progress
	// token; the tool then only takes its time.
	for i, p := range progressSteps {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return "", err
			}
		}
		if err := server.Progress(ctx, p, 100, ""); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("Tool with progress executed successfully (%d steps)", len(progressSteps)), nil
}

// samplingArgs are the arguments of test_sampling.
type samplingArgs struct {
	// The prompt to send to the LLM
	Prompt string `json:"prompt"`
}

// Asks the client's model to answer a prompt (sampling/createMessage).
//
//mcp:tool name=test_sampling
func samplingTool(ctx context.Context, in samplingArgs) (string, error) {
	r, err := server.CreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages: []mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: in.Prompt}},
		}},
		MaxTokens: 100,
	})
	if err != nil {
		return "", fmt.Errorf("sampling failed: %w", err)
	}
	answer := "(no text)"
	if t, ok := r.Content.Value.(*mcp.TextContent); ok {
		answer = t.Text
	}
	return "LLM response: " + answer, nil
}

// elicit sends a form request and describes the answer.
func elicit(ctx context.Context, prefix string, form *mcp.ElicitRequestFormParams) (string, error) {
	r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: form})
	if err != nil {
		return "", fmt.Errorf("elicitation failed: %w", err)
	}
	content := []byte("{}")
	if r.Content != nil {
		if content, err = json.Marshal(r.Content); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%saction=%s, content=%s", prefix, r.Action, content), nil
}

// elicitationArgs are the arguments of test_elicitation.
type elicitationArgs struct {
	// The message to show the user
	Message string `json:"message"`
}

// Asks the user for a username and an email address (elicitation/create).
//
//mcp:tool name=test_elicitation
func elicitationTool(ctx context.Context, in elicitationArgs) (string, error) {
	return elicit(ctx, "User response: ", &mcp.ElicitRequestFormParams{
		Message: in.Message,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"username": {Value: &mcp.StringSchema{Description: "User's response"}},
				"email":    {Value: &mcp.StringSchema{Description: "User's email address"}},
			},
			Required: []string{"username", "email"},
		},
	})
}

// Elicits a form whose fields all have defaults (SEP-1034).
//
//mcp:tool name=test_elicitation_sep1034_defaults
func defaultsElicitationTool(ctx context.Context) (string, error) {
	return elicit(ctx, "Elicitation completed: ", &mcp.ElicitRequestFormParams{
		Message: "Please review the defaults and accept or change them",
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"name":     {Value: &mcp.StringSchema{Description: "User name", Default: "John Doe"}},
				"age":      {Value: &mcp.NumberSchema{Type: mcp.NumberSchemaTypeInteger, Description: "User age", Default: 30}},
				"score":    {Value: &mcp.NumberSchema{Type: mcp.NumberSchemaTypeNumber, Description: "User score", Default: 95.5}},
				"status":   {Value: &mcp.UntitledSingleSelectEnumSchema{Description: "User status", Enum: []string{"active", "inactive", "pending"}, Default: "active"}},
				"verified": {Value: &mcp.BooleanSchema{Description: "Verification status", Default: true}},
			},
		},
	})
}

// Elicits a form with every kind of enum field (SEP-1330).
//
//mcp:tool name=test_elicitation_sep1330_enums
func enumsElicitationTool(ctx context.Context) (string, error) {
	return elicit(ctx, "Elicitation completed: ", &mcp.ElicitRequestFormParams{
		Message: "Please pick from each kind of list",
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"untitledSingle": {Value: &mcp.UntitledSingleSelectEnumSchema{
					Description: "Pick one (untitled)",
					Enum:        []string{"option1", "option2", "option3"},
				}},
				"titledSingle": {Value: &mcp.TitledSingleSelectEnumSchema{
					Description: "Pick one (titled)",
					OneOf: []mcp.TitledSingleSelectEnumSchemaOneOfItem{
						{Const: "value1", Title: "First Option"},
						{Const: "value2", Title: "Second Option"},
						{Const: "value3", Title: "Third Option"},
					},
				}},
				"legacyEnum": {Value: &mcp.LegacyTitledEnumSchema{
					Description: "Pick one (titled the deprecated way)",
					Enum:        []string{"opt1", "opt2", "opt3"},
					EnumNames:   []string{"Option One", "Option Two", "Option Three"},
				}},
				"untitledMulti": {Value: &mcp.UntitledMultiSelectEnumSchema{
					Description: "Pick any (untitled)",
					Items:       mcp.UntitledMultiSelectEnumSchemaItems{Enum: []string{"option1", "option2", "option3"}},
				}},
				"titledMulti": {Value: &mcp.TitledMultiSelectEnumSchema{
					Description: "Pick any (titled)",
					Items: mcp.TitledMultiSelectEnumSchemaItems{AnyOf: []mcp.TitledMultiSelectEnumSchemaItemsAnyOfItem{
						{Const: "value1", Title: "First Choice"},
						{Const: "value2", Title: "Second Choice"},
						{Const: "value3", Title: "Third Choice"},
					}},
				}},
			},
		},
	})
}

// Tool with JSON Schema 2020-12 features
//
//mcp:tool name=json_schema_2020_12_tool input-schema=schema_2020_12.json
func schema202012Tool(_ context.Context, in json.RawMessage) (string, error) {
	// schema_2020_12.json holds 2020-12 keywords that a server must pass
	// through untouched (SEP-1613, SEP-2106) and that the type mapping
	// cannot express: $defs with $anchor, allOf/anyOf, if/then/else. The
	// runtime has validated in against it; the tool echoes it.
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	return "Received: " + string(in), nil
}

// headerArgs are the arguments of test_custom_header, which its input
// schema file declares.
type headerArgs struct {
	Region string `json:"region"`
	Query  string `json:"query,omitempty"`
}

// Runs a query in a region, which 2026-07-28 HTTP clients mirror into
// the Mcp-Param-Region header (SEP-2243) and the server checks against
// the arguments.
//
//mcp:tool name=test_custom_header input-schema=schema_custom_header.json
func customHeaderTool(_ context.Context, in json.RawMessage) (string, error) {
	var args headerArgs
	if err := json.Unmarshal(in, &args); err != nil {
		return "", err
	}
	return "Ran " + strconv.Quote(args.Query) + " in " + args.Region, nil
}

// Answers after a pause, for clients that reconnect mid-call (SEP-1699).
//
//mcp:tool name=test_reconnection
func reconnectionTool(ctx context.Context) (string, error) {
	// The server-sse-polling scenario would like the server to end the
	// POST's SSE stream before the result and deliver it when the client
	// reconnects with Last-Event-ID (SEP-1699); the suite reports a result
	// on the original stream as INFO, not a failure.
	//
	// TODO(streamable): end the current request's SSE stream here once
	// runtime/streamable lets a handler do so.
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return "", err
	}
	return reconnectionText, nil
}
