package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
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
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, a) }()
	c := jsonrpc.NewConn(b, jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) ([]byte, error) { return nil, nil }), jsonrpc.Options{})
	go c.Run(ctx)
	defer func() {
		c.Close()
		cancel()
		<-done
		c.Wait()
	}()
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
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
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
