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

func (e *everything) addPrompts() error {
	prompts := []struct {
		def mcp.Prompt
		h   func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error)
	}{
		{mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments."}, simplePrompt},
		{mcp.Prompt{
			Name:        "test_prompt_with_arguments",
			Description: "A prompt that repeats its two arguments.",
			Arguments: []mcp.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
		}, argsPrompt},
		{mcp.Prompt{
			Name:        "test_prompt_with_embedded_resource",
			Description: "A prompt that embeds a resource.",
			Arguments:   []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		}, embeddedPrompt},
		{mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt that shows an image."}, imagePrompt},
	}
	for _, p := range prompts {
		if err := e.srv.AddPrompt(p.def, p.h); err != nil {
			return err
		}
	}
	return nil
}

func userSays(blocks ...mcp.ContentBlock) *mcp.GetPromptResult {
	r := &mcp.GetPromptResult{}
	for _, b := range blocks {
		r.Messages = append(r.Messages, mcp.PromptMessage{Role: mcp.RoleUser, Content: b})
	}
	return r
}

func simplePrompt(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	return userSays(text(simplePromptText)), nil
}

// argsPrompt: the engine has checked that both arguments are there.
func argsPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	return userSays(text(fmt.Sprintf(argsPromptFormat, p.Arguments["arg1"], p.Arguments["arg2"]))), nil
}

func embeddedPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	res := &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{Value: &mcp.TextResourceContents{
		URI: p.Arguments["resourceUri"], MIMEType: "text/plain", Text: embeddedPromptText,
	}}}
	return userSays(mcp.ContentBlock{Value: res}, text(embeddedPromptAfter)), nil
}

func imagePrompt(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
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
