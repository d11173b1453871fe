package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/gateway/audit"
	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/gateway/policy"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// What each caller sees: the virtual server's authorization rules decide,
// per caller, which entries its lists hold; an entry they deny is Hidden
// (a call of it answers as one of an unknown name). A quarantined tool is
// not registered at all (pinning.go); one quarantined while a list was
// being decided is Unlisted, so that a call of it reaches pinGuard, which
// says why it is refused. The engine keeps each caller's filtered lists under the
// digest of everything the rules read of the caller, so the rules run
// once per caller and registry change, not once per list.

// callerViews is the server.Visibility of a virtual server.
type callerViews struct{ v *virtual }

// Sight decides what the caller of ctx sees of e.
func (c callerViews) Sight(ctx context.Context, e server.Entry) server.Sight {
	v := c.v
	k := kindOf(e.Kind)
	v.mu.Lock()
	u := v.owner[entry{k, e.Name}]
	v.mu.Unlock()
	if u == nil {
		return server.Shown // not an upstream's: the gateway's own, if ever
	}
	sec := v.sectionsOf()
	if sec == nil {
		sec = &sections{}
	}
	if sec.rules != nil && !v.decide(ctx, sec.rules, callerOf(ctx), v.authzRequest(k, e.Name, u, e.Tool, sec)).Allowed {
		return server.Hidden
	}
	if k == kindTool && v.quarantined(e.Name) != nil {
		return server.Unlisted
	}
	return server.Shown
}

// decide runs the rules for p and req, logging the rules that failed to
// evaluate: a failed deny rule denies and a failed allow rule is passed
// over, which an operator should hear of rather than find out.
func (v *virtual) decide(ctx context.Context, rules *authz.Rules, p authz.Principal, req authz.Request) authz.Decision {
	d := rules.Decide(ctx, p, req)
	if len(d.Errors) > 0 && ctx.Err() == nil {
		v.g.log.Warn("authz: rules failed to evaluate", "server", v.name, "rule", d.Rule, "err", errors.Join(d.Errors...))
	}
	return d
}

// visibleTool returns the definition of the tool name as the caller of
// ctx may call it: false for one that is not registered (a quarantined
// tool is not), or that the rules hide from the caller, as its lists
// leave them out.
func (v *virtual) visibleTool(ctx context.Context, name string) (mcp.Tool, bool) {
	t, ok := v.srv.Tool(name)
	if !ok {
		return t, false
	}
	return t, callerViews{v}.Sight(ctx, server.Entry{Kind: server.EntryTool, Name: name, Tool: &t}) == server.Shown
}

// ViewKey digests what the rules may read of the caller.
func (c callerViews) ViewKey(ctx context.Context) string {
	return viewKey(callerOf(ctx))
}

