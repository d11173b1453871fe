package authz

import (
	"context"
	"errors"
	"strings"
	"testing"
)

var (
	alice = Principal{
		Subject: "alice", Issuer: "https://idp.example",
		Claims: map[string]any{"role": "admin", "groups": []any{"ops"}},
		Scopes: []string{"mcp:read", "mcp:write"},
	}
	bob   = Principal{Subject: "bob", Issuer: "https://idp.example", Scopes: []string{"mcp:read"}}
	guest = Principal{}
)

func tool(name string) Request {
	return Request{Kind: KindTool, Name: name, Upstream: "gh", Server: "default"}
}

func TestDecide(t *testing.T) {
	rules := Config{Rules: []Rule{
		{Name: "no-guests-destructive", Deny: `principal.anonymous && request.destructive`},
		{Name: "admins", Allow: `principal.claims.?role.orValue("") == "admin"`},
		{Name: "writers", Allow: `"mcp:write" in principal.scopes && request.upstream == "gh"`},
		{Name: "readers", Allow: `request.kind == "tool" && request.readOnly`},
		{Name: "prompts", Allow: `request.kind == "prompt" && !principal.anonymous`},
		{Name: "annotated", Allow: `has(request.annotations.openWorldHint) && !request.annotations.openWorldHint`},
	}}
	tests := []struct {
		name    string
		cfg     Config
		p       Principal
		req     Request
		allowed bool
		rule    string
	}{
		{"admin by claim", rules, alice, tool("gh__delete_repo"), true, "admins"},
		{"scope without claim", rules, Principal{Scopes: []string{"mcp:write"}, Subject: "carol", Issuer: "x"}, tool("gh__x"), true, "writers"},
		{"scope on other upstream", rules, Principal{Scopes: []string{"mcp:write"}, Subject: "carol", Issuer: "x"}, Request{Kind: KindTool, Name: "fs__x", Upstream: "fs"}, false, "default"},
		{"read-only tool for reader", rules, bob, Request{Kind: KindTool, Name: "gh__get", ReadOnly: true}, true, "readers"},
		{"writable tool for reader", rules, bob, tool("gh__put"), false, "default"},
		{"guest destructive denied first", rules, guest, Request{Kind: KindTool, Name: "gh__rm", Destructive: true, ReadOnly: true}, false, "no-guests-destructive"},
		{"guest read-only", rules, guest, Request{Kind: KindTool, Name: "gh__ls", ReadOnly: true}, true, "readers"},
		{"guest prompt", rules, guest, Request{Kind: KindPrompt, Name: "p"}, false, "default"},
		{"bob prompt", rules, bob, Request{Kind: KindPrompt, Name: "p"}, true, "prompts"},
		{"annotation present", rules, bob, Request{Kind: KindTool, Name: "t", Annotations: map[string]any{"openWorldHint": false}}, true, "annotated"},
		{"no rules allows", Config{}, guest, tool("x"), true, "default"},
		{"explicit default deny", Config{Default: Deny}, alice, tool("x"), false, "default"},
		{"explicit default allow", Config{Default: Allow, Rules: []Rule{{Deny: `request.name == "x"`}}}, bob, tool("y"), true, "default"},
		{"unnamed rule", Config{Default: Allow, Rules: []Rule{{Deny: `request.name == "x"`}}}, bob, tool("x"), false, "rule 1"},
		{"resource by uri", Config{Rules: []Rule{{Allow: `request.kind == "resource" && request.name.startsWith("file:///pub/")`}}}, bob,
			Request{Kind: KindResource, Name: "file:///pub/a.txt"}, true, "rule 1"},
		{"string extension", Config{Rules: []Rule{{Allow: `principal.sub.upperAscii() == "BOB"`}}}, bob, tool("x"), true, "rule 1"},
		{"claim list", Config{Rules: []Rule{{Allow: `"ops" in principal.claims.groups`}}}, alice, tool("x"), true, "rule 1"},
		{"server", Config{Rules: []Rule{{Allow: `request.server == "trusted"`}}}, alice, tool("x"), false, "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compile(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := r.Decide(context.Background(), tt.p, tt.req)
			if d.Allowed != tt.allowed || d.Rule != tt.rule {
				t.Errorf("Decide = allowed %v by %q, want %v by %q (errors %v)", d.Allowed, d.Rule, tt.allowed, tt.rule, d.Errors)
			}
		})
	}
}

func TestEvalErrorsNeverWiden(t *testing.T) {
	r, err := Compile(Config{Default: Allow, Rules: []Rule{
		{Name: "admins", Allow: `principal.claims.role == "admin"`},      // fails when role is missing
		{Name: "block-by-team", Deny: `principal.claims.team != "core"`}, // fails when team is missing
	}})
	if err != nil {
		t.Fatal(err)
	}
	// bob has neither claim: the allow rule fails and is skipped, the
	// deny rule fails and denies, although the default allows.
	d := r.Decide(context.Background(), bob, tool("x"))
	if d.Allowed || d.Rule != "block-by-team" || len(d.Errors) != 2 {
		t.Fatalf("Decide = %+v, want a denial by block-by-team with two errors", d)
	}
	var ee *EvalError
	if !errors.As(d.Errors[0], &ee) || ee.Rule != "admins" {
		t.Errorf("first error = %v, want the EvalError of admins", d.Errors[0])
	}
	// alice is an admin: the first rule decides, nothing fails.
	if d := r.Decide(context.Background(), alice, tool("x")); !d.Allowed || d.Rule != "admins" || d.Errors != nil {
		t.Errorf("Decide(alice) = %+v", d)
	}
}

