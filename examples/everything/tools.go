package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// noArgs is the input schema of a tool without arguments.
var noArgs = mcp.ToolInputSchema{}

// stringArg is the input schema of a tool whose one argument is a
// required string.
func stringArg(name, description string) mcp.ToolInputSchema {
	prop, _ := json.Marshal(map[string]string{"type": "string", "description": description})
	return mcp.ToolInputSchema{Properties: map[string]json.RawMessage{name: prop}, Required: []string{name}}
}

func (e *everything) addTools() error {
	tools := []struct {
		def mcp.Tool
		h   server.ToolHandler
	}{
		{mcp.Tool{Name: "test_simple_text", Description: "Returns one text block.", InputSchema: noArgs}, simpleTextTool},
		{mcp.Tool{Name: "test_image_content", Description: "Returns a PNG image.", InputSchema: noArgs}, imageTool},
		{mcp.Tool{Name: "test_audio_content", Description: "Returns a WAV recording.", InputSchema: noArgs}, audioTool},
		{mcp.Tool{Name: "test_embedded_resource", Description: "Returns an embedded text resource.", InputSchema: noArgs}, embeddedResourceTool},
		{mcp.Tool{Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource.", InputSchema: noArgs}, mixedContentTool},
		{mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages while it runs.", InputSchema: noArgs}, loggingTool},
		{mcp.Tool{Name: "test_error_handling", Description: "Always fails, with an isError result.", InputSchema: noArgs}, errorTool},
		{mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 out of 100 while it runs.", InputSchema: noArgs}, progressTool},
		{mcp.Tool{
			Name:        "test_sampling",
			Description: "Asks the client's model to answer a prompt (sampling/createMessage).",
			InputSchema: stringArg("prompt", "The prompt to send to the LLM"),
		}, samplingTool},
		{mcp.Tool{
			Name:        "test_elicitation",
			Description: "Asks the user for a username and an email address (elicitation/create).",
			InputSchema: stringArg("message", "The message to show the user"),
		}, elicitationTool},
		{mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits a form whose fields all have defaults (SEP-1034).", InputSchema: noArgs}, defaultsElicitationTool},
		{mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits a form with every kind of enum field (SEP-1330).", InputSchema: noArgs}, enumsElicitationTool},
		{mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features", InputSchema: schema202012}, schema202012Tool},
		{mcp.Tool{Name: "test_reconnection", Description: "Answers after a pause, for clients that reconnect mid-call (SEP-1699).", InputSchema: noArgs}, reconnectionTool},
	}
	for _, t := range tools {
		if err := e.srv.AddTool(t.def, t.h); err != nil {
			return err
		}
	}
	return nil
}

func simpleTextTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return textResult(simpleText), nil
}

func imageTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}}}}, nil
}

func audioTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.AudioContent{Data: silenceWAV, MIMEType: "audio/wav"}}}}, nil
}

// embedded is a content block embedding a text resource.
func embedded(uri, mimeType, body string) mcp.ContentBlock {
	return mcp.ContentBlock{Value: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{
		Value: &mcp.TextResourceContents{URI: uri, MIMEType: mimeType, Text: body},
	}}}
}

func embeddedResourceTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{embedded(embeddedResourceURI, "text/plain", embeddedText)}}, nil
}

func mixedContentTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{
		text(mixedText),
		{Value: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}},
		embedded(mixedResourceURI, "application/json", mixedResourceJSON),
	}}, nil
}

func loggingTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	for i, msg := range logSteps {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return nil, err
			}
		}
		if err := server.Log(ctx, mcp.LoggingLevelInfo, "test_tool_with_logging", msg); err != nil {
			return nil, err
		}
	}
	return textResult("Tool with logging executed successfully"), nil
}

func errorTool(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, errors.New(errorText)
}

// progressTool reports its steps when the client gave a progress token;
// server.Progress does nothing otherwise, so it then only takes its time.
func progressTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	for i, p := range progressSteps {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return nil, err
			}
		}
		if err := server.Progress(ctx, p, 100, ""); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("Tool with progress executed successfully (%d steps)", len(progressSteps))), nil
}

func samplingTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(p.Arguments, &in); err != nil {
		return nil, err
	}
	r, err := server.CreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages: []mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: in.Prompt}},
		}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling failed: %w", err)
	}
	answer := "(no text)"
	if t, ok := r.Content.Value.(*mcp.TextContent); ok {
		answer = t.Text
	}
	return textResult("LLM response: " + answer), nil
}

// elicit sends a form request and describes the answer.
func elicit(ctx context.Context, prefix string, form *mcp.ElicitRequestFormParams) (*mcp.CallToolResult, error) {
	r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: form})
	if err != nil {
		return nil, fmt.Errorf("elicitation failed: %w", err)
	}
	content := []byte("{}")
	if r.Content != nil {
		if content, err = json.Marshal(r.Content); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("%saction=%s, content=%s", prefix, r.Action, content)), nil
}

func elicitationTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(p.Arguments, &in); err != nil {
		return nil, err
	}
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

func defaultsElicitationTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
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

func enumsElicitationTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
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

// schema202012 is the input schema of json_schema_2020_12_tool: 2020-12
// keywords that a server must pass through untouched (SEP-1613, SEP-2106).
var schema202012 = mcp.ToolInputSchema{
	Schema: "https://json-schema.org/draft/2020-12/schema",
	Properties: map[string]json.RawMessage{
		"name":          json.RawMessage(`{"type":"string"}`),
		"address":       json.RawMessage(`{"$ref":"#/$defs/address"}`),
		"contactMethod": json.RawMessage(`{"type":"string","enum":["phone","email"]}`),
		"phone":         json.RawMessage(`{"type":"string"}`),
		"email":         json.RawMessage(`{"type":"string"}`),
	},
	Extra: map[string]json.RawMessage{
		"$defs":                json.RawMessage(`{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}}`),
		"allOf":                json.RawMessage(`[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}]`),
		"if":                   json.RawMessage(`{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]}`),
		"then":                 json.RawMessage(`{"required":["phone"]}`),
		"else":                 json.RawMessage(`{"required":["email"]}`),
		"additionalProperties": json.RawMessage(`false`),
	},
}

// schema202012Tool echoes its (validated) arguments.
func schema202012Tool(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	args := p.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	return textResult("Received: " + string(args)), nil
}

// reconnectionTool answers after a pause. The server-sse-polling scenario
// would like the server to end the POST's SSE stream before the result
// and deliver it when the client reconnects with Last-Event-ID (SEP-1699);
// the suite reports a result on the original stream as INFO, not a
// failure.
//
// TODO(streamable): end the current request's SSE stream here once
// runtime/streamable lets a handler do so.
func reconnectionTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	return textResult(reconnectionText), nil
}
