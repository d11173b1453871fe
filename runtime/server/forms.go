package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Typed input: a form whose answer is a Go struct, and sampling that
// answers a string. Both go through Elicit and CreateMessage, so they work
// wherever those do: in legacy sessions, in the rounds of a 2026-07-28
// request and inside a task.

// Form is an elicitation form for a struct type T: the requestedSchema
// and the decoder of its answer. A //mcp:form directive on T makes
// mcpgen generate one, and a function that asks it (ElicitT); NewForm
// builds one by hand.
type Form[T any] struct {
	schema string
	decode func(content []byte, into *T) error
	parsed func() (*mcp.ElicitRequestFormParamsRequestedSchema, error)
}

// NewForm returns the form whose requestedSchema is schema (JSON, the
// restricted flat object schema elicitation allows) and whose accepted
// content decode reads into a T, checking it against the schema. The
// schema is read once, on the form's first use.
func NewForm[T any](schema string, decode func(content []byte, into *T) error) *Form[T] {
	f := &Form[T]{schema: schema, decode: decode}
	f.parsed = sync.OnceValues(func() (*mcp.ElicitRequestFormParamsRequestedSchema, error) {
		var rs mcp.ElicitRequestFormParamsRequestedSchema
		if err := rs.UnmarshalJSON([]byte(schema)); err != nil {
			return nil, fmt.Errorf("server: form schema: %w", err)
		}
		if err := rs.Validate(); err != nil {
			return nil, fmt.Errorf("server: form schema: %w", err)
		}
		return &rs, nil
	})
	return f
}

// Schema returns the form's requestedSchema as JSON.
func (f *Form[T]) Schema() string { return f.schema }

// FormError reports an accepted form whose content does not match the
// form's schema: the client let through what the schema forbids.
type FormError struct {
	Err error
}

func (e *FormError) Error() string {
	return "server: the answer to the form does not match its schema: " + e.Err.Error()
}

func (e *FormError) Unwrap() error { return e.Err }

// ElicitForm asks the user, through the client, to fill in form with
// message as its explanation, and returns the user's action with, when
// the action is mcp.ElicitResultActionAccept, the answer decoded into a
// T; on decline or cancel the T is zero. Callers branch on the action:
//
//	trip, action, err := server.ElicitForm(ctx, "Where to?", tripForm)
//	if err != nil {
//		return "", err
//	}
//	if action != mcp.ElicitResultActionAccept {
//		return "No trip booked.", nil
//	}
//
// It is Elicit with a typed answer, so it works in both eras and inside
// tasks, returns ErrInputRequired as Elicit does in a round of a
// 2026-07-28 request, and takes the same options. Members of the answer
// that the form does not ask for are ignored, as its schema allows; an
// accepted answer that otherwise does not match the schema is a
// *FormError.
func ElicitForm[T any](ctx context.Context, message string, form *Form[T], opts ...InputOption) (T, mcp.ElicitResultAction, error) {
	var zero T
	schema, err := form.parsed()
	if err != nil {
		return zero, "", err
	}
	res, err := Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message:         message,
		RequestedSchema: *schema,
	}}, opts...)
	if err != nil {
		return zero, "", err
	}
	if res.Action != mcp.ElicitResultActionAccept {
		return zero, res.Action, nil
	}
	content, err := contentJSON(res.Content, schema.Properties)
	if err != nil {
		return zero, "", &FormError{Err: err}
	}
	var out T
	if err := form.decode(content, &out); err != nil {
		return zero, "", &FormError{Err: err}
	}
	return out, res.Action, nil
}

// contentJSON writes an elicitation's content back as JSON, in key order,
// for the form's generated decoder to read. It keeps only the form's
// properties: a requestedSchema does not forbid others, so a client may
// send them, and the form has nowhere to put them.
func contentJSON(content map[string]mcp.ElicitResultContentValue, props map[string]mcp.PrimitiveSchemaDefinition) ([]byte, error) {
	keys := make([]string, 0, len(content))
	for k := range content {
		if _, ok := props[k]; ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	dst := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonrpc.AppendString(dst, k)
		dst = append(dst, ':')
		v, err := content[k].MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		dst = append(dst, v...)
	}
	return append(dst, '}'), nil
}

// DefaultSampleMaxTokens is the maxTokens of SampleText when no
// SampleMaxTokens option says otherwise.
const DefaultSampleMaxTokens = 1000

// SampleOption adjusts a SampleText: SampleMaxTokens, SampleSystemPrompt,
// or any InputOption, such as InputKey.
type SampleOption interface {
	applySample(*sampleOptions)
}

type sampleOptions struct {
	maxTokens    int64
	systemPrompt string
	input        []InputOption
}

func (o InputOption) applySample(s *sampleOptions) { s.input = append(s.input, o) }

type sampleFunc func(*sampleOptions)

func (f sampleFunc) applySample(s *sampleOptions) { f(s) }

// SampleMaxTokens sets the most tokens the client's model may sample.
func SampleMaxTokens(n int64) SampleOption {
	return sampleFunc(func(s *sampleOptions) { s.maxTokens = n })
}

// SampleSystemPrompt sets the system prompt the server asks for; the
// client may change or leave it out.
func SampleSystemPrompt(prompt string) SampleOption {
	return sampleFunc(func(s *sampleOptions) { s.systemPrompt = prompt })
}

// ErrNotText is the error of SampleText when the client's model answered
// with something other than text (an image, a tool use, ...).
var ErrNotText = errors.New("server: the sampled message is not text")

// SampleText asks the client's model to answer prompt, as one user
// message, and returns the text it sampled. It is CreateMessage with
// maxTokens DefaultSampleMaxTokens unless SampleMaxTokens says otherwise,
// so it works in both eras and inside tasks and returns ErrInputRequired
// as CreateMessage does. An answer that is not text is an error wrapping
// ErrNotText; one of several text blocks is their texts joined.
func SampleText(ctx context.Context, prompt string, opts ...SampleOption) (string, error) {
	o := sampleOptions{maxTokens: DefaultSampleMaxTokens}
	for _, opt := range opts {
		opt.applySample(&o)
	}
	res, err := CreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: prompt}}}},
		MaxTokens:    o.maxTokens,
		SystemPrompt: o.systemPrompt,
	}, o.input...)
	if err != nil {
		return "", err
	}
	switch c := res.Content.Value.(type) {
	case *mcp.TextContent:
		return c.Text, nil
	case mcp.CreateMessageResultContentArray:
		var b strings.Builder
		for _, block := range c {
			t, ok := block.Value.(*mcp.TextContent)
			if !ok {
				return "", fmt.Errorf("%w: it holds %s", ErrNotText, contentKind(block.Value))
			}
			b.WriteString(t.Text)
		}
		if len(c) > 0 {
			return b.String(), nil
		}
		return "", fmt.Errorf("%w: it holds no content", ErrNotText)
	}
	return "", fmt.Errorf("%w: it is %s", ErrNotText, contentKind(res.Content.Value))
}

// contentKind names a sampled content block for an error message.
func contentKind(v any) string {
	switch v.(type) {
	case *mcp.ImageContent:
		return "an image"
	case *mcp.AudioContent:
		return "audio"
	case *mcp.ToolUseContent:
		return "a tool use"
	case *mcp.ToolResultContent:
		return "a tool result"
	}
	return fmt.Sprintf("%T", v)
}
