package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/gateway/audit"
	"github.com/mcpgen/mcpgen/gateway/authz"
	"github.com/mcpgen/mcpgen/gateway/policy"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Governance: who sees and may use what (authz), the limits a request
// passes (policy), and the line each request leaves (audit).
//
// A request routed to an upstream passes, in order: the authorization
// rules (a denied entry answers as an unknown one, completions of it
// included, and lists never show it: see govern_views.go), the pin check, a human's approval for a
// destructive tool, the rate limits per principal and per tool, the
// upstream's concurrency limit and timeout, and its circuit breaker.
// Each refusal, and each forwarded request once answered, is one audit
// line.
//
// Approvals are part of the policy section: a virtual server without one
// forwards every call as it comes, as a transparent proxy should; with
// one, a tool needs an approval when policy.Destructive says so (the
// upstream's annotations, as MCP reads them, or the section's approval
// overrides).

// governance is the gateway-wide part of authorization, policy and audit:
// the audit log, and each virtual server's compiled sections.
type governance struct {
	log   *slog.Logger
	audit *audit.Logger // nil when the configuration has no audit section
	// now is the clock of rate limits and breakers; tests step it.
	now func() time.Time
}

// serverGov is one virtual server's governance.
type serverGov struct {
	cur   atomic.Pointer[sections] // swapped whole by setGovern
	views *server.Views            // the callers' filtered lists
}

// sections is what a virtual server's authz and policy sections compile
// to.
type sections struct {
	trust string
	rules *authz.Rules // nil allows everything
	// approvals says the server has a policy section: destructive tools
	// need a human's approval.
	approvals             bool
	approval              []policy.Approval
	perPrincipal, perTool *policy.Limiter
	limits                policy.Config        // what the limiters were made of, to keep them across reloads
	ups                   map[string]*upPolicy // by upstream name
}

// upPolicy is one upstream's concurrency limit, timeout and breaker.
type upPolicy struct {
	cfg     policy.UpstreamConfig
	sem     *policy.Semaphore
	breaker *policy.Breaker
}

// auditTimeout bounds how long close waits for queued audit lines.
const auditTimeout = 5 * time.Second

func newGovernance(cfg *Config, log *slog.Logger) (*governance, error) {
	g := &governance{log: log, now: time.Now}
	if cfg.Audit != nil {
		l, err := audit.Open(*cfg.Audit)
		if err != nil {
			return nil, err // it says "audit:"
		}
		g.audit = l
	}
	return g, nil
}

func (g *governance) close() error {
	if g.audit == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), auditTimeout)
	defer cancel()
	return g.audit.Close(ctx)
}

// clock is the time for limiters and breakers, read through g so that
// tests can step it.
func (g *governance) clock() time.Time { return g.now() }

func (g *governance) record(r audit.Record) {
	if g.audit != nil {
		g.audit.Log(r)
	}
}

// sectionsOf returns the virtual server's current sections; nil before
// setGovern, which allows everything.
func (v *virtual) sectionsOf() *sections {
	if sg := v.gov.Load(); sg != nil {
		return sg.cur.Load()
	}
	return nil
}

// admit decides whether the request o may go to its upstream. When it may,
// finish must be called with the forward's result or error.
func (v *virtual) admit(ctx context.Context, o *op) (context.Context, func(res any, err error), error) {
	gov := v.g.gov
	sec := v.sectionsOf()
	start := time.Now()
	p := callerOf(ctx)
	rec := audit.Record{
		Time:      start,
		Principal: audit.Principal(p.Subject, p.Issuer),
		Server:    v.name,
		Upstream:  o.u.cfg.Name,
		Name:      o.name,
		Method:    methodOf(o.kind),
		Arguments: o.args,
	}
	refuse := func(d audit.Decision, reason string, err error) (context.Context, func(any, error), error) {
		rec.Decision, rec.Reason, rec.Latency = d, reason, time.Since(start)
		gov.record(rec)
		noteAudited(ctx)
		return ctx, nil, err
	}
	if sec == nil {
		sec = &sections{}
	}
	rec.Trust = sec.trust

	if sec.rules != nil && !v.vetted() {
		if d := v.decide(ctx, sec.rules, p, v.authzRequest(o.kind, o.name, o.u, o.tool, sec)); !d.Allowed {
			reason := "rule " + d.Rule
			if len(d.Errors) > 0 {
				reason += ": " + errors.Join(d.Errors...).Error()
			}
			return refuse(audit.Denied, reason, unknownError(o))
		}
	}
	if err := v.quarantined(o.name); err != nil {
		return refuse(audit.Quarantined, err.Error(), err)
	}
	if o.kind == kindTool && sec.approvals && policy.Destructive(o.name, annotationsOf(o.tool), sec.approval) {
		if err := approve(ctx, o); err != nil {
			d := audit.ApprovalDeclined
			if errors.Is(err, server.ErrInputRequired) {
				d = audit.ApprovalAsked
			}
			return refuse(d, err.Error(), err)
		}
	}
	if o.kind == kindTool && (sec.perPrincipal != nil || sec.perTool != nil) {
		// The buckets are keyed by callerKey, not the audit's
		// subject@issuer, which two callers may share.
		who, key := rec.Principal, callerKey(p)
		if err := sec.perPrincipal.Allow(key); err != nil {
			return refuse(audit.RateLimited, "per principal", rateLimited(err, "tool calls by "+who))
		}
		if err := sec.perTool.Allow(policy.ToolKey(key, o.name)); err != nil {
			return refuse(audit.RateLimited, "per tool", rateLimited(err, "calls of tool "+strconv.Quote(o.name)+" by "+who))
		}
	}
	up := sec.ups[o.u.cfg.Name]
	if up == nil {
		up = &upPolicy{}
	}
	cancel := context.CancelFunc(func() {})
	if up.cfg.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, up.cfg.Timeout)
	}
	release, err := up.sem.Acquire(ctx)
	if err != nil {
		cancel()
		return refuse(audit.RateLimited, "concurrency", err)
	}
	if err := up.breaker.Allow(); err != nil {
		release()
		cancel()
		return refuse(audit.RateLimited, "circuit open", err)
	}
	var once sync.Once
	finish := func(res any, err error) {
		once.Do(func() {
			release()
			up.breaker.Done(upstreamFailed(ctx, err))
			cancel()
			rec.Latency = time.Since(start)
			rec.Decision = audit.Allowed
			switch {
			case errors.Is(err, server.ErrInputRequired):
				rec.Reason = "input required" // the round's answers come with the retry
			case errors.Is(err, server.ErrRelayed):
				rec.Reason = "relayed" // a task handle or a round, handed on as it came
			case err != nil:
				rec.Decision, rec.Reason = audit.Error, err.Error()
			}
			if gov.audit != nil {
				rec.ResultSize = resultSize(res)
			}
			gov.record(rec)
			noteAudited(ctx)
		})
	}
	return ctx, finish, nil
}