func TestDynNotBool(t *testing.T) {
	r, err := Compile(Config{Rules: []Rule{{Allow: `principal.claims.role`}}})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Decide(context.Background(), alice, tool("x"))
	if d.Allowed || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), "not a bool") {
		t.Errorf("Decide = %+v, want a denial recording a non-bool", d)
	}
}

func TestCostLimit(t *testing.T) {
	// Three nested comprehensions over 100 elements: a million steps.
	slow := `[` + hundred + `].all(a, [` + hundred + `].all(b, [` + hundred + `].all(c, a + b + c >= 0)))`
	r, err := Compile(Config{Default: Allow, Rules: []Rule{{Name: "slow", Deny: slow}}})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Decide(context.Background(), alice, tool("x"))
	if d.Allowed || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error(), "cost limit") {
		t.Errorf("Decide = %+v, want a denial by the cost limit", d)
	}
	// The same rule is fine under a higher limit.
	r, err = Compile(Config{Default: Allow, CostLimit: 100_000_000, Rules: []Rule{{Name: "slow", Deny: `[1,2].all(a, a < 0)`}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Decide(context.Background(), alice, tool("x")); !d.Allowed || d.Errors != nil {
		t.Errorf("Decide = %+v, want allowed", d)
	}
}

var hundred = func() string {
	var b strings.Builder
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1")
	}
	return b.String()
}()

func TestCancelled(t *testing.T) {
	r, err := Compile(Config{Default: Allow, Rules: []Rule{{Deny: `false`}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := r.Decide(ctx, alice, tool("x")); d.Allowed || !errors.Is(d.Errors[0], context.Canceled) {
		t.Errorf("Decide on a cancelled ctx = %+v, want a denial by context.Canceled", d)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		want     []string // substrings of the error
		line     int
		column   int
		ruleName string
	}{
		{"undeclared", Config{Rules: []Rule{{Name: "r", Allow: `principl.sub == "a"`}}}, []string{"r at 1:1", "undeclared reference", "principl"}, 1, 1, "r"},
		{"syntax on line 2", Config{Rules: []Rule{{Allow: "true &&\n  request.name ==="}}}, []string{"rule 1 at 2:"}, 2, 0, "rule 1"},
		{"not bool", Config{Rules: []Rule{{Name: "s", Deny: `request.name + "x"`}}}, []string{"of type string, not bool"}, 1, 1, "s"},
		{"both", Config{Rules: []Rule{{Name: "b", Allow: "true", Deny: "true"}}}, []string{"not both"}, 0, 0, "b"},
		{"neither", Config{Rules: []Rule{{Name: "n"}}}, []string{"needs an allow or a deny"}, 0, 0, "n"},
		{"duplicate", Config{Rules: []Rule{{Name: "d", Allow: "true"}, {Name: "d", Allow: "false"}}}, []string{"also that of rule 1"}, 0, 0, "d"},
		{"too long", Config{Rules: []Rule{{Name: "l", Allow: strings.Repeat("true && ", MaxRuleLength/8) + "true"}}}, []string{"l"}, 0, 0, "l"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.cfg)
			if err == nil {
				t.Fatal("Compile succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RuleError", err)
			}
			if re.Name != tt.ruleName || re.Line != tt.line || (tt.column != 0 && re.Column != tt.column) {
				t.Errorf("RuleError at %s %d:%d, want %s %d:%d", re.Name, re.Line, re.Column, tt.ruleName, tt.line, tt.column)
			}
		})
	}
	if _, err := Compile(Config{Default: "maybe"}); err == nil {
		t.Error("Compile accepted default maybe")
	}
}

func TestCompileReportsEveryRule(t *testing.T) {
	_, err := Compile(Config{Rules: []Rule{{Name: "a", Allow: "nope"}, {Name: "ok", Allow: "true"}, {Name: "c", Deny: "1 +"}}})
	if err == nil || !strings.Contains(err.Error(), "authz: a") || !strings.Contains(err.Error(), "authz: c") {
		t.Errorf("error %v should name rules a and c", err)
	}
}

func TestFilter(t *testing.T) {
	r, err := Compile(Config{Rules: []Rule{
		{Deny: `request.destructive && !("mcp:write" in principal.scopes)`},
		{Allow: `!principal.anonymous`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		name        string
		destructive bool
	}
	list := []entry{{"a", false}, {"rm", true}, {"b", false}}
	req := func(e entry) Request { return Request{Kind: KindTool, Name: e.name, Destructive: e.destructive} }
	names := func(es []entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.name)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		p    Principal
		want string
	}{{alice, "a,rm,b"}, {bob, "a,b"}, {guest, ""}} {
		if got := names(Filter(context.Background(), r, tt.p, list, req)); got != tt.want {
			t.Errorf("Filter(%q) = %q, want %q", tt.p.Subject, got, tt.want)
		}
	}
	if got := names(list); got != "a,rm,b" {
		t.Errorf("Filter changed its input to %q", got)
	}
	var none *Rules
	if got := names(Filter(context.Background(), none, guest, list, req)); got != "a,rm,b" {
		t.Errorf("Filter with nil rules = %q", got)
	}
}

func TestConcurrentDecide(t *testing.T) {
	r, err := Compile(Config{Rules: []Rule{{Allow: `"mcp:read" in principal.scopes`}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for range 8 {
		go func() {
			ok := true
			for range 200 {
				ok = ok && r.Allowed(context.Background(), bob, tool("x")) && !r.Allowed(context.Background(), guest, tool("x"))
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent decision was wrong")
		}
	}
}
