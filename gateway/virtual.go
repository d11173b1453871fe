package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// kind is what a registered name names.
type kind string

const (
	kindTool     kind = "tool"
	kindPrompt   kind = "prompt"
	kindResource kind = "resource"
	kindTemplate kind = "resource template"
	// kindCompletion is a completion/complete request, routed by the
	// prompt or template it completes.
	kindCompletion kind = "completion"
)

type entry struct {
	kind kind
	name string // downstream name, or URI / URI template
}

// CollisionError is two upstreams offering the same name (after their
// prefixes) on one virtual server.
type CollisionError struct {
	Server, Kind, Name string
	First, Second      string
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("virtual server %s: %s %q is offered by upstream %s and upstream %s; give one of them a prefix or a filter",
		e.Server, e.Kind, e.Name, e.First, e.Second)
}

// virtual is one virtual server: a server.Server whose tools, prompts and
// resources are those its upstreams list.
type virtual struct {
	g    *Gateway
	name string
	gov  atomic.Pointer[serverGov] // set by setGovern (govern.go)
	srv  *server.Server

	mu sync.Mutex // guards ups, owner, owned, synced and lists; held across a whole sync
	// ups are the upstreams in configuration order, the order of the
	// merged lists; a reload replaces the slice, never an element of it
	// (read it with upstreams).
	ups    []*upstream
	owner  map[entry]*upstream
	owned  map[*upstream][]entry
	synced map[*upstream]bool
	lists  *listState // what each upstream's entries came from (cache.go)

	// life ends when the server stops being served (removeServer, Close),
	// and with it the sessions Gateway.Serve opened on it.
	life context.Context
	end  context.CancelFunc
}

func newVirtual(g *Gateway, name string, srv *server.Server) *virtual {
	v := &virtual{g: g, name: name, srv: srv, owner: map[entry]*upstream{}, owned: map[*upstream][]entry{}, synced: map[*upstream]bool{}, lists: newListState()}
	v.life, v.end = context.WithCancel(context.Background())
	srv.SetCompletion(v.complete)
	return v
}

// upstreams returns the upstreams in configuration order.
func (v *virtual) upstreams() []*upstream {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ups
}

// listing is everything one upstream offers, after its filters, under
// downstream names.
type listing struct {
	tools []mcp.Tool
	// raw holds each tool's definition as pinning hashes it: under the
	// upstream's own name (toolDefinition).
	raw       []json.RawMessage
	prompts   []mcp.Prompt
	resources []mcp.Resource
	templates []mcp.ResourceTemplate
	// ttl is the shortest ttlMs of a 2026-07-28 upstream's list results
	// (cache.go): its lists are listed again when it expires, as well as
	// when subscriptions/listen says they changed, since the subscription
	// covers only the lists the upstream declares listChanged for, and
	// may be refused. nil for a legacy upstream, which notifies its
	// session of every change.
	ttl *time.Duration
}

func (v *virtual) list(ctx context.Context, u *upstream, s *client.Session) (*listing, error) {
	var l listing
	caps := s.ServerCapabilities()
	prefix := u.cfg.PrefixOf()
	if s.Era() == mcp.EraModern {
		l.ttl = unknownTTL()
	}
	if caps == nil || caps.Tools != nil {
		for t, err := range allTools(ctx, s, &l) {
			if err != nil {
				return nil, fmt.Errorf("upstream %s: tools/list: %w", u.cfg.Name, err)
			}
			if u.cfg.Keeps(t.Name) {
				raw, err := toolDefinition(t)
				if err != nil {
					return nil, fmt.Errorf("upstream %s: tool %q: %w", u.cfg.Name, t.Name, err)
				}
				l.raw = append(l.raw, raw)
				t.Name = prefix + t.Name
				l.tools = append(l.tools, t)
			}
		}
	}
	if caps == nil || caps.Prompts != nil {
		for p, err := range allPrompts(ctx, s, &l) {
			if err != nil {
				return nil, fmt.Errorf("upstream %s: prompts/list: %w", u.cfg.Name, err)
			}
			if u.cfg.Keeps(p.Name) {
				p.Name = prefix + p.Name
				l.prompts = append(l.prompts, p)
			}
		}
	}
	if caps == nil || caps.Resources != nil {
		for r, err := range allResources(ctx, s, &l) {
			if err != nil {
				return nil, fmt.Errorf("upstream %s: resources/list: %w", u.cfg.Name, err)
			}
			l.resources = append(l.resources, r)
		}
		for t, err := range allTemplates(ctx, s, &l) {
			if err != nil {
				return nil, fmt.Errorf("upstream %s: resources/templates/list: %w", u.cfg.Name, err)
			}
			l.templates = append(l.templates, t)
		}
	}
	return &l, nil
}

