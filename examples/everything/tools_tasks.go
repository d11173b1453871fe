package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The tools of the tasks scenarios (the io.modelcontextprotocol/tasks
// extension in 2026-07-28, the tasks of 2025-11-25). Each is an ordinary
// handler registered with server.WithTaskSupport: the engine decides
// whether a call runs as a task, and the same code serves it either way.

// taskTool is one tool of the tasks contract: its definition as JSON, its
// task support and its handler.
type taskTool struct {
	def     string
	support server.TaskSupport
	opts    []server.ToolOption
	handler func(ctx context.Context, args map[string]any) (*mcp.CallToolResult, error)
}

var taskTools = []taskTool{
	{
		def:     `{"name":"greet","description":"Greets someone by name, synchronously.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
		support: server.TaskForbidden,
		handler: func(_ context.Context, args map[string]any) (*mcp.CallToolResult, error) {
			name, _ := args["name"].(string)
			return textResult("Hello, " + name + "!"), nil
		},
	},
	{
		def:     `{"name":"slow_compute","description":"Sleeps for the given seconds, then reports the label; runs as a task when the client supports tasks.","inputSchema":{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}},"required":["seconds"]}}`,
		support: server.TaskOptional,
		handler: func(ctx context.Context, args map[string]any) (*mcp.CallToolResult, error) {
			seconds, _ := args["seconds"].(float64)
			label, _ := args["label"].(string)
			if err := pause(ctx, time.Duration(seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("%s: computed in %gs", label, seconds)), nil
		},
	},
	{
		def:     `{"name":"failing_job","description":"Runs for a second, then reports a tool error; runs only as a task.","inputSchema":{"type":"object"}}`,
		support: server.TaskRequired,
		handler: func(ctx context.Context, _ map[string]any) (*mcp.CallToolResult, error) {
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			return nil, errors.New("the job failed, as it always does")
		},
	},
	{
		def:     `{"name":"protocol_error_job","description":"Fails with an internal error (its handler panics); runs as a task when the client supports tasks.","inputSchema":{"type":"object"}}`,
		support: server.TaskOptional,
		handler: func(ctx context.Context, _ map[string]any) (*mcp.CallToolResult, error) {
			if err := pause(ctx, 200*time.Millisecond); err != nil {
				return nil, err
			}
			panic("protocol_error_job: a deliberate crash")
		},
	},
	{
		def:     `{"name":"confirm_delete","description":"Asks the user to confirm deleting a file, then reports the answer; runs as a task when the client supports tasks.","inputSchema":{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}}`,
		support: server.TaskOptional,
		handler: func(ctx context.Context, args map[string]any) (*mcp.CallToolResult, error) {
			name, _ := args["filename"].(string)
			r, err := server.Elicit(ctx, confirmForm("Delete "+name+"?"))
			if err != nil {
				return nil, err
			}
			if r.Action == "accept" && confirmed(r) {
				return textResult("Deleted " + name), nil
			}
			return textResult("Kept " + name), nil
		},
	},
	{
		def:     `{"name":"multi_input","description":"Asks two questions at once, then reports both answers; runs as a task when the client supports tasks.","inputSchema":{"type":"object"}}`,
		support: server.TaskOptional,
		handler: func(ctx context.Context, _ map[string]any) (*mcp.CallToolResult, error) {
			var (
				wg      sync.WaitGroup
				answers [2]string
				errs    [2]error
			)
			for i := range answers {
				wg.Go(func() {
					r, err := server.Elicit(ctx, nameForm("Question "+strconv.Itoa(i+1)+": your name?", "name"),
						server.InputKey("question_"+strconv.Itoa(i+1)))
					if err == nil {
						answers[i] = field(r, "name")
					}
					errs[i] = err
				})
			}
			wg.Wait()
			if err := errors.Join(errs[:]...); err != nil {
				return nil, err
			}
			return textResult("Answers: " + answers[0] + ", " + answers[1]), nil
		},
	},
	{
		def:     `{"name":"test_tool_with_task","description":"Asks the user's name in a round of input, then greets them from a task; runs only as a task.","inputSchema":{"type":"object"}}`,
		support: server.TaskRequired,
		opts:    []server.ToolOption{server.WithInputBeforeTask()},
		handler: func(ctx context.Context, _ map[string]any) (*mcp.CallToolResult, error) {
			r, err := server.Elicit(ctx, nameForm("What is your name?", "name"), server.InputKey("user_name"))
			if err != nil {
				return nil, err
			}
			name := field(r, "name")
			if err := server.StartTask(ctx); err != nil && !errors.Is(err, server.ErrNotTask) {
				return nil, err
			}
			if err := pause(ctx, 200*time.Millisecond); err != nil {
				return nil, err
			}
			return textResult("Hello, " + name + ", from a task!"), nil
		},
	},
}

// registerTaskTools adds the tools of the tasks contract to s.
func registerTaskTools(s *server.Server) error {
	for _, tt := range taskTools {
		var def mcp.Tool
		if err := def.UnmarshalJSON([]byte(tt.def)); err != nil {
			return fmt.Errorf("tasks tool: %w", err)
		}
		h := tt.handler
		opts := append([]server.ToolOption{rawschema.Validate(), server.WithTaskSupport(tt.support)}, tt.opts...)
		err := s.AddTool(def, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			args := map[string]any{}
			if len(p.Arguments) > 0 {
				if err := json.Unmarshal(p.Arguments, &args); err != nil {
					return nil, jsonrpc.ErrInvalidParams("invalid params: arguments: " + err.Error())
				}
			}
			return h(ctx, args)
		}, opts...)
		if err != nil {
			return err
		}
	}
	return nil
}

// confirmForm asks for one boolean, confirm.
func confirmForm(message string) *mcp.ElicitRequestParams {
	return &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message: message,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{"confirm": {Value: &mcp.BooleanSchema{}}},
			Required:   []string{"confirm"},
		},
	}}
}

// confirmed reports whether an accepted elicitation said confirm: true.
func confirmed(r *mcp.ElicitResult) bool {
	v, ok := r.Content["confirm"].Value.(mcp.ElicitResultContentValueBoolean)
	return ok && bool(v)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{text(s)}}
}
