package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// dispatcher implements the generated mcp.ServerHandler for every request
// of a Server, in either era: each method reads what it needs of the
// request from ctx. DispatchServerRequest has decoded and validated the
// params, for the request's version, before any of these run.
type dispatcher struct{ srv *Server }

var _ mcp.ServerHandler = dispatcher{}

// CodeResourceNotFound is the error code the legacy versions use for a
// resource URI that nothing serves; 2026-07-28 uses -32602 instead.
// Handlers return ResourceNotFound, which the engine answers with the
// code of the client's version.
const CodeResourceNotFound = -32002

func notOffered(method string) error { return jsonrpc.ErrMethodNotFound(method) }

// Initialize is answered before dispatch; reaching it is a second
// initialize.
func (dispatcher) Initialize(context.Context, *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize was already received")
}

// Ping answers with an empty result.
func (dispatcher) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// SetLevel sets the lowest level of log messages sent to a legacy
// session's client.
func (dispatcher) SetLevel(ctx context.Context, p *mcp.SetLevelRequestParams) (*mcp.EmptyResult, error) {
	sess := requestOf(ctx).session
	i := levelIndex(p.Level)
	if i < 0 {
		return nil, jsonrpc.ErrInvalidParams("invalid params: level: unknown level " + strconv.Quote(string(p.Level)))
	}
	sess.mu.Lock()
	sess.minLevel = i
	sess.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// listPage returns the definitions on the page the params ask for, and
// the next page's cursor. Cursors are sealed and bound to the list and
// the principal: a client cannot forge one, nor use another's.
func listPage[E any, D any](ctx context.Context, s *Server, p *mcp.PaginatedRequestParams, items []E, def func(E) D) ([]D, string, error) {
	r := requestOf(ctx)
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	from, to, next, err := s.page(r, cursor, len(items))
	if err != nil {
		return nil, "", err
	}
	out := make([]D, 0, to-from)
	for _, x := range items[from:to] {
		out = append(out, def(x))
	}
	return out, next, nil
}

// ListTools lists the registered tools, a page at a time.
func (d dispatcher) ListTools(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	s := d.srv
	tools, done := visibleList(ctx, s, &s.tools, EntryTool, toolEntry)
	defer done()
	items, next, err := listPage(ctx, s, p, tools, func(x *tool) mcp.Tool { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListToolsResult{Tools: items, NextCursor: next}, nil
}

// Tool returns the definition of the registered tool named name, or
// false when there is none: all of it, before any Visibility decides what
// a caller sees. The definition shares its schemas and maps with the
// server's, which the caller must not modify.
func (s *Server) Tool(name string) (mcp.Tool, bool) {
	t := s.tool(name)
	if t == nil {
		return mcp.Tool{}, false
	}
	return t.def, true
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
// structured output checked against its output schema. In 2026-07-28 a
// round that asked the client for input ends with an InputRequiredResult
// instead, and a capability the client did not declare with -32021.
func (d dispatcher) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	s := d.srv
	r := requestOf(ctx)
	t := s.tool(p.Name)
	if t == nil {
		return nil, unknownTool(p.Name)
	}
	// Authorization first: a caller without the scopes spends no token
	// of its rate limits.
	if err := checkScopes(ctx, t.scopes); err != nil {
		return nil, err
	}
	if err := s.limitCall(ctx, r, t); err != nil {
		return nil, err
	}
	asTask, err := s.taskDecision(r, t, p)
	if err != nil {
		return nil, err
	}
	if err := t.checkInput(p.Arguments); err != nil {
		return errorResult("invalid arguments for tool " + p.Name + ": " + err.Error()), nil
	}
	if asTask && !(r.modern() && t.inputBeforeTask) {
		return nil, s.callAsTask(ctx, r, t, p)
	}
	if asTask {
		return s.callBeforeTask(ctx, r, t, p)
	}
	if r.modern() {
		if err := s.openRounds(r, p.Name, p.Arguments, nil, p.RequestState, p.InputResponses); err != nil {
			return nil, err
		}
	}
	res, err := s.runTool(ctx, t, p)
	return s.answerCall(r, t, p, res, err)
}

// answerCall is the answer of a synchronous tools/call, from what its
// handler returned.
func (s *Server) answerCall(r *request, t *tool, p *mcp.CallToolRequestParams, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if err := s.endRound(r, err); err != nil {
		return nil, err
	}
	if err != nil {
		switch e := err.(type) {
		case *jsonrpc.Error:
			return nil, e
		case *relayed:
			return nil, e
		}
		return errorResult(err.Error()), nil
	}
	if res == nil {
		return nil, jsonrpc.ErrInternal("tool " + p.Name + " returned no result")
	}
	if err := t.checkOutput(res); err != nil {
		s.log.Error("tool result does not match its output schema", "tool", p.Name, principalAttr(r.principal), "error", err)
		return nil, jsonrpc.ErrInternal("tool " + p.Name + " returned a result that does not match its outputSchema: " + err.Error())
	}
	return res, nil
}

// endRound decides, once a 2026-07-28 handler has returned, whether the
// round ends otherwise than with the handler's answer: -32021 when it
// needed a capability the client did not declare, an InputRequiredResult
// when it asked a question the client has not answered. It returns nil to
// let the handler's answer stand.
func (s *Server) endRound(r *request, handlerErr error) error {
	if !r.modern() {
		return nil
	}
	if ce, ok := errors.AsType[*CapabilityError](handlerErr); ok {
		return missingCapability(ce.Capability)
	}
	if r.input == nil || !r.input.pending() {
		return nil
	}
	ir, err := r.input.end()
	if err != nil {
		return err
	}
	return ir
}

// missingCapability is the -32021 error of 2026-07-28, which names the
// capability as a ClientCapabilities object.
func missingCapability(capability string) error {
	e := jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "the request needs the client capability "+strconv.Quote(capability)+", which the client did not declare in "+metaClientCapabilities)
	data := jsonrpc.AppendString([]byte(`{"requiredCapabilities":{`), capability)
	e.Data = append(data, `:{}}}`...)
	return e
}

func (s *Server) runTool(ctx context.Context, t *tool, p *mcp.CallToolRequestParams) (r *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("tool handler panicked", "tool", p.Name, principalAttr(PrincipalFrom(ctx)), "panic", v, "stack", string(debug.Stack()))
			r, err = nil, fmt.Errorf("tool %s failed: internal error", p.Name)
		}
	}()
	return t.handler(ctx, p)
}

