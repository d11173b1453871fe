package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// The prompts' texts.
const (
	simplePromptText    = "This is a simple prompt for testing."
	argsPromptFormat    = "Prompt with arguments: arg1='%s', arg2='%s'"
	embeddedPromptText  = "Embedded resource content for testing."
	embeddedPromptAfter = "Please process the embedded resource above."
	imagePromptAfter    = "Please analyze the image above."
)

// userSays is a prompt result of one user message per block. The prompts
// return a whole result rather than []mcp.PromptMessage, from which the
// generated code would build one that repeats the prompt's description:
// these results carry their messages alone.
func userSays(blocks ...mcp.ContentBlock) *mcp.GetPromptResult {
	r := &mcp.GetPromptResult{}
	for _, b := range blocks {
		r.Messages = append(r.Messages, mcp.PromptMessage{Role: mcp.RoleUser, Content: b})
	}
	return r
}

// A prompt without arguments.
//
//mcp:prompt name=test_simple_prompt
func simplePrompt(context.Context) (*mcp.GetPromptResult, error) {
	return userSays(text(simplePromptText)), nil
}

// argsPromptArgs are the arguments of test_prompt_with_arguments.
type argsPromptArgs struct {
	// First test argument
	Arg1 string `json:"arg1"`
	// Second test argument
	Arg2 string `json:"arg2"`
}

// A prompt that repeats its two arguments.
//
//mcp:prompt name=test_prompt_with_arguments
func argsPrompt(_ context.Context, in argsPromptArgs) (*mcp.GetPromptResult, error) {
	return userSays(text(fmt.Sprintf(argsPromptFormat, in.Arg1, in.Arg2))), nil
}

// embeddedPromptArgs are the arguments of test_prompt_with_embedded_resource.
type embeddedPromptArgs struct {
	// URI of the resource to embed
	ResourceURI string `json:"resourceUri"`
}

// A prompt that embeds a resource.
//
//mcp:prompt name=test_prompt_with_embedded_resource
func embeddedPrompt(_ context.Context, in embeddedPromptArgs) (*mcp.GetPromptResult, error) {
	res := &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{Value: &mcp.TextResourceContents{
		URI: in.ResourceURI, MIMEType: "text/plain", Text: embeddedPromptText,
	}}}
	return userSays(mcp.ContentBlock{Value: res}, text(embeddedPromptAfter)), nil
}

// A prompt that shows an image.
//
//mcp:prompt name=test_prompt_with_image
func imagePrompt(context.Context) (*mcp.GetPromptResult, error) {
	img := &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}
	return userSays(mcp.ContentBlock{Value: img}, text(imagePromptAfter)), nil
}

// completions are the values offered for the arguments of
// test_prompt_with_arguments.
var completions = map[string][]string{
	"arg1": {"paris", "park", "party", "test", "testing"},
	"arg2": {"world", "wonder", "work"},
}

// complete offers the values of an argument of test_prompt_with_arguments
// that begin with what the user typed; anything else gets no values.
//
// It stays registered by hand (server.SetCompletion): the directive
// grammar has no completion handlers, and one handler answers for every
// prompt and resource template, switching on the request's ref.
func complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	values := []string{}
	if ref, ok := p.Ref.Value.(*mcp.PromptReference); ok && ref.Name == "test_prompt_with_arguments" {
		for _, v := range completions[p.Argument.Name] {
			if strings.HasPrefix(v, p.Argument.Value) {
				values = append(values, v)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: values, Total: int64(len(values))}}, nil
}