// sync lists the upstream and makes the virtual server offer exactly what
// it listed, less the tools pinning quarantines (pinning.go). A name
// another upstream already offers is refused with a CollisionError, and
// nothing of this listing is registered.
func (v *virtual) sync(ctx context.Context, u *upstream, s *client.Session) error {
	l, err := v.list(ctx, u, s)
	if err != nil {
		return err
	}
	v.mu.Lock()
	if v.unchangedLocked(u, l) {
		v.mu.Unlock()
		v.g.pins.refresh(v.g.log) // a lock approved since still applies
		return nil
	}
	defer v.mu.Unlock()
	return v.applyLocked(u, l)
}

// applyLocked registers the listing l of u in place of what u offered
// before. A quarantined tool still takes its name (a collision is a
// collision), but is not registered. v.mu is held.
func (v *virtual) applyLocked(u *upstream, l *listing) error {
	var want []entry
	for _, t := range l.tools {
		want = append(want, entry{kindTool, t.Name})
	}
	for _, p := range l.prompts {
		want = append(want, entry{kindPrompt, p.Name})
	}
	for _, r := range l.resources {
		want = append(want, entry{kindResource, r.URI})
	}
	for _, t := range l.templates {
		want = append(want, entry{kindTemplate, t.URITemplate})
	}
	seen := map[entry]bool{}
	for _, e := range want {
		if o := v.owner[e]; (o != nil && o != u) || seen[e] {
			first := u.cfg.Name
			if o != nil {
				first = o.cfg.Name
			}
			return &CollisionError{Server: v.name, Kind: string(e.kind), Name: e.name, First: first, Second: u.cfg.Name}
		}
		seen[e] = true
	}
	v.dropLocked(u)
	if err := v.registerLocked(u, l, true); err != nil {
		v.dropLocked(u)
		return err
	}
	v.synced[u] = true
	v.listedLocked(u, l)
	return nil
}

// registerLocked adds what l lists to the virtual server, with u as its
// owner when own is set; without it, the entries are already u's and are
// added again only to move them to the end of the server's lists. A tool
// pinning quarantines (pinning.go) keeps its name but is not added.
func (v *virtual) registerLocked(u *upstream, l *listing, own bool) error {
	prefix := u.cfg.PrefixOf()
	note := func(e entry) {
		if own {
			v.own(u, e)
		}
	}
	var held []error
	if own {
		held = v.g.pins.check(v, u, l)
	}
	for i, t := range l.tools {
		if (own && held[i] != nil) || (!own && v.quarantined(t.Name) != nil) {
			note(entry{kindTool, t.Name}) // held back, but the name stays taken
			continue
		}
		upName := strings.TrimPrefix(t.Name, prefix)
		if err := v.srv.AddTool(t, v.callTool(u, t, upName), upstreamValidates(t)...); err != nil {
			return fmt.Errorf("upstream %s: tool %s: %w", u.cfg.Name, t.Name, err)
		}
		note(entry{kindTool, t.Name})
	}
	for _, p := range l.prompts {
		upName := strings.TrimPrefix(p.Name, prefix)
		if err := v.srv.AddPrompt(p, v.getPrompt(u, p.Name, upName)); err != nil {
			return fmt.Errorf("upstream %s: prompt %s: %w", u.cfg.Name, p.Name, err)
		}
		note(entry{kindPrompt, p.Name})
	}
	for _, r := range l.resources {
		if err := v.srv.AddResource(r, v.readResource(u)); err != nil {
			return fmt.Errorf("upstream %s: resource %s: %w", u.cfg.Name, r.URI, err)
		}
		note(entry{kindResource, r.URI})
	}
	for _, t := range l.templates {
		read := v.readResource(u)
		h := func(ctx context.Context, p *mcp.ReadResourceRequestParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return read(ctx, p)
		}
		if err := v.srv.AddResourceTemplate(t, h); err != nil {
			return fmt.Errorf("upstream %s: resource template %s: %w", u.cfg.Name, t.URITemplate, err)
		}
		note(entry{kindTemplate, t.URITemplate})
	}
	return nil
}

// upstreamValidates leaves a tool's arguments and structured content to
// the upstream that owns the tool: it checks them against its own schema,
// and a second check here would only add latency and a second opinion.
// The output validator is given only to a tool with an output schema: with
// one, the server requires structuredContent in every result.
func upstreamValidates(t mcp.Tool) []server.ToolOption {
	opts := []server.ToolOption{server.WithInputValidator(func([]byte) error { return nil })}
	if t.OutputSchema != nil {
		opts = append(opts, server.WithOutputValidator(func([]byte) error { return nil }))
	}
	if t.Execution != nil && t.Execution.TaskSupport != "" && t.Execution.TaskSupport != "forbidden" {
		// The forward decides whether the call is the upstream's task or
		// one the gateway runs (tasks.go).
		opts = append(opts, server.WithInputBeforeTask())
	}
	return opts
}

