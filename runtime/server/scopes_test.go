package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// grants is a principal with fixed scopes.
type grants string

func (g grants) HasScope(s string) bool { return slices.Contains(strings.Fields(string(g)), s) }

// perRequest is a principal whose scopes come from the request's ctx, and
// which records the challenges it is told of.
type perRequest struct{ name string }

type scopesKey struct{}

type recorder struct {
	grants
	mu       sync.Mutex
	required [][]string
}

func (r *recorder) ChallengeScopes(_ context.Context, required []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.required = append(r.required, slices.Clone(required))
}

func (p perRequest) RequestScopes(ctx context.Context) ScopeHolder {
	r, _ := ctx.Value(scopesKey{}).(*recorder)
	if r == nil {
		return nil
	}
	return r
}

// scopedServer has a tool, a prompt, a resource and a template that need
// scopes, and counts the handlers that ran.
func scopedServer(t *testing.T) (*Server, *atomic.Int32) {
	t.Helper()
	s := newServer(nil)
	var ran atomic.Int32
	addTool(t, s, "write", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return textOf("written"), nil
	}, WithScopes("files:write", " ", "files:read", "files:write"))
	addTool(t, s, "open", func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return textOf("open"), nil
	})
	err := s.AddPrompt(mcp.Prompt{Name: "secret"}, func(context.Context, *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		ran.Add(1)
		return &mcp.GetPromptResult{}, nil
	}, PromptScopes("prompts:secret"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddResource(mcp.Resource{URI: "file:///secret", Name: "secret"}, func(context.Context, *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		ran.Add(1)
		return &mcp.ReadResourceResult{}, nil
	}, ResourceScopes("files:read"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///vault/{name}", Name: "vault"}, func(context.Context, *mcp.ReadResourceRequestParams, map[string]string) (*mcp.ReadResourceResult, error) {
		ran.Add(1)
		return &mcp.ReadResourceResult{}, nil
	}, ResourceScopes("vault"))
	if err != nil {
		t.Fatal(err)
	}
	return s, &ran
}

// requiredScopes returns the requiredScopes of an insufficient-scope
// error, failing the test for any other error.
func requiredScopes(t *testing.T, err error) []string {
	t.Helper()
	e := rpcError(t, err)
	if e.Code != CodeInsufficientScope {
		t.Fatalf("error %d %q; want %d", e.Code, e.Message, CodeInsufficientScope)
	}
	var data struct {
		RequiredScopes []string `json:"requiredScopes"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("data %s: %v", e.Data, err)
	}
	return data.RequiredScopes
}

func TestScopesRequired(t *testing.T) {
	s, ran := scopedServer(t)
	cases := []struct {
		name, method, members string
		want                  []string
	}{
		{"tool", "tools/call", `"name":"write","arguments":{}`, []string{"files:write", "files:read"}},
		{"prompt", "prompts/get", `"name":"secret"`, []string{"prompts:secret"}},
		{"resource", "resources/read", `"uri":"file:///secret"`, []string{"files:read"}},
		{"template", "resources/read", `"uri":"file:///vault/x"`, []string{"vault"}},
	}
	for _, era := range []string{"modern", "legacy"} {
		for _, who := range []struct {
			name      string
			principal any
		}{{"nobody", nil}, {"some scopes", grants("files:write prompts")}, {"not a holder", "alice"}} {
			p := startWith(t, s, WithPrincipal(context.Background(), who.principal))
			if era == "legacy" {
				p.initialize(t, "2025-11-25", "")
			}
			for _, c := range cases {
				var err error
				if era == "modern" {
					_, err = p.modern(t, c.method, "", c.members)
				} else {
					_, err = p.call(t, c.method, "{"+c.members+"}")
				}
				if got := requiredScopes(t, err); !slices.Equal(got, c.want) {
					t.Errorf("%s, %s, %s: requiredScopes %q; want %q", era, who.name, c.name, got, c.want)
				}
			}
			if _, err := p.call(t, "tools/call", `{"name":"open","arguments":{},`+modernMeta("")+`}`); err != nil {
				t.Errorf("%s, %s: a tool without scopes: %v", era, who.name, err)
			}
		}
	}
	if n := ran.Load(); n != 6 {
		t.Fatalf("%d handlers ran; want 6, the unscoped tool's", n)
	}

	p := startWith(t, s, WithPrincipal(context.Background(), grants("files:write files:read prompts:secret vault")))
	for _, c := range cases {
		if _, err := p.modern(t, c.method, "", c.members); err != nil {
			t.Errorf("%s with every scope: %v", c.name, err)
		}
	}
	if n := ran.Load(); n != 10 {
		t.Fatalf("%d handlers ran; want 10", n)
	}
	// The message names what is missing.
	p = startWith(t, s, WithPrincipal(context.Background(), grants("files:read")))
	_, err := p.modern(t, "tools/call", "", `"name":"write","arguments":{}`)
	if msg := rpcError(t, err).Message; !strings.Contains(msg, `"files:write"`) || strings.Contains(msg, `"files:read"`) {
		t.Errorf("message %q; want it to name files:write only", msg)
	}
}

func TestScopesPerRequest(t *testing.T) {
	s, ran := scopedServer(t)
	rec := &recorder{grants: "files:read"}
	ctx := context.WithValue(WithPrincipal(context.Background(), perRequest{"alice"}), scopesKey{}, rec)
	p := startWith(t, s, ctx)
	_, err := p.modern(t, "tools/call", "", `"name":"write","arguments":{}`)
	if got := requiredScopes(t, err); !slices.Equal(got, []string{"files:write", "files:read"}) {
		t.Fatalf("requiredScopes %q", got)
	}
	if _, err := p.modern(t, "resources/read", "", `"uri":"file:///secret"`); err != nil {
		t.Fatalf("a resource whose scope the request has: %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.required) != 1 || !slices.Equal(rec.required[0], []string{"files:write", "files:read"}) {
		t.Fatalf("challenges %q; want the tool's one", rec.required)
	}
	if ran.Load() != 1 {
		t.Fatalf("%d handlers ran; want 1", ran.Load())
	}
	// Without credentials in ctx, a RequestScoper has no scopes.
	q := startWith(t, s, WithPrincipal(context.Background(), perRequest{"bob"}))
	_, err = q.modern(t, "resources/read", "", `"uri":"file:///secret"`)
	requiredScopes(t, err)
}

// TestScopedTaskTool checks that a tool that may run as a task is refused
// before a task is created.
func TestScopedTaskTool(t *testing.T) {
	g := newGate()
	s := New(mcp.Implementation{Name: "tasks", Version: "1"}, nil)
	addTool(t, s, "job", g.handler, WithTaskSupport(TaskOptional), WithScopes("jobs"))
	defer s.Close(context.Background())
	ctx := WithPrincipal(context.Background(), grants("other"))
	_, err := modernCall(t, ctx, s, "tools/call", tasksCaps, `"name":"job"`)
	requiredScopes(t, err)
	close(g.release)
	raw, err := modernCall(t, WithPrincipal(context.Background(), grants("jobs")), s, "tools/call", tasksCaps, `"name":"job"`)
	if err != nil || decodeTask(t, raw).TaskID == "" {
		t.Fatalf("with the scope: %s, %v", raw, err)
	}
}
