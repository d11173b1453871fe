package tracker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// client calls the tracker's tools over an in-memory pipe.
type client struct {
	t *testing.T
	c *jsonrpc.Conn
}

func serve(t *testing.T) *client {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "tracker", Version: "1"}, nil)
	if err := RegisterTracker(s, &Tracker{}); err != nil {
		t.Fatal(err)
	}
	a, b := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, a) }()
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
	return &client{t: t, c: c}
}

// result is what tools/call returns.
type result struct {
	IsError           bool `json:"isError"`
	Content           []struct{ Text string }
	StructuredContent json.RawMessage `json:"structuredContent"`
}

func (c *client) call(tool, args string) result {
	c.t.Helper()
	out, err := c.c.Call(c.t.Context(), "tools/call", []byte(`{"name":"`+tool+`","arguments":`+args+`}`))
	if err != nil {
		c.t.Fatalf("%s %s: %v", tool, args, err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		c.t.Fatal(err)
	}
	return r
}

// issue calls tool and wants an issue back.
func (c *client) issue(tool, args string) map[string]any {
	c.t.Helper()
	r := c.call(tool, args)
	if r.IsError {
		c.t.Fatalf("%s %s: %s", tool, args, r.Content[0].Text)
	}
	var m map[string]any
	if err := json.Unmarshal(r.StructuredContent, &m); err != nil {
		c.t.Fatalf("%s %s: structured content %s: %v", tool, args, r.StructuredContent, err)
	}
	return m
}

// fails calls tool and wants an isError result whose text holds want.
func (c *client) fails(tool, args, want string) {
	c.t.Helper()
	r := c.call(tool, args)
	if !r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, want) {
		c.t.Errorf("%s %s = %+v, want an error saying %q", tool, args, r, want)
	}
}

func TestSchemas(t *testing.T) {
	c := serve(t)
	out, err := c.c.Call(t.Context(), "tools/list", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]map[string]any
				Required   []string
			}
			OutputSchema *struct{ Properties map[string]map[string]any }
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, " ") != "create_issue list_issues get_issue update_issue close_issue" {
		t.Fatalf("tools = %v", names)
	}
	create := list.Tools[0]
	props := create.InputSchema.Properties
	if props["due"]["type"] != "string" || props["due"]["format"] != "date-time" {
		t.Errorf("due = %v, want a date-time string", props["due"])
	}
	if props["reporter"]["type"] != "string" || props["reporter"]["description"] != "The reporter's IP address." {
		t.Errorf("reporter = %v, want a string", props["reporter"])
	}
	if strings.Join(create.InputSchema.Required, " ") != "title reporter" {
		t.Errorf("required = %v, want title and reporter", create.InputSchema.Required)
	}
	if strings.Contains(string(out), "null") {
		t.Errorf("a schema allows null: %s", out)
	}
	if o := create.OutputSchema; o == nil || o.Properties["due"]["format"] != "date-time" || o.Properties["reporter"]["type"] != "string" {
		t.Errorf("create_issue output schema = %+v", o)
	}
}