// viewKey is the digest of a principal's identity, scopes and claims; ""
// (decide every time) for claims that do not encode.
func viewKey(p authz.Principal) string {
	scopes := slices.Clone(p.Scopes)
	slices.Sort(scopes)
	b, err := json.Marshal([]any{p.Subject, p.Issuer, scopes, p.Claims})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// refreshViews makes every caller's lists be decided afresh, and tells
// the clients that their lists changed: for a change the rules read that
// re-registering nothing (a tool quarantined or approved).
func (v *virtual) refreshViews() {
	if sg := v.gov.Load(); sg != nil && sg.views != nil {
		sg.views.Reset()
	}
}

func kindOf(k server.EntryKind) kind {
	switch k {
	case server.EntryTool:
		return kindTool
	case server.EntryPrompt:
		return kindPrompt
	case server.EntryResource:
		return kindResource
	}
	return kindTemplate
}

// authzRequest is the request the rules decide on for the entry of kind
// k named name, offered by u; tool is its definition for a tool.
func (v *virtual) authzRequest(k kind, name string, u *upstream, tool *mcp.Tool, sec *sections) authz.Request {
	req := authz.Request{Name: name, Upstream: u.cfg.Name, Server: v.name}
	switch k {
	case kindTool:
		req.Kind = authz.KindTool
		ann := annotationsOf(tool)
		req.Annotations = ann
		req.ReadOnly, _ = ann["readOnlyHint"].(bool)
		req.Destructive = policy.Destructive(name, ann, sec.approval)
	case kindPrompt:
		req.Kind = authz.KindPrompt
	case kindCompletion:
		// A completion is decided as the prompt or template it
		// completes.
		req.Kind = authz.KindResource
		v.mu.Lock()
		if v.owner[entry{kindPrompt, name}] != nil {
			req.Kind = authz.KindPrompt
		}
		v.mu.Unlock()
	default:
		req.Kind = authz.KindResource
	}
	return req
}

// annotationsOf is a tool's annotations as the upstream sent them, as
// decoded JSON; nil when it sent none.
func annotationsOf(t *mcp.Tool) map[string]any {
	if t == nil || t.Annotations == nil {
		return nil
	}
	b, err := t.Annotations.MarshalJSON()
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// auditRequests is the middleware that writes the audit line of each
// list a client asks for, and of each call, get or read that admit did
// not see: one naming an entry the caller may not see (answered as an
// unknown one before it is routed), or refused by the engine. It is the
// outermost middleware of the virtual server, so it sees those answers.
func (v *virtual) auditRequests(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		gov := v.g.gov
		if gov.audit == nil {
			return next(ctx, req)
		}
		var n *auditNote
		switch req.Method {
		case mcp.MethodListTools, mcp.MethodListPrompts, mcp.MethodListResources, mcp.MethodListResourceTemplates:
		case mcp.MethodCallTool, mcp.MethodGetPrompt, mcp.MethodReadResource:
			n = &auditNote{}
			ctx = context.WithValue(ctx, auditNoteKey{}, n)
		default:
			return next(ctx, req)
		}
		start := time.Now()
		msg, err := next(ctx, req)
		if n != nil && (n.written.Load() || err == nil) {
			// admit wrote it; or the engine took the call as a task, whose
			// handler, and admit with it, runs after this returns.
			return msg, err
		}
		p := callerOf(ctx)
		rec := audit.Record{
			Time:      start,
			Principal: audit.Principal(p.Subject, p.Issuer),
			Server:    v.name,
			Method:    req.Method,
			Decision:  audit.Allowed,
			Latency:   time.Since(start),
		}
		if sec := v.sectionsOf(); sec != nil {
			rec.Trust = sec.trust
		}
		switch {
		case n != nil: // refused before admit
			var params struct {
				Name      string          `json:"name"`
				URI       string          `json:"uri"`
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &params)
			rec.Name, rec.Arguments = params.Name+params.URI, params.Arguments
			rec.Decision, rec.Reason = audit.Denied, "not routed: "+fmt.Sprint(err)
			if req.Method == mcp.MethodCallTool && v.quarantined(params.Name) != nil {
				rec.Decision, rec.Reason = audit.Quarantined, fmt.Sprint(err)
			}
		case err != nil:
			rec.Decision, rec.Reason = audit.Error, err.Error()
		default:
			rec.ResultSize = resultSize(msg)
		}
		gov.record(rec)
		return msg, err
	}
}

// hideCompletions answers a completion/complete whose ref names a prompt
// or resource template hidden from the caller as complete answers a ref
// that names nothing: with no values, so that completions cannot probe
// either.
func (v *virtual) hideCompletions(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		if req.Method != mcp.MethodComplete {
			return next(ctx, req)
		}
		var p struct {
			Ref struct {
				Type string `json:"type"`
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"ref"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return next(ctx, req)
		}
		e := server.Entry{Kind: server.EntryPrompt, Name: p.Ref.Name}
		if p.Ref.Type == "ref/resource" {
			e = server.Entry{Kind: server.EntryTemplate, Name: p.Ref.URI}
		}
		if (callerViews{v}).Sight(ctx, e) != server.Hidden {
			return next(ctx, req)
		}
		return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{}}}, nil
	}
}

// auditNote tells auditRequests that admit wrote a request's line.
type auditNote struct{ written atomic.Bool }

type auditNoteKey struct{}

// noteAudited marks the request ctx serves as written to the audit log.
func noteAudited(ctx context.Context) {
	if n, ok := ctx.Value(auditNoteKey{}).(*auditNote); ok {
		n.written.Store(true)
	}
}

// matchGlob checks a glob of names (path.Match).
func matchGlob(glob string) (bool, error) { return path.Match(glob, "") }
