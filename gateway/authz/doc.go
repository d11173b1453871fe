// Package authz decides which tools, prompts and resources a caller of the
// gateway may see and use, by rules written in CEL (the Common Expression
// Language, cel.dev/cel-go) over the caller's identity and the entry asked
// for.
//
// # Rules
//
// A Config holds an ordered list of rules, each either an allow or a deny
// rule with a CEL expression that must evaluate to a bool:
//
//	authz:
//	  default: deny
//	  rules:
//	    - name: no-destructive-for-guests
//	      deny: 'request.destructive && !("write" in principal.scopes)'
//	    - name: admins
//	      allow: 'principal.claims.?role.orValue("") == "admin"'
//	    - name: read-only-tools
//	      allow: 'request.kind == "tool" && request.readOnly'
//
// Compile turns a Config into a *Rules once, when the configuration is
// loaded: an expression that does not parse, refers to an unknown
// variable, or is not a bool is a configuration error (a *RuleError)
// naming the rule and the line and column in its expression.
//
// The rules are tried in order and the first whose expression is true
// decides. When none is true the default decides: Config.Default, or, when
// it is empty, deny as soon as there is a rule and allow when there is
// none. A gateway with no rules therefore lets every authenticated caller
// see everything, and one rule is enough to make it closed by default:
// writing allow rules and forgetting the default cannot expose the rest.
//
// # Variables
//
// An expression sees two variables, both maps:
//
//	principal.sub        string  the subject ("" when anonymous)
//	principal.iss        string  the issuer ("" when anonymous)
//	principal.anonymous  bool    no credentials were presented
//	principal.claims     map     the token's claims as decoded JSON ({} when anonymous)
//	principal.scopes     list    the token's scopes ([] when anonymous)
//	request.kind         string  "tool", "prompt" or "resource"
//	request.name         string  the name the client sees (a resource's URI or URI template)
//	request.upstream     string  the upstream that serves it
//	request.server       string  the virtual server the client reached
//	request.annotations  map     the tool's annotations as the upstream sent them ({} otherwise)
//	request.destructive  bool    the gateway treats the tool as destructive
//	request.readOnly     bool    the upstream marked the tool read-only
//
// A claim may be missing: principal.claims.role is then an evaluation
// error. Write has(principal.claims.role), or, with the optional syntax
// that is enabled, principal.claims.?role.orValue("").
//
// # Errors and cost
//
// An expression that fails at evaluation time (a missing key, a type
// mismatch, the cost limit) never widens access: an allow rule that fails
// does not match and the next rule is tried, a deny rule that fails
// denies. The Decision records the failure, so that the audit log and the
// operator can see it.
//
// Every evaluation runs under CEL's cost limit (Config.CostLimit, or
// DefaultCostLimit) and stops when its context is done, so no rule can
// hold a request for long, whatever lists its comprehensions walk.
package authz
