package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// TestEndToEnd serves the generated tools over an in-memory pipe and talks
// to them as a raw JSON-RPC client would.
func TestEndToEnd(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	if err := Register(s); err != nil {
		t.Fatal(err)
	}
	if err := RegisterGreeter(s, &Greeter{Greeting: "Hello"}); err != nil {
		t.Fatal(err)
	}
	if err := RegisterGreeter(s, nil); err == nil {
		t.Error("RegisterGreeter accepted a nil receiver")
	}
	ctx := t.Context()
	c := dial(t, s, nil)
	call := func(method, params string) map[string]any {
		t.Helper()
		out, err := c.Call(ctx, method, []byte(params))
		if err != nil {
			t.Fatalf("%s %s: %v", method, params, err)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// The schema constants are indented, but a tool definition must go out
	// on one line: stdio framing refuses a message with a raw newline.
	raw, err := c.Call(ctx, "tools/list", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(raw, '\n') >= 0 {
		t.Errorf("tools/list result holds a raw newline: %s", raw)
	}
	list := call("tools/list", `{}`)
	tools, _ := list["tools"].([]any)
	byName := map[string]map[string]any{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		byName[m["name"].(string)] = m
	}
	add, greet := byName["add"], byName["greet"]
	if add == nil || greet == nil || byName["ship"] == nil || len(byName) != 3 {
		t.Fatalf("tools/list = %v", list)
	}
	if add["outputSchema"] == nil || add["annotations"].(map[string]any)["readOnlyHint"] != true {
		t.Errorf("add = %v", add)
	}
	if greet["title"] != "Say hello" || greet["outputSchema"] != nil {
		t.Errorf("greet = %v", greet)
	}

	r := call("tools/call", `{"name":"add","arguments":{"a":2,"b":40}}`)
	sc, _ := r["structuredContent"].(map[string]any)
	if r["isError"] == true || sc["sum"] != 42.0 || sc["words"] == nil {
		t.Errorf("add result = %v", r)
	}
	if _, ok := sc["note"]; ok {
		t.Errorf("nil pointer written: %v", sc)
	}

	r = call("tools/call", `{"name":"greet","arguments":{"name":"Ann"}}`)
	if text := firstText(r); text != "Hello, Ann" || r["isError"] == true {
		t.Errorf("greet result = %v", r)
	}

	for _, tc := range []struct{ args, want string }{
		{`{"a":2,"b":400}`, "b: must be <= 100"},
		{`{"a":2}`, "b: required"},
		{`{"a":"2","b":1}`, "a: expected integer, got string"},
		{`{"a":2,"b":1,"words":["a","b","c","d"]}`, "words: must have at most 3 items"},
		{`{"a":2,"b":1,"c":3}`, "c: unknown property"},
		{`{"a":2,"b":1,"round":"sideways"}`, `round: must be one of ["up","down"], got "sideways"`},
		{`{"a":2,"b":1,"scale":3}`, "scale: must be one of [1,10], got 3"},
	} {
		r := call("tools/call", `{"name":"add","arguments":`+tc.args+`}`)
		if r["isError"] != true || !strings.Contains(firstText(r), tc.want) {
			t.Errorf("add %s = %v, want an isError result saying %q", tc.args, r, tc.want)
		}
	}
	r = call("tools/call", `{"name":"greet","arguments":{"name":"nobody"}}`)
	if r["isError"] != true || !strings.Contains(firstText(r), "nobody is not there") {
		t.Errorf("greet nobody = %v", r)
	}

	// The input-schema= escape hatch: the runtime validates with the
	// embedded schema (if/then/else), compiled once at registration.
	if s := byName["ship"]["inputSchema"].(map[string]any); s["if"] == nil {
		t.Errorf("ship input schema = %v", s)
	}
	r = call("tools/call", `{"name":"ship","arguments":{"country":"FR","international":true,"customs":"ABCD1234"}}`)
	if r["isError"] == true || !strings.HasPrefix(firstText(r), "shipped {") {
		t.Errorf("ship = %v", r)
	}
	for _, args := range []string{`{"country":"FR","international":true}`, `{"country":"FR","zip":"1"}`, `{}`} {
		r = call("tools/call", `{"name":"ship","arguments":`+args+`}`)
		if r["isError"] != true {
			t.Errorf("ship %s = %v, want an isError result", args, r)
		}
	}

	prompts := call("prompts/list", `{}`)["prompts"].([]any)
	plan := prompts[0].(map[string]any)
	if len(prompts) != 1 || plan["name"] != "plan_trip" || plan["title"] != "Plan a trip" {
		t.Fatalf("prompts/list = %v", prompts)
	}
	planArgs := plan["arguments"].([]any)
	if a := planArgs[0].(map[string]any); len(planArgs) != 2 || a["name"] != "destination" || a["required"] != true || a["description"] != "Where to go." {
		t.Errorf("plan_trip arguments = %v", planArgs)
	}
	if a := planArgs[1].(map[string]any); a["required"] == true {
		t.Errorf("days is required: %v", a)
	}
	r = call("prompts/get", `{"name":"plan_trip","arguments":{"destination":"Rome","days":"3"}}`)
	msg := r["messages"].([]any)[0].(map[string]any)
	if text := msg["content"].(map[string]any)["text"]; text != "Plan a trip to Rome for 3 days" || msg["role"] != "user" {
		t.Errorf("prompts/get = %v", r)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"days":"3"}`, "destination: required"},
		{`{"destination":"Rome","weeks":"2"}`, "weeks: unknown argument"},
	} {
		_, err := c.Call(ctx, "prompts/get", []byte(`{"name":"plan_trip","arguments":`+tc.args+`}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("prompts/get %s: err = %v, want %q", tc.args, err, tc.want)
		}
	}

	resources := call("resources/list", `{}`)["resources"].([]any)
	if m := resources[0].(map[string]any); len(resources) != 1 || m["uri"] != "mem://motd" || m["mimeType"] != "text/plain" {
		t.Errorf("resources/list = %v", resources)
	}
	templates := call("resources/templates/list", `{}`)["resourceTemplates"].([]any)
	if m := templates[0].(map[string]any); len(templates) != 1 || m["uriTemplate"] != "mem://notes/{id}" {
		t.Errorf("resources/templates/list = %v", templates)
	}
	r = call("resources/read", `{"uri":"mem://motd"}`)
	item := r["contents"].([]any)[0].(map[string]any)
	if item["text"] != "hello" || item["uri"] != "mem://motd" || item["mimeType"] != "text/plain" {
		t.Errorf("resources/read motd = %v", r)
	}
	r = call("resources/read", `{"uri":"mem://notes/42"}`)
	item = r["contents"].([]any)[0].(map[string]any)
	if item["blob"] != base64.StdEncoding.EncodeToString([]byte("note 42")) || item["uri"] != "mem://notes/42" {
		t.Errorf("resources/read note = %v", r)
	}
	if _, err := c.Call(ctx, "resources/read", []byte(`{"uri":"mem://notes/missing"}`)); err == nil || !strings.Contains(err.Error(), "no such note") {
		t.Errorf("resources/read missing: err = %v", err)
	}
}

func firstText(r map[string]any) string {
	content, _ := r["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

// grants is a principal whose credentials grant fixed OAuth scopes,
// written space-separated.
type grants string

func (g grants) HasScope(s string) bool { return slices.Contains(strings.Fields(string(g)), s) }

// TestScopes serves the Vault's handlers, whose directives require scopes,
// to callers whose principals grant some, all or none of them: the
// generated Register must hand every scopes= to the server, in the order
// written, so that a request lacking one is refused before its handler
// runs and its error names every scope the handler requires.
func TestScopes(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "vault", Version: "1"}, nil)
	if err := RegisterVault(s, &Vault{Secret: "s3cret"}); err != nil {
		t.Fatal(err)
	}
	requests := []struct {
		name, method, params string
		result               string // text of the handler's result
		required             string // the requiredScopes of a refusal
	}{
		{"tool", "tools/call", `{"name":"open","arguments":{"name":"a"}}`, `"text":"s3cret a"`, `["vault:read","vault:open"]`},
		{"prompt", "prompts/get", `{"name":"recite"}`, `"text":"Recite s3cret"`, `["vault:read"]`},
		{"resource", "resources/read", `{"uri":"vault://index"}`, `"text":"one secret"`, `["vault:list"]`},
		{"template", "resources/read", `{"uri":"vault://entries/a"}`, `"text":"s3cret a"`, `["vault:read"]`},
	}
	callers := []struct {
		name      string
		principal any
		allowed   map[string]bool // the requests it may make
	}{
		{"nobody", nil, nil},
		{"reader", grants("vault:read"), map[string]bool{"prompt": true, "template": true}},
		{"lister", grants("vault:list vault:open"), map[string]bool{"resource": true}},
		{"owner", grants("vault:open vault:list vault:read"), map[string]bool{"tool": true, "prompt": true, "resource": true, "template": true}},
	}
	for _, caller := range callers {
		t.Run(caller.name, func(t *testing.T) {
			c := dial(t, s, caller.principal)
			// Scoped tools are listed to everyone, so that a client can
			// learn of them and ask for the scopes.
			list, err := c.Call(t.Context(), "tools/list", []byte(`{}`))
			if err != nil || !strings.Contains(string(list), `"name":"open"`) {
				t.Errorf("tools/list = %s, %v; want it to list open", list, err)
			}
			for _, r := range requests {
				out, err := c.Call(t.Context(), r.method, []byte(r.params))
				if caller.allowed[r.name] {
					if err != nil || !strings.Contains(string(out), r.result) {
						t.Errorf("%s: %s = %s, %v; want a result with %s", r.name, r.method, out, err, r.result)
					}
					continue
				}
				e, ok := errors.AsType[*jsonrpc.Error](err)
				if !ok || e.Code != server.CodeInsufficientScope || string(e.Data) != `{"requiredScopes":`+r.required+`}` {
					t.Errorf("%s: %s = %s, %v; want error %d with requiredScopes %s", r.name, r.method, out, err, server.CodeInsufficientScope, r.required)
				}
			}
		})
	}
}

// dial serves s over an in-memory pipe, as principal when it is not nil,
// and returns an initialized connection to it; the test's cleanup closes
// both ends.
func dial(t *testing.T, s *server.Server, principal any) *jsonrpc.Conn {
	t.Helper()
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(server.WithPrincipal(ctx, principal), a) }()
	c := jsonrpc.NewConn(b, jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) ([]byte, error) { return nil, nil }), jsonrpc.Options{})
	go c.Run(ctx)
	t.Cleanup(func() {
		c.Close()
		cancel()
		<-done
		c.Wait()
	})
	if _, err := c.Call(ctx, "initialize", []byte(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return c
}
