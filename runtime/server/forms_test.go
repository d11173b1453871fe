package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/handler"
	"github.com/mcpgen/mcpgen/runtime/mcptest"
	"github.com/mcpgen/mcpgen/runtime/server"
)

type contact struct {
	Email string `json:"email"`
	Age   int64  `json:"age"`
}

// contactForm's decoder refuses what the schema refuses, as a generated
// one does: a missing field, a field of another type.
var contactForm = server.NewForm(
	`{"type":"object","properties":{"email":{"type":"string","format":"email"},"age":{"type":"integer","minimum":0}},"required":["email","age"]}`,
	func(content []byte, into *contact) error {
		var m map[string]any
		if err := json.Unmarshal(content, &m); err != nil {
			return err
		}
		if _, ok := m["email"].(string); !ok {
			return errors.New("email: want a string")
		}
		if _, ok := m["age"].(float64); !ok {
			return errors.New("age: want an integer")
		}
		return json.Unmarshal(content, into)
	},
)

// askTools adds "contact", which asks contactForm, and "sample", which
// samples a text; both report what they got, or the error's text.
func askTools() func(*server.Server) error {
	return func(s *server.Server) error {
		ask := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			c, action, err := server.ElicitForm(ctx, "Your contact?", contactForm)
			if errors.Is(err, server.ErrInputRequired) {
				return nil, err
			}
			var fe *server.FormError
			if errors.As(err, &fe) {
				return text("form error: " + fe.Err.Error()), nil
			}
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s %s %d", action, c.Email, c.Age)), nil
		}
		sample := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			got, err := server.SampleText(ctx, "Say hi", server.SampleSystemPrompt("Be brief."), server.InputKey("hi"))
			if errors.Is(err, server.ErrNotText) {
				return text("not text: " + err.Error()), nil
			}
			if err != nil {
				return nil, err
			}
			return text("sampled " + got), nil
		}
		if err := handler.AddTool(s, mcp.Tool{Name: "contact"}, `{"type":"object"}`, "", ask, server.InputCheckedByHandler()); err != nil {
			return err
		}
		return handler.AddTool(s, mcp.Tool{Name: "sample"}, `{"type":"object"}`, "", sample, server.InputCheckedByHandler())
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
}

func TestElicitForm(t *testing.T) {
	cases := []struct {
		name   string
		answer func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error)
		want   string
	}{
		{"accept", mcptest.Accept(map[string]any{"email": "ada@example.com", "age": 36}), "accept ada@example.com 36"},
		{"extra member", mcptest.Accept(map[string]any{"email": "bo@example.com", "age": 7, "name": "Bo"}), "accept bo@example.com 7"},
		{"decline", mcptest.Decline(), "decline  0"},
		{"cancel", mcptest.Cancel(), "cancel  0"},
		{"missing field", mcptest.Accept(map[string]any{"email": "ada@example.com"}), "form error: age: want an integer"},
		{"wrong type", mcptest.Accept(map[string]any{"email": true, "age": 1}), "form error: email: want a string"},
	}
	for _, era := range mcptest.Eras {
		for _, tc := range cases {
			t.Run(mcptest.EraName(era)+"/"+tc.name, func(t *testing.T) {
				var asked *mcp.ElicitRequestFormParams
				c := mcptest.Start(t, askTools(), &mcptest.Options{Era: era, Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
					asked, _ = p.Value.(*mcp.ElicitRequestFormParams)
					return tc.answer(ctx, p)
				}})
				c.Call("contact", nil).WantText(tc.want)
				if asked == nil {
					t.Fatal("the client was asked no form")
				}
				if asked.Message != "Your contact?" {
					t.Errorf("message %q", asked.Message)
				}
				schema, err := asked.RequestedSchema.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{`"format":"email"`, `"minimum":0`, `"required":["email","age"]`, `"type":"object"`} {
					if !strings.Contains(string(schema), want) {
						t.Errorf("requestedSchema %s lacks %s", schema, want)
					}
				}
			})
		}
	}
}