// unknownError is what a request for an entry the caller may not see
// gets: the engine's answer to a name nothing registered has.
func unknownError(o *op) error {
	switch o.kind {
	case kindTool:
		return jsonrpc.ErrInvalidParams("invalid params: name: unknown tool " + strconv.Quote(o.name))
	case kindPrompt:
		return jsonrpc.ErrInvalidParams("invalid params: name: unknown prompt " + strconv.Quote(o.name))
	case kindResource, kindTemplate:
		return server.ResourceNotFound(o.name)
	}
	return jsonrpc.ErrInvalidParams("invalid params: ref: unknown prompt or resource template " + strconv.Quote(o.name))
}

// rateLimited is the error of a call over a rate limit: CodeRateLimited
// with the wait in its data, which the Streamable HTTP transport turns
// into a Retry-After header.
func rateLimited(err error, what string) error {
	var rl *policy.RateLimitError
	if !errors.As(err, &rl) {
		return err
	}
	ms := rl.RetryAfter.Milliseconds()
	if rl.RetryAfter%time.Millisecond != 0 {
		ms++
	}
	e := jsonrpc.NewError(server.CodeRateLimited, "rate limit exceeded for "+what+": retry after "+(time.Duration(ms)*time.Millisecond).String())
	e.Data = fmt.Appendf(nil, `{"retryAfterMs":%d}`, ms)
	return e
}

// upstreamFailed says whether err counts against the upstream's breaker:
// the upstream failed, timed out or could not be reached. A protocol
// error it answered with (bad params, an unknown name), a tool's own
// isError result, a question for the client and the downstream client
// giving up are not its failures.
func upstreamFailed(ctx context.Context, err error) bool {
	if err == nil || answered(err) {
		return false
	}
	if errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return false
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc.Code == jsonrpc.CodeInternalError
	}
	return true
}

// resultSize is the size of a forward's result as JSON, 0 when there is
// none.
func resultSize(res any) int64 {
	m, ok := res.(interface{ MarshalJSON() ([]byte, error) })
	if !ok || reflect.ValueOf(res).IsNil() {
		return 0
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return 0
	}
	return int64(len(b))
}

