package authz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"
)

// DefaultCostLimit is the CEL cost limit of one rule's evaluation when
// Config.CostLimit is zero. A cost unit is roughly one operation; a rule
// that compares a few claims costs a few dozen, and a comprehension over a
// list of a hundred scopes some hundreds.
const DefaultCostLimit = 100_000

// MaxRuleLength is the longest expression, in bytes, a rule may have.
const MaxRuleLength = 4096

// Effect is what a rule, or the default, decides: Allow or Deny.
type Effect string

// The effects.
const (
	Allow Effect = "allow"
	Deny  Effect = "deny"
)

// Kind is the kind of entry a request names.
type Kind string

// The kinds of entries rules decide on. Resource templates are of
// KindResource too, named by their URI template.
const (
	KindTool     Kind = "tool"
	KindPrompt   Kind = "prompt"
	KindResource Kind = "resource"
)

// Config is the authorization section of the gateway's configuration, for
// one virtual server or for all of them.
type Config struct {
	// Default decides when no rule matches. Empty means deny when Rules
	// has a rule, and allow when it has none.
	Default Effect `yaml:"default,omitempty"`
	// CostLimit bounds the CEL cost of each rule's evaluation; zero means
	// DefaultCostLimit. A rule that exceeds it fails (see the package
	// documentation for what a failure decides).
	CostLimit uint64 `yaml:"costLimit,omitempty"`
	// Rules are tried in order; the first that matches decides.
	Rules []Rule `yaml:"rules,omitempty"`
}

// Rule is one allow or deny rule: exactly one of Allow and Deny holds a
// CEL expression of type bool, true when the rule matches.
type Rule struct {
	// Name names the rule in decisions, audit lines and errors; it must
	// be unique within its Config. Empty means "rule N", N counted from 1.
	Name string `yaml:"name,omitempty"`
	// Allow is the expression of an allow rule.
	Allow string `yaml:"allow,omitempty"`
	// Deny is the expression of a deny rule.
	Deny string `yaml:"deny,omitempty"`
	// Line is the line of the expression's first line in the
	// configuration file, 0 when unknown: UnmarshalYAML sets it, so that
	// errors point into the file.
	Line int `yaml:"-"`
}

// Principal is the caller a decision is made for. The zero Principal is
// the anonymous caller of a gateway without authentication.
type Principal struct {
	// Subject and Issuer identify the caller; both are empty for an
	// anonymous caller.
	Subject string
	Issuer  string
	// Claims are the token's claims as decoded JSON (numbers are
	// float64, objects map[string]any, arrays []any). Rules only read
	// them.
	Claims map[string]any
	// Scopes are the scopes the token grants.
	Scopes []string
}

// Anonymous reports whether p carries no identity.
func (p Principal) Anonymous() bool { return p.Subject == "" && p.Issuer == "" }

// Request is the entry a decision is about: one the caller lists, calls,
// gets or reads.
type Request struct {
	Kind Kind
	// Name is the name the client sees, prefix included; for a resource
	// its URI, for a resource template its URI template.
	Name string
	// Upstream is the name of the upstream server that serves the entry.
	Upstream string
	// Server is the name of the virtual server the client reached.
	Server string
	// Annotations are the tool's annotations as the upstream sent them
	// (readOnlyHint, destructiveHint, ...), nil for other kinds.
	Annotations map[string]any
	// Destructive says the gateway treats the tool as destructive
	// (policy.Destructive decides it).
	Destructive bool
	// ReadOnly says the upstream marked the tool read-only.
	ReadOnly bool
}

// Decision is the outcome of Rules.Decide.
type Decision struct {
	// Allowed says whether the caller may see or use the entry.
	Allowed bool
	// Rule is the name of the rule that decided, or "default".
	Rule string
	// Index is the position of the rule that decided in Config.Rules,
	// or -1 when the default decided.
	Index int
	// Errors are the evaluation failures of the rules tried, each a
	// *EvalError. A failed deny rule decides (and is the last of them);
	// failed allow rules were skipped.
	Errors []error
}