func (t *tool) checkInput(args []byte) error {
	if t.validateInput == nil {
		return nil
	}
	return t.validateInput(args)
}

func (t *tool) checkOutput(r *mcp.CallToolResult) error {
	if t.validateOutput == nil || r.IsError {
		return nil
	}
	if len(r.StructuredContent) == 0 {
		return fmt.Errorf("no structuredContent")
	}
	return t.validateOutput(r.StructuredContent)
}

// ListPrompts lists the registered prompts.
func (d dispatcher) ListPrompts(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	s := d.srv
	if !s.holds(func() bool { return len(s.prompts) > 0 }) {
		return nil, notOffered(mcp.MethodListPrompts) // the prompts capability is not declared
	}
	prompts, done := visibleList(ctx, s, &s.prompts, EntryPrompt, promptEntry)
	defer done()
	items, next, err := listPage(ctx, s, p, prompts, func(x *prompt) mcp.Prompt { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListPromptsResult{Prompts: items, NextCursor: next}, nil
}

// GetPrompt renders a prompt.
func (d dispatcher) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	s := d.srv
	r := requestOf(ctx)
	found := s.findPrompt(p.Name)
	if found == nil {
		return nil, unknownPrompt(p.Name)
	}
	if err := checkScopes(ctx, found.scopes); err != nil {
		return nil, err
	}
	for _, a := range found.def.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, jsonrpc.ErrInvalidParams("invalid params: arguments." + a.Name + ": required")
		}
	}
	if r.modern() {
		if err := s.openRounds(r, p.Name, nil, p.Arguments, p.RequestState, p.InputResponses); err != nil {
			return nil, err
		}
	}
	res, err := s.runPrompt(ctx, found, p)
	if err := s.endRound(r, err); err != nil {
		return nil, err
	}
	return res, err
}

func (s *Server) runPrompt(ctx context.Context, found *prompt, p *mcp.GetPromptRequestParams) (res *mcp.GetPromptResult, err error) {
	defer s.recoverInto("prompt "+p.Name, &err)
	return found.handler(ctx, p)
}

// recoverInto turns a handler panic into an internal error.
func (s *Server) recoverInto(what string, err *error) {
	if v := recover(); v != nil {
		s.log.Error("handler panicked", "handler", what, "panic", v, "stack", string(debug.Stack()))
		*err = jsonrpc.ErrInternal(what + " failed: internal error")
	}
}

