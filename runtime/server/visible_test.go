package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// byPrefix shows a caller the entries whose names start with its
// principal (a string), leaves "q_" entries unlisted, and counts its
// decisions.
type byPrefix struct{ decided atomic.Int64 }

func (b *byPrefix) Sight(ctx context.Context, e Entry) Sight {
	b.decided.Add(1)
	p, _ := PrincipalFrom(ctx).(string)
	switch {
	case strings.HasPrefix(e.Name, "q_"):
		return Unlisted
	case strings.HasPrefix(e.Name, p):
		return Shown
	}
	return Hidden
}

func (b *byPrefix) ViewKey(ctx context.Context) string {
	p, _ := PrincipalFrom(ctx).(string)
	return p
}

func TestVisibility(t *testing.T) {
	s := newServer(&Options{PageSize: 2, Caching: Caching{Public: true}})
	for _, name := range []string{"a1", "b1", "a2", "b2", "a3", "q_x"} {
		addTool(t, s, name, func(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return textOf(p.Name), nil
		})
	}
	if err := s.AddPrompt(mcp.Prompt{Name: "b_prompt"}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	vis := &byPrefix{}
	views := s.SetVisibility(vis, 0)
	p := startWith(t, s, WithPrincipal(context.Background(), "a"))
	p.initialize(t, "2025-11-25", "")
	c := &mcp.Client{Caller: p.Conn}
	ctx := context.Background()
	list := func() string {
		var names []string
		for tool, err := range c.AllTools(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		return strings.Join(names, " ")
	}
	// Filtered before paging: two full pages and a last one.
	if got := list(); got != "a1 a2 a3" {
		t.Fatalf("tools = %q", got)
	}
	// The view is kept: a second listing decides nothing.
	n := vis.decided.Load()
	if got := list(); got != "a1 a2 a3" || vis.decided.Load() != n {
		t.Fatalf("second listing %q decided %d more", got, vis.decided.Load()-n)
	}
	// A registration changes the list, and the view follows.
	addTool(t, s, "a4", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textOf("a4"), nil
	})
	if got := list(); got != "a1 a2 a3 a4" {
		t.Fatalf("after a registration: %q", got)
	}

	// A hidden tool answers as an unknown one, word for word.
	_, hidden := p.call(t, "tools/call", `{"name":"b1","arguments":{}}`)
	_, unknown := p.call(t, "tools/call", `{"name":"zz","arguments":{}}`)
	if hidden == nil || unknown == nil || strings.ReplaceAll(hidden.Error(), "b1", "zz") != unknown.Error() {
		t.Fatalf("hidden %v, unknown %v", hidden, unknown)
	}
	_, hidden = p.call(t, "prompts/get", `{"name":"b_prompt"}`)
	_, unknown = p.call(t, "prompts/get", `{"name":"zz_prompt"}`)
	if hidden == nil || unknown == nil || strings.ReplaceAll(hidden.Error(), "b_prompt", "zz_prompt") != unknown.Error() {
		t.Fatalf("hidden prompt %v, unknown %v", hidden, unknown)
	}
	// Malformed params get the same refusal whether the tool is hidden.
	_, hidden = p.call(t, "tools/call", `{"name":"b1","arguments":5}`)
	_, unknown = p.call(t, "tools/call", `{"name":"zz","arguments":5}`)
	if hidden == nil || unknown == nil || hidden.Error() != unknown.Error() {
		t.Fatalf("malformed: hidden %v, unknown %v", hidden, unknown)
	}
	// An unlisted tool is served; a shown one too.
	for _, name := range []string{"q_x", "a2"} {
		out, err := p.call(t, "tools/call", `{"name":"`+name+`","arguments":{}}`)
		if err != nil || !strings.Contains(string(out), name) {
			t.Fatalf("%s: %s %v", name, out, err)
		}
	}
	// Prompts stay offered when every one is hidden.
	out, err := p.call(t, "prompts/list", "")
	if err != nil || !strings.Contains(string(out), `"prompts":[]`) {
		t.Fatalf("prompts/list: %s %v", out, err)
	}

	// 2026-07-28 lists are private whatever Options.Caching says.
	out, err = p.modern(t, "tools/list", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		CacheScope string `json:"cacheScope"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.CacheScope != "private" {
		t.Fatalf("cacheScope %q (%v): %s", res.CacheScope, err, out)
	}

	// Reset drops the views and tells the client.
	views.Reset()
	p.note(t, mcp.MethodToolListChangedNotification)
	n = vis.decided.Load()
	if got := list(); got != "a1 a2 a3 a4" || vis.decided.Load() == n {
		t.Fatalf("after Reset %q, %d decisions", got, vis.decided.Load()-n)
	}
}
