package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Session implements the generated mcp.ServerHandler; DispatchServerRequest
// has decoded and validated the params before any of these run.
var _ mcp.ServerHandler = (*Session)(nil)

// CodeResourceNotFound is the error code MCP uses for a resource URI that
// nothing serves.
const CodeResourceNotFound = -32002

func notOffered(method string) error { return jsonrpc.ErrMethodNotFound(method) }

// Initialize is answered before dispatch; reaching it is a second
// initialize.
func (s *Session) Initialize(context.Context, *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize was already received")
}

// Ping answers with an empty result.
func (s *Session) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// SetLevel sets the lowest level of log messages sent to this client.
func (s *Session) SetLevel(_ context.Context, p *mcp.SetLevelRequestParams) (*mcp.EmptyResult, error) {
	for i, l := range levels {
		if l == p.Level {
			s.mu.Lock()
			s.minLevel = i
			s.mu.Unlock()
			return &mcp.EmptyResult{}, nil
		}
	}
	return nil, jsonrpc.ErrInvalidParams("invalid params: level: unknown level " + strconv.Quote(string(p.Level)))
}

// page returns the bounds of the page a cursor asks for out of n items,
// and the cursor of the next page ("" when this is the last).
func (s *Session) page(cursor string, n int) (from, to int, next string, err error) {
	if cursor != "" {
		raw, derr := base64.RawURLEncoding.DecodeString(cursor)
		off, aerr := strconv.Atoi(string(raw))
		if derr != nil || aerr != nil || off < 0 || off > n {
			return 0, 0, "", jsonrpc.ErrInvalidParams("invalid params: cursor: not a cursor this server gave out")
		}
		from = off
	}
	to = min(from+s.srv.opts.PageSize, n)
	if to < n {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(to)))
	}
	return from, to, next, nil
}

// listPage returns the definitions on the page the params ask for, and
// the next page's cursor.
func listPage[E any, D any](s *Session, p *mcp.PaginatedRequestParams, items []E, def func(E) D) ([]D, string, error) {
	from, to, next, err := s.page(cursorOf(p), len(items))
	if err != nil {
		return nil, "", err
	}
	out := make([]D, 0, to-from)
	for _, x := range items[from:to] {
		out = append(out, def(x))
	}
	return out, next, nil
}

func cursorOf(p *mcp.PaginatedRequestParams) string {
	if p == nil {
		return ""
	}
	return string(p.Cursor)
}

// ListTools lists the registered tools, a page at a time.
func (s *Session) ListTools(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	s.srv.mu.RLock()
	defer s.srv.mu.RUnlock()
	items, next, err := listPage(s, p, s.srv.tools, func(x *tool) mcp.Tool { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListToolsResult{Tools: items, NextCursor: next}, nil
}

func (s *Server) tool(name string) *tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if t.def.Name == name {
			return t
		}
	}
	return nil
}

// errorResult is a tool result that reports a failure to the model.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}
}

// CallTool runs a tool: arguments checked against its input schema, the
// handler's failures and panics turned into isError results, its
// structured output checked against its output schema.
func (s *Session) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	t := s.srv.tool(p.Name)
	if t == nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: name: unknown tool " + strconv.Quote(p.Name))
	}
	if err := t.checkInput(p.Arguments); err != nil {
		return errorResult("invalid arguments for tool " + p.Name + ": " + err.Error()), nil
	}
	r, err := s.runTool(ctx, t, p)
	if err != nil {
		if e, ok := err.(*jsonrpc.Error); ok {
			return nil, e
		}
		return errorResult(err.Error()), nil
	}
	if r == nil {
		return nil, jsonrpc.ErrInternal("tool " + p.Name + " returned no result")
	}
	if err := t.checkOutput(r); err != nil {
		s.srv.log.Error("tool result does not match its output schema", "tool", p.Name, "error", err)
		return nil, jsonrpc.ErrInternal("tool " + p.Name + " returned a result that does not match its outputSchema: " + err.Error())
	}
	if s.ProtocolVersion().Era() == mcp.EraModern && r.ResultType == "" {
		r.ResultType = "complete"
	}
	return r, nil
}

func (s *Session) runTool(ctx context.Context, t *tool, p *mcp.CallToolRequestParams) (r *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.srv.log.Error("tool handler panicked", "tool", p.Name, "panic", v, "stack", string(debug.Stack()))
			r, err = nil, fmt.Errorf("tool %s failed: internal error", p.Name)
		}
	}()
	return t.handler(ctx, p)
}

func (t *tool) checkInput(args []byte) error {
	if t.validateInput != nil {
		return t.validateInput(args)
	}
	if t.input == nil {
		return nil
	}
	if len(args) == 0 {
		args = []byte(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return err
	}
	return schemaError(t.input.Validate(inst))
}

func (t *tool) checkOutput(r *mcp.CallToolResult) error {
	if t.output == nil && t.validateOutput == nil {
		return nil
	}
	if r.IsError {
		return nil
	}
	if len(r.StructuredContent) == 0 {
		return fmt.Errorf("no structuredContent")
	}
	if t.validateOutput != nil {
		return t.validateOutput(r.StructuredContent)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.StructuredContent))
	if err != nil {
		return err
	}
	return schemaError(t.output.Validate(inst))
}