// ListResources lists the resources with fixed URIs.
func (d dispatcher) ListResources(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	s := d.srv
	if !s.holds(func() bool { return len(s.resources) > 0 || len(s.templates) > 0 }) {
		return nil, notOffered(mcp.MethodListResources)
	}
	resources, done := visibleList(ctx, s, &s.resources, EntryResource, resourceEntry)
	defer done()
	items, next, err := listPage(ctx, s, p, resources, func(x *resource) mcp.Resource { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourcesResult{Resources: items, NextCursor: next}, nil
}

// ListResourceTemplates lists the resource templates.
func (d dispatcher) ListResourceTemplates(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	s := d.srv
	if !s.holds(func() bool { return len(s.resources) > 0 || len(s.templates) > 0 }) {
		return nil, notOffered(mcp.MethodListResourceTemplates)
	}
	templates, done := visibleList(ctx, s, &s.templates, EntryTemplate, templateEntry)
	defer done()
	items, next, err := listPage(ctx, s, p, templates, func(x *template) mcp.ResourceTemplate { return x.def })
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next}, nil
}

// ReadResource reads a resource: a fixed URI first, then the templates in
// the order they were added.
func (d dispatcher) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	s := d.srv
	r := requestOf(ctx)
	res, tmpl, vars := s.findResource(p.URI)
	if res == nil && tmpl == nil {
		return nil, ResourceNotFound(p.URI)
	}
	if err := checkScopes(ctx, readScopes(res, tmpl)); err != nil {
		return nil, err
	}
	if r.modern() {
		if err := s.openRounds(r, p.URI, nil, nil, p.RequestState, p.InputResponses); err != nil {
			return nil, err
		}
	}
	out, err := s.runRead(ctx, res, tmpl, vars, p)
	if err := s.endRound(r, err); err != nil {
		return nil, err
	}
	if res != nil {
		r.caching = res.caching
	}
	return out, err
}

func (s *Server) runRead(ctx context.Context, res *resource, tmpl *template, vars map[string]string, p *mcp.ReadResourceRequestParams) (out *mcp.ReadResourceResult, err error) {
	defer s.recoverInto("resource "+p.URI, &err)
	if res != nil {
		return res.handler(ctx, p)
	}
	return tmpl.handler(ctx, p, vars)
}

// Subscribe asks for notifications/resources/updated about a URI, in a
// legacy session.
func (dispatcher) Subscribe(ctx context.Context, p *mcp.SubscribeRequestParams) (*mcp.EmptyResult, error) {
	sess := requestOf(ctx).session
	sess.mu.Lock()
	sess.subs[p.URI] = true
	sess.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// Unsubscribe stops them.
func (dispatcher) Unsubscribe(ctx context.Context, p *mcp.UnsubscribeRequestParams) (*mcp.EmptyResult, error) {
	sess := requestOf(ctx).session
	sess.mu.Lock()
	delete(sess.subs, p.URI)
	sess.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// Complete asks the completion handler.
func (d dispatcher) Complete(ctx context.Context, p *mcp.CompleteRequestParams) (r *mcp.CompleteResult, err error) {
	s := d.srv
	s.mu.RLock()
	h := s.completion
	s.mu.RUnlock()
	if h == nil {
		return nil, notOffered(mcp.MethodComplete)
	}
	defer s.recoverInto("completion", &err)
	return h(ctx, p)
}

// Discover tells a 2026-07-28 client what the server speaks and offers.
func (d dispatcher) Discover(ctx context.Context, _ *mcp.RequestParams) (*mcp.DiscoverResult, error) {
	s := d.srv
	versions := mcp.SupportedVersions()
	supported := make([]string, 0, len(versions))
	for i := len(versions) - 1; i >= 0; i-- { // newest first: the client's preference
		supported = append(supported, string(versions[i]))
	}
	return &mcp.DiscoverResult{
		SupportedVersions: supported,
		Capabilities:      s.capabilitiesFor(true),
		Instructions:      s.opts.Instructions,
	}, nil
}

// findPrompt returns the prompt named name, or nil.
func (s *Server) findPrompt(name string) *prompt {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found *prompt
	for _, x := range s.prompts {
		if x.def.Name == name {
			found = x
		}
	}
	return found
}

// findResource returns the resource of uri or, when none has it, the
// first template that matches it, with the template's variables.
func (s *Server) findResource(uri string) (*resource, *template, map[string]string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var res *resource
	for _, x := range s.resources {
		if x.def.URI == uri {
			res = x
		}
	}
	if res != nil {
		return res, nil, nil
	}
	for _, x := range s.templates {
		if v, ok := x.tmpl.Match(uri); ok {
			return nil, x, v
		}
	}
	return nil, nil, nil
}