func TestIssues(t *testing.T) {
	c := serve(t)

	is := c.issue("create_issue", `{"title":"Crash on start","reporter":"192.0.2.7","due":"2026-12-24T12:00:00Z","labels":["bug"]}`)
	if is["id"] != 1.0 || is["priority"] != "normal" || is["status"] != "open" || is["due"] != "2026-12-24T12:00:00Z" || is["reporter"] != "192.0.2.7" {
		t.Errorf("created %v", is)
	}
	if _, ok := is["body"]; ok {
		t.Errorf("created %v with a body", is)
	}
	// A model's null for every optional argument: left out.
	is = c.issue("create_issue", `{"title":"Slow list","reporter":"2001:db8::1","body":null,"priority":null,"due":null,"labels":null}`)
	if is["id"] != 2.0 || is["priority"] != "normal" || is["due"] != nil || is["body"] != nil || is["reporter"] != "2001:db8::1" {
		t.Errorf("created %v", is)
	}
	is = c.issue("create_issue", `{"title":"Typo","body":"in the README","priority":"low","reporter":"::1"}`)
	if is["body"] != "in the README" || is["priority"] != "low" {
		t.Errorf("created %v", is)
	}

	for _, tc := range []struct{ args, want string }{
		{`{"reporter":"::1"}`, "invalid arguments for tool create_issue: title: required"},
		{`{"title":null,"reporter":"::1"}`, "title: expected string, got null"},
		{`{"title":"","reporter":"::1"}`, "title: must be at least 1 character long"},
		{`{"title":"x","reporter":"nope"}`, `reporter: ParseAddr("nope"): unable to parse IP`},
		{`{"title":"x","reporter":null}`, "reporter: expected string, got null"},
		{`{"title":"x","reporter":"::1","due":"tomorrow"}`, "due: not a valid date-time"},
		{`{"title":"x","reporter":"::1","priority":"urgent"}`, `priority: must be one of ["low","normal","high"], got "urgent"`},
		{`{"title":"x","reporter":"::1","labels":["a","b","c","d","e","f"]}`, "labels: must have at most 5 items"},
		{`{"title":"x","reporter":"::1","assignee":"ann"}`, "assignee: unknown property"},
	} {
		c.fails("create_issue", tc.args, tc.want)
	}

	list := func(args string) []any {
		t.Helper()
		return c.issue("list_issues", args)["issues"].([]any)
	}
	if n := len(list(`{}`)); n != 3 {
		t.Errorf("list {} = %d issues, want 3", n)
	}
	if n := len(list(`{"status":null,"dueBefore":null,"limit":null}`)); n != 3 {
		t.Errorf("list with nulls = %d issues, want 3", n)
	}
	if got := list(`{"dueBefore":"2027-01-01T00:00:00Z"}`); len(got) != 1 || got[0].(map[string]any)["id"] != 1.0 {
		t.Errorf("list due before 2027 = %v", got)
	}
	if n := len(list(`{"limit":2}`)); n != 2 {
		t.Errorf("list limit 2 = %d issues", n)
	}
	c.fails("list_issues", `{"status":"pending"}`, `status: must be one of ["open","closed"], got "pending"`)
	c.fails("list_issues", `{"limit":0}`, "limit: must be >= 1")

	if is := c.issue("get_issue", `{"id":3}`); is["title"] != "Typo" {
		t.Errorf("get 3 = %v", is)
	}
	c.fails("get_issue", `{"id":9}`, "issue 9 not found")
	c.fails("get_issue", `{"id":"1"}`, "id: expected integer, got string")

	is = c.issue("update_issue", `{"id":2,"due":"2026-12-31T23:59:59+01:00","body":"on large projects","title":null,"priority":"high"}`)
	if is["title"] != "Slow list" || is["due"] != "2026-12-31T23:59:59+01:00" || is["body"] != "on large projects" || is["priority"] != "high" {
		t.Errorf("updated %v", is)
	}
	c.fails("update_issue", `{"id":2,"due":"2026-13-01T00:00:00Z"}`, "due: not a valid date-time")

	is = c.issue("close_issue", `{"id":1,"reason":"done"}`)
	if is["status"] != "closed" || is["reason"] != "done" {
		t.Errorf("closed %v", is)
	}
	c.fails("close_issue", `{"id":1,"reason":null}`, "reason: expected string, got null")
	c.fails("close_issue", `{"id":1,"reason":"bored"}`, `reason: must be one of ["done","wontfix","duplicate"], got "bored"`)
	c.fails("update_issue", `{"id":1,"title":"again"}`, "issue 1 is closed")
	if got := list(`{"status":"open"}`); len(got) != 2 {
		t.Errorf("open issues = %v", got)
	}
}