// schemaError shortens a validation error to its first cause, which says
// where the value failed and why.
func schemaError(err error) error {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	msg := ve.Error()
	if i := strings.LastIndex(msg, "\n- "); i >= 0 {
		msg = msg[i+3:]
	}
	return errors.New(strings.ReplaceAll(msg, "'", ""))
}

// ListPrompts lists the registered prompts.
func (s *Session) ListPrompts(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	s.srv.mu.RLock()
	defer s.srv.mu.RUnlock()
	items, next, err := listPage(s, p, s.srv.prompts, func(x *prompt) mcp.Prompt { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListPromptsResult{Prompts: items, NextCursor: next}, nil
}

// GetPrompt renders a prompt.
func (s *Session) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (r *mcp.GetPromptResult, err error) {
	s.srv.mu.RLock()
	var found *prompt
	for _, x := range s.srv.prompts {
		if x.def.Name == p.Name {
			found = x
		}
	}
	s.srv.mu.RUnlock()
	if found == nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: name: unknown prompt " + strconv.Quote(p.Name))
	}
	for _, a := range found.def.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, jsonrpc.ErrInvalidParams("invalid params: arguments." + a.Name + ": required")
		}
	}
	defer s.recoverInto("prompt "+p.Name, &err)
	return found.handler(ctx, p)
}

// recoverInto turns a handler panic into an internal error.
func (s *Session) recoverInto(what string, err *error) {
	if v := recover(); v != nil {
		s.srv.log.Error("handler panicked", "handler", what, "panic", v, "stack", string(debug.Stack()))
		*err = jsonrpc.ErrInternal(what + " failed: internal error")
	}
}

// ListResources lists the resources with fixed URIs.
func (s *Session) ListResources(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	s.srv.mu.RLock()
	defer s.srv.mu.RUnlock()
	items, next, err := listPage(s, p, s.srv.resources, func(x *resource) mcp.Resource { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourcesResult{Resources: items, NextCursor: next}, nil
}

// ListResourceTemplates lists the resource templates.
func (s *Session) ListResourceTemplates(_ context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	s.srv.mu.RLock()
	defer s.srv.mu.RUnlock()
	items, next, err := listPage(s, p, s.srv.templates, func(x *template) mcp.ResourceTemplate { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next}, nil
}

// ReadResource reads a resource: a fixed URI first, then the templates in
// the order they were added.
func (s *Session) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (r *mcp.ReadResourceResult, err error) {
	s.srv.mu.RLock()
	var res *resource
	for _, x := range s.srv.resources {
		if x.def.URI == p.URI {
			res = x
		}
	}
	var tmpl *template
	var vars map[string]string
	if res == nil {
		for _, x := range s.srv.templates {
			if v, ok := x.tmpl.Match(p.URI); ok {
				tmpl, vars = x, v
				break
			}
		}
	}
	s.srv.mu.RUnlock()
	defer s.recoverInto("resource "+p.URI, &err)
	switch {
	case res != nil:
		return res.handler(ctx, p)
	case tmpl != nil:
		return tmpl.handler(ctx, p, vars)
	}
	e := jsonrpc.NewError(CodeResourceNotFound, "resource not found: "+p.URI)
	e.Data, _ = (&mcp.ResourceUpdatedNotificationParams{URI: p.URI}).MarshalJSON()
	return nil, e
}

// Subscribe asks for notifications/resources/updated about a URI.
func (s *Session) Subscribe(_ context.Context, p *mcp.SubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	s.subs[p.URI] = true
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// Unsubscribe stops them.
func (s *Session) Unsubscribe(_ context.Context, p *mcp.UnsubscribeRequestParams) (*mcp.EmptyResult, error) {
	s.mu.Lock()
	delete(s.subs, p.URI)
	s.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// Complete asks the completion handler.
func (s *Session) Complete(ctx context.Context, p *mcp.CompleteRequestParams) (r *mcp.CompleteResult, err error) {
	s.srv.mu.RLock()
	h := s.srv.completion
	s.srv.mu.RUnlock()
	if h == nil {
		return nil, notOffered(mcp.MethodComplete)
	}
	defer s.recoverInto("completion", &err)
	return h(ctx, p)
}

// Discover belongs to the modern era, which this engine does not serve yet.
func (s *Session) Discover(context.Context, *mcp.RequestParams) (*mcp.DiscoverResult, error) {
	return nil, notOffered(mcp.MethodDiscover)
}

// SubscriptionsListen belongs to the modern era.
func (s *Session) SubscriptionsListen(context.Context, *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	return nil, notOffered(mcp.MethodSubscriptionsListen)
}

// CancelTask: tasks are not offered.
func (s *Session) CancelTask(context.Context, *mcp.CancelTaskRequestParams) (*mcp.CancelTaskResult, error) {
	return nil, notOffered(mcp.MethodCancelTask)
}

// GetTask: tasks are not offered.
func (s *Session) GetTask(context.Context, *mcp.GetTaskRequestParams) (*mcp.GetTaskResult, error) {
	return nil, notOffered(mcp.MethodGetTask)
}

// ListTasks: tasks are not offered.
func (s *Session) ListTasks(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListTasksResult, error) {
	return nil, notOffered(mcp.MethodListTasks)
}

// GetTaskPayload: tasks are not offered.
func (s *Session) GetTaskPayload(context.Context, *mcp.GetTaskPayloadRequestParams) (*mcp.GetTaskPayloadResult, error) {
	return nil, notOffered(mcp.MethodGetTaskPayload)
}