func TestSampleText(t *testing.T) {
	image := func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Content: mcp.CreateMessageResultContent{Value: &mcp.ImageContent{Data: "AA==", MIMEType: "image/png"}}, Model: "m", Role: mcp.RoleAssistant}, nil
	}
	for _, era := range mcptest.Eras {
		t.Run(mcptest.EraName(era), func(t *testing.T) {
			var asked *mcp.CreateMessageRequestParams
			reply := mcptest.Reply("hi there")
			c := mcptest.Start(t, askTools(), &mcptest.Options{Era: era, CreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
				asked = p
				return reply(ctx, p)
			}})
			c.Call("sample", nil).WantText("sampled hi there")
			if asked == nil || asked.MaxTokens != server.DefaultSampleMaxTokens || asked.SystemPrompt != "Be brief." || len(asked.Messages) != 1 {
				t.Errorf("asked %+v", asked)
			}
			c = mcptest.Start(t, askTools(), &mcptest.Options{Era: era, CreateMessage: image})
			c.Call("sample", nil).WantText("not text: server: the sampled message is not text: it is an image")
		})
	}
}

// A client without the capability gets the engine's error, as with
// Elicit and CreateMessage.
func TestTypedInputNeedsCapability(t *testing.T) {
	for _, era := range mcptest.Eras {
		t.Run(mcptest.EraName(era), func(t *testing.T) {
			c := mcptest.Start(t, askTools(), &mcptest.Options{Era: era})
			res, err := c.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "contact"})
			if err == nil && !res.IsError {
				t.Fatalf("a client without elicitation got %+v", res)
			}
			if err != nil && !strings.Contains(err.Error(), "elicitation") {
				t.Errorf("error %v does not name elicitation", err)
			}
		})
	}
}

func TestNewFormBadSchema(t *testing.T) {
	f := server.NewForm(`{"type":"object"}`, func([]byte, *contact) error { return nil })
	if f.Schema() != `{"type":"object"}` {
		t.Errorf("Schema() = %s", f.Schema())
	}
	bad := server.NewForm(`{"properties":3}`, func([]byte, *contact) error { return nil })
	_, _, err := server.ElicitForm(context.Background(), "m", bad)
	if err == nil || !strings.Contains(err.Error(), "form schema") {
		t.Errorf("a bad schema gave %v", err)
	}
}

// Inside a task the questions travel the task's own way (tasks/result in
// a legacy session, the task's input rounds in 2026-07-28); the typed
// helpers go along, being Elicit and CreateMessage.
func TestTypedInputInTask(t *testing.T) {
	for _, era := range mcptest.Eras {
		t.Run(mcptest.EraName(era), func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "tasks", Version: "1"}, &server.Options{TaskPollInterval: 10 * time.Millisecond})
			book := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				if server.TaskID(ctx) == "" {
					return text("not a task"), nil
				}
				c, action, err := server.ElicitForm(ctx, "Your contact?", contactForm)
				if err != nil {
					return nil, err
				}
				hi, err := server.SampleText(ctx, "Say hi to "+c.Email)
				if err != nil {
					return nil, err
				}
				return text(fmt.Sprintf("%s %s: %s", action, c.Email, hi)), nil
			}
			if err := handler.AddTool(srv, mcp.Tool{Name: "book"}, `{"type":"object"}`, "", book,
				server.InputCheckedByHandler(), server.WithTaskSupport(server.TaskRequired)); err != nil {
				t.Fatal(err)
			}
			c := mcptest.Connect(t, srv, &mcptest.Options{Client: &client.Options{
				Era:           era,
				Tasks:         true,
				Elicit:        mcptest.Accept(map[string]any{"email": "ada@example.com", "age": 36}),
				CreateMessage: mcptest.Reply("hi Ada"),
			}})
			c.Call("book", nil).WantText("accept ada@example.com: hi Ada")
		})
	}
}