// RuleError is a rule the configuration cannot use: an expression that
// does not compile, is not a bool, or a rule that is malformed.
type RuleError struct {
	// Index is the rule's position in Config.Rules, from 0.
	Index int
	// Name is the rule's name, "rule N" when it has none.
	Name string
	// Expr is the rule's expression.
	Expr string
	// Line and Column locate the first problem in Expr, both from 1;
	// they are 0 when the problem is not in the expression.
	Line, Column int
	// Msg says what is wrong; for a compile error, every problem CEL
	// reported, each with its position and the line of Expr it is on.
	Msg string
}

// Error names the rule, the position and the problem.
func (e *RuleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "authz: %s", e.Name)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at %d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// EvalError is the failure of one rule's evaluation.
type EvalError struct {
	// Rule is the rule's name.
	Rule string
	// Err is what CEL reported.
	Err error
}

// Error names the rule and what CEL reported.
func (e *EvalError) Error() string { return "authz: " + e.Rule + ": " + e.Err.Error() }

// Unwrap returns what CEL reported.
func (e *EvalError) Unwrap() error { return e.Err }

// Rules is a compiled Config. It is safe for concurrent use. A nil *Rules
// allows everything, as a Config with no rules does.
type Rules struct {
	rules []rule
	def   Effect
}

type rule struct {
	name   string
	effect Effect
	prg    cel.Program
}

// newEnv declares the variables a rule sees, the optional syntax
// (claims.?role) and the string extensions (lowerAscii, split, ...).
func newEnv() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("principal", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)),
		cel.OptionalTypes(),
		ext.Strings(),
		cel.ParserExpressionSizeLimit(MaxRuleLength),
	)
}

// Compile checks and compiles c. The error joins a *RuleError for each
// rule that cannot be used, so that a configuration is fixed in one pass.
func Compile(c Config) (*Rules, error) {
	switch c.Default {
	case "", Allow, Deny:
	default:
		return nil, fmt.Errorf("authz: default must be %q or %q, not %q", Allow, Deny, c.Default)
	}
	env, err := newEnv()
	if err != nil {
		return nil, fmt.Errorf("authz: CEL environment: %w", err)
	}
	limit := c.CostLimit
	if limit == 0 {
		limit = DefaultCostLimit
	}
	rs := &Rules{def: c.Default}
	if rs.def == "" {
		rs.def = Allow
		if len(c.Rules) > 0 {
			rs.def = Deny
		}
	}
	var errs []error
	seen := make(map[string]int)
	for i, r := range c.Rules {
		name := r.Name
		if name == "" {
			name = "rule " + strconv.Itoa(i+1)
		}
		if j, dup := seen[name]; dup {
			errs = append(errs, &RuleError{Index: i, Name: name, Msg: fmt.Sprintf("the name is also that of rule %d", j+1)})
			continue
		}
		seen[name] = i
		effect, expr := Allow, r.Allow
		switch {
		case r.Allow != "" && r.Deny != "":
			errs = append(errs, &RuleError{Index: i, Name: name, Msg: "a rule has allow or deny, not both"})
			continue
		case r.Deny != "":
			effect, expr = Deny, r.Deny
		case r.Allow == "":
			errs = append(errs, &RuleError{Index: i, Name: name, Msg: "a rule needs an allow or a deny expression"})
			continue
		}
		prg, rerr := compileRule(env, name, expr, limit)
		if rerr != nil {
			rerr.Index = i
			errs = append(errs, rerr)
			continue
		}
		rs.rules = append(rs.rules, rule{name: name, effect: effect, prg: prg})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rs, nil
}

func compileRule(env *cel.Env, name, expr string, limit uint64) (cel.Program, *RuleError) {
	src := common.NewStringSource(expr, name)
	ast, iss := env.CompileSource(src)
	if iss.Err() != nil {
		e := &RuleError{Name: name, Expr: expr, Msg: strings.TrimSpace(iss.String())}
		if errs := iss.Errors(); len(errs) > 0 && errs[0].Location.Line() > 0 {
			e.Line, e.Column = errs[0].Location.Line(), errs[0].Location.Column()+1
		}
		return nil, e
	}
	if t := ast.OutputType(); !t.IsExactType(types.BoolType) && !t.IsExactType(types.DynType) {
		return nil, &RuleError{Name: name, Expr: expr, Line: 1, Column: 1,
			Msg: fmt.Sprintf("the expression is of type %s, not bool", t)}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(limit),
		cel.InterruptCheckFrequency(64),
		cel.EvalOptions(cel.OptOptimize),
	)
	if err != nil {
		return nil, &RuleError{Name: name, Expr: expr, Msg: err.Error()}
	}
	return prg, nil
}

// Len returns the number of rules.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.rules)
}