// validateGovern checks a virtual server's authz and policy sections:
// the rules compile here, so that a mistake is reported with its line when
// the configuration is loaded, not when a request comes.
func (s *ServerConfig) validateGovern(where string, bad badFunc) error {
	if s.Authz != nil {
		if _, err := authz.Compile(*s.Authz); err != nil {
			line := 0
			var re *authz.RuleError
			if errors.As(err, &re) && re.Index < len(s.Authz.Rules) && s.Authz.Rules[re.Index].Line > 0 {
				line = s.Authz.Rules[re.Index].Line + max(re.Line-1, 0)
			}
			return bad(line, "%s.authz: %v", where, err)
		}
	}
	if s.Policy != nil {
		c := s.Policy
		for _, r := range []struct {
			name string
			cfg  policy.RateConfig
		}{{"perPrincipal", c.PerPrincipal}, {"perTool", c.PerTool}} {
			if _, err := policy.NewLimiter(r.cfg, c.MaxBuckets, nil); err != nil {
				return bad(0, "%s.policy.%s: %v", where, r.name, err)
			}
		}
		if c.MaxBuckets < 0 {
			return bad(0, "%s.policy.maxBuckets: must not be negative", where)
		}
		for i, a := range c.Approval {
			if a.Tool == "" {
				return bad(0, "%s.policy.approval[%d]: tool: missing (a glob of tool names)", where, i)
			}
			if _, err := matchGlob(a.Tool); err != nil {
				return bad(0, "%s.policy.approval[%d]: glob %q: %v", where, i, a.Tool, err)
			}
		}
	}
	for i, u := range s.Upstreams {
		if u == nil || u.Policy == nil {
			continue
		}
		p := u.Policy
		b := p.Breaker
		switch {
		case p.MaxConcurrent < 0:
			return bad(u.line, "%s.upstreams[%d] (%s): policy.maxConcurrent must not be negative", where, i, u.Name)
		case p.Timeout < 0:
			return bad(u.line, "%s.upstreams[%d] (%s): policy.timeout must not be negative", where, i, u.Name)
		case b.Failures < 0 || b.MinCalls < 0 || b.Window < 0 || b.Cooldown < 0:
			return bad(u.line, "%s.upstreams[%d] (%s): policy.breaker: failures, minCalls, window and cooldown must not be negative", where, i, u.Name)
		case b.FailureRatio < 0 || b.FailureRatio > 1:
			return bad(u.line, "%s.upstreams[%d] (%s): policy.breaker.failureRatio must be between 0 and 1", where, i, u.Name)
		}
	}
	return nil
}

// vetted reports whether the callers' views (govern_views.go) decide the
// rules for every request before it is dispatched: one naming an entry
// the caller may not see is answered as one naming nothing, and never
// reaches admit, which need not run the rules a second time. A request
// that raced a reload of the rules is decided by those it started with.
func (v *virtual) vetted() bool {
	sg := v.gov.Load()
	return sg != nil && sg.views != nil
}

// setGovern makes the virtual server use the authz and policy sections of
// sc, as a reload of the configuration changed them. The first call,
// when the gateway is built, also puts the callers' views and the audit
// of lists in front of the server. Rate-limit buckets, concurrency slots
// and breakers whose settings did not change are kept. Calls for one
// virtual server must not overlap.
func (v *virtual) setGovern(sc *ServerConfig) error {
	gov := v.g.gov
	sg, first := v.gov.Load(), false
	if sg == nil {
		sg, first = &serverGov{}, true
	}
	old := sg.cur.Load()
	sec, err := gov.compile(v.name, sc, old)
	if err != nil {
		return err
	}
	sg.cur.Store(sec)
	if first {
		v.gov.Store(sg)
		if sc.filtersPerCaller() {
			v.srv.Use(v.hideCompletions)
			sg.views = v.srv.SetVisibility(callerViews{v}, 0)
		}
		return nil
	}
	v.refreshViews()
	return nil
}

// filtersPerCaller reports whether the authz section can show callers
// different lists. Whether it does is fixed for the life of a virtual
// server (its lists are marked private, and are filtered); a reload that
// changes it builds the server anew (reload.go).
func (sc *ServerConfig) filtersPerCaller() bool {
	a := sc.Authz
	return a != nil && (len(a.Rules) > 0 || a.Default == authz.Deny)
}

// compile turns sc's sections into the sections of the virtual server
// name, keeping from old what did not change.
func (g *governance) compile(name string, sc *ServerConfig, old *sections) (*sections, error) {
	sec := &sections{trust: sc.Trust, ups: map[string]*upPolicy{}}
	if sc.Authz != nil {
		rules, err := authz.Compile(*sc.Authz)
		if err != nil {
			return nil, fmt.Errorf("virtual server %s: %w", name, err)
		}
		sec.rules = rules
	}
	if c := sc.Policy; c != nil {
		sec.approvals, sec.approval, sec.limits = true, c.Approval, *c
		if old != nil && old.limits.PerPrincipal == c.PerPrincipal && old.limits.PerTool == c.PerTool && old.limits.MaxBuckets == c.MaxBuckets {
			sec.perPrincipal, sec.perTool = old.perPrincipal, old.perTool
		} else {
			var err error
			if sec.perPrincipal, err = policy.NewLimiter(c.PerPrincipal, c.MaxBuckets, g.clock); err != nil {
				return nil, fmt.Errorf("virtual server %s: policy.perPrincipal: %w", name, err)
			}
			if sec.perTool, err = policy.NewLimiter(c.PerTool, c.MaxBuckets, g.clock); err != nil {
				return nil, fmt.Errorf("virtual server %s: policy.perTool: %w", name, err)
			}
		}
	}
	for _, u := range sc.Upstreams {
		if u == nil || u.Policy == nil {
			continue
		}
		if old != nil {
			if prev := old.ups[u.Name]; prev != nil && prev.cfg == *u.Policy {
				sec.ups[u.Name] = prev
				continue
			}
		}
		sec.ups[u.Name] = &upPolicy{
			cfg:     *u.Policy,
			sem:     policy.NewSemaphore(u.Name, u.Policy.MaxConcurrent),
			breaker: policy.NewBreaker(u.Name, u.Policy.Breaker, g.clock),
		}
	}
	return sec, nil
}