func (v *virtual) own(u *upstream, e entry) {
	v.owner[e] = u
	v.owned[u] = append(v.owned[u], e)
}

// drop unregisters everything the upstream offered.
func (v *virtual) drop(u *upstream) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dropLocked(u)
	delete(v.synced, u)
}

func (v *virtual) dropLocked(u *upstream) {
	v.forgetLocked(u)
	v.g.pins.forget(v, u)
	for _, e := range v.owned[u] {
		delete(v.owner, e)
		switch e.kind {
		case kindTool:
			v.srv.RemoveTool(e.name)
		case kindPrompt:
			v.srv.RemovePrompt(e.name)
		case kindResource:
			v.srv.RemoveResource(e.name)
		case kindTemplate:
			v.srv.RemoveResourceTemplate(e.name)
		}
	}
	delete(v.owned, u)
}

// op is one downstream request the virtual server routes to an
// upstream: what governance (govern.go) and observation (observe.go) see.
type op struct {
	kind   kind   // kindTool, kindPrompt, kindResource (templates read as resources) or kindCompletion
	name   string // the name the client used (prefix included), or the URI
	upName string // the upstream's own name for it; the URI for a resource
	u      *upstream
	// args are a tool call's arguments, or a prompt's arguments as a
	// JSON object; nil for other kinds.
	args json.RawMessage
	// tool is the tool's definition as the virtual server lists it (nil
	// for other kinds).
	tool *mcp.Tool
}

// route runs one downstream request: observation and governance around
// the forward to the upstream. finish and end hear the forward's result
// (a *mcp.CallToolResult, *mcp.GetPromptResult, ...) or error.
func route[R any](ctx context.Context, v *virtual, o *op, forward func(ctx context.Context) (R, error)) (R, error) {
	var zero R
	ctx, end := v.observe(ctx, o)
	ctx, finish, err := v.admit(ctx, o)
	if err != nil {
		end(nil, &refusal{err})
		return zero, err
	}
	r, err := forward(ctx)
	if err == nil {
		own(r)
	}
	finish(r, err)
	end(r, err)
	return r, err
}

func (v *virtual) callTool(u *upstream, def mcp.Tool, upName string) server.ToolHandler {
	return func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		o := &op{kind: kindTool, name: def.Name, upName: upName, u: u, args: p.Arguments, tool: &def}
		return route(ctx, v, o, func(ctx context.Context) (*mcp.CallToolResult, error) {
			return u.callTool(ctx, upName, p)
		})
	}
}

func (v *virtual) getPrompt(u *upstream, name, upName string) server.PromptHandler {
	return func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		var args json.RawMessage
		if len(p.Arguments) > 0 {
			args, _ = json.Marshal(p.Arguments)
		}
		o := &op{kind: kindPrompt, name: name, upName: upName, u: u, args: args}
		return route(ctx, v, o, func(ctx context.Context) (*mcp.GetPromptResult, error) {
			return u.getPrompt(ctx, upName, p)
		})
	}
}

func (v *virtual) readResource(u *upstream) server.ResourceHandler {
	return func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		o := &op{kind: kindResource, name: p.URI, upName: p.URI, u: u}
		return route(ctx, v, o, func(ctx context.Context) (*mcp.ReadResourceResult, error) {
			return u.readResource(ctx, p)
		})
	}
}

// complete routes completion/complete to the upstream that offers the
// prompt or resource template it names.
func (v *virtual) complete(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	q := *p
	var u *upstream
	name := ""
	v.mu.Lock()
	switch ref := p.Ref.Value.(type) {
	case *mcp.PromptReference:
		name = ref.Name
		u = v.owner[entry{kindPrompt, ref.Name}]
		if u != nil {
			r := *ref
			r.Name = strings.TrimPrefix(ref.Name, u.cfg.PrefixOf())
			q.Ref.Value = &r
		}
	case *mcp.ResourceTemplateReference:
		name = ref.URI
		u = v.owner[entry{kindTemplate, ref.URI}]
	}
	v.mu.Unlock()
	if u == nil {
		return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{}}}, nil
	}
	o := &op{kind: kindCompletion, name: name, upName: name, u: u}
	return route(ctx, v, o, func(ctx context.Context) (*mcp.CompleteResult, error) {
		return u.complete(ctx, name, &q)
	})
}