// Decide decides whether p may see or use the entry req names. It stops
// trying rules when ctx is done, and the decision is then a denial that
// records ctx's error.
func (r *Rules) Decide(ctx context.Context, p Principal, req Request) Decision {
	return r.decide(ctx, principalVars(p), req)
}

// Allowed is Decide(ctx, p, req).Allowed.
func (r *Rules) Allowed(ctx context.Context, p Principal, req Request) bool {
	return r.Decide(ctx, p, req).Allowed
}

func (r *Rules) decide(ctx context.Context, pv map[string]any, req Request) Decision {
	if r == nil {
		return Decision{Allowed: true, Rule: "default", Index: -1}
	}
	vars := map[string]any{"principal": pv, "request": requestVars(req)}
	var errs []error
	for i, rl := range r.rules {
		if err := ctx.Err(); err != nil {
			errs = append(errs, &EvalError{Rule: rl.name, Err: err})
			return Decision{Rule: rl.name, Index: i, Errors: errs}
		}
		out, _, err := rl.prg.ContextEval(ctx, vars)
		if err == nil {
			b, ok := out.Value().(bool)
			if !ok {
				err = fmt.Errorf("the expression gave %s, not a bool", out.Type().TypeName())
			} else if !b {
				continue
			}
		}
		if err != nil {
			errs = append(errs, &EvalError{Rule: rl.name, Err: err})
			if rl.effect == Allow {
				continue // a failed allow rule grants nothing
			}
		}
		return Decision{Allowed: rl.effect == Allow, Rule: rl.name, Index: i, Errors: errs}
	}
	return Decision{Allowed: r.def == Allow, Rule: "default", Index: -1, Errors: errs}
}

// Filter returns the entries p may see, in their order: those for which
// request gives a Request that the rules allow. The result is a new
// slice: entries, which may be a list shared by every caller (a cached
// one), is left as it is.
func Filter[T any](ctx context.Context, r *Rules, p Principal, entries []T, request func(T) Request) []T {
	if r == nil {
		return slices.Clone(entries)
	}
	pv := principalVars(p)
	var kept []T
	for _, e := range entries {
		if r.decide(ctx, pv, request(e)).Allowed {
			kept = append(kept, e)
		}
	}
	return kept
}

func principalVars(p Principal) map[string]any {
	claims := p.Claims
	if claims == nil {
		claims = map[string]any{}
	}
	scopes := p.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return map[string]any{
		"sub":       p.Subject,
		"iss":       p.Issuer,
		"anonymous": p.Anonymous(),
		"claims":    claims,
		"scopes":    scopes,
	}
}

func requestVars(req Request) map[string]any {
	ann := req.Annotations
	if ann == nil {
		ann = map[string]any{}
	}
	return map[string]any{
		"kind":        string(req.Kind),
		"name":        req.Name,
		"upstream":    req.Upstream,
		"server":      req.Server,
		"annotations": ann,
		"destructive": req.Destructive,
		"readOnly":    req.ReadOnly,
	}
}
