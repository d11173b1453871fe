// Package prompts is a golden case: prompt handlers with required,
// optional (pointer and omitempty) and embedded arguments, a named string
// argument, a prompt without arguments and a method returning a whole
// GetPromptResult.
package prompts

import (
	"context"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Tone is how a review is written.
type Tone string

// Who asked, embedded into ReviewArgs.
type Who struct {
	// The person asking.
	Author string `json:"author,omitempty"`
}

// ReviewArgs are the arguments of code_review.
type ReviewArgs struct {
	// The code to review.
	Code string `json:"code"`
	// The language the code is written in.
	Language *string `json:"language"`
	// How to write the review.
	Tone Tone `json:"tone,omitempty"`
	Who
	internal string
}

// CodeReview asks the model to review a piece of code.
//
//mcp:prompt title="Review code"
func CodeReview(ctx context.Context, in ReviewArgs) ([]mcp.PromptMessage, error) {
	text := "Review this"
	if in.Language != nil {
		text += " " + *in.Language
	}
	text += " code in a " + string(in.Tone) + " tone: " + in.Code
	return []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: text}}}}, nil
}

// Hello says hello.
//
//mcp:prompt name=hello description="Greets the user."
func Hello(ctx context.Context) ([]mcp.PromptMessage, error) {
	return nil, nil
}

// Bot writes prompts.
type Bot struct{ Name string }

// TopicArgs name a topic.
type TopicArgs struct {
	Topic string
}

// Explain asks the bot to explain a topic.
//
//mcp:prompt
func (b *Bot) Explain(ctx context.Context, in TopicArgs) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Description: b.Name + " explains " + in.Topic}, nil
}
