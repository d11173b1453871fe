package gen

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

func TestCamel(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  string
	}{
		{"snake case", []string{"test_simple_text"}, "TestSimpleText"},
		{"lower camel", []string{"simpleTextTool"}, "SimpleTextTool"},
		{"receiver and method", []string{"Store", "Set"}, "StoreSet"},
		{"unexported receiver", []string{"everything", "triggerToolChange"}, "EverythingTriggerToolChange"},
		{"initialism in lower case", []string{"getUrlFor"}, "GetURLFor"},
		{"initialism in capitals", []string{"GetURLFor"}, "GetURLFor"},
		{"initialism first", []string{"apiClient", "Ping"}, "APIClientPing"},
		{"initialisms in a row", []string{"HTTPServer"}, "HTTPServer"},
		{"id word", []string{"user_id"}, "UserID"},
		{"json and mcp", []string{"json-to-mcp"}, "JSONToMCP"},
		{"digits stay with their word", []string{"schema202012Tool"}, "Schema202012Tool"},
		{"initialism with digits", []string{"utf8_check"}, "UTF8Check"},
		{"initialism with a number", []string{"id2"}, "ID2"},
		{"word in capitals", []string{"GET_USER"}, "GetUser"},
		{"dots and slashes", []string{"files/read.all"}, "FilesReadAll"},
		{"not an initialism", []string{"ids"}, "Ids"},
		{"non-ASCII letters", []string{"grüße"}, "Grüße"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := camel(tt.parts...); got != tt.want {
				t.Errorf("camel(%q) = %q, want %q", tt.parts, got, tt.want)
			}
		})
	}
}

func pos(line int) model.SrcPos { return model.SrcPos{File: "x.go", Line: line} }

func tool(line int, recv, goName, name string) *model.Tool {
	return &model.Tool{Pos: pos(line), Recv: recv, GoName: goName, Name: name}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name     string
		tools    []*model.Tool
		prompts  []*model.Prompt
		declared map[string]model.SrcPos
		want     []string // each tool's mcpgenCall name, in order
		register []string // Register functions, "recv=name"
		imports  []string // "path=alias"
		err      string   // a refusal's text, "" for none
	}{
		{
			name:     "function and method",
			tools:    []*model.Tool{tool(1, "", "Set", "set"), tool(2, "Store", "Set", "store_set")},
			want:     []string{"mcpgenCallSet", "mcpgenCallStoreSet"},
			register: []string{"=Register", "Store=RegisterStore"},
		},
		{
			name:  "method and function of the same words take their MCP names",
			tools: []*model.Tool{tool(1, "Store", "Set", "store_set"), tool(2, "", "StoreSet", "set_store")},
			want:  []string{"mcpgenCallStoreSet", "mcpgenCallSetStore"},
		},
		{
			name:  "the outcome does not depend on the order",
			tools: []*model.Tool{tool(2, "", "StoreSet", "set_store"), tool(1, "Store", "Set", "store_set")},
			want:  []string{"mcpgenCallSetStore", "mcpgenCallStoreSet"},
		},
		{
			name:  "MCP names of the same words too",
			tools: []*model.Tool{tool(11, "Store", "Set", "store_set"), tool(16, "", "StoreSet", "store-set")},
			err:   "x.go:16: tool StoreSet (store-set) and tool Store.Set (store_set) at x.go:11 get the same generated identifier mcpgenToolStoreSet, by their Go names and by their MCP names: rename one",
		},
		{
			name:     "a user's identifier moves the tool to its MCP name",
			tools:    []*model.Tool{tool(1, "", "Lookup", "find_item")},
			declared: map[string]model.SrcPos{"mcpgenCallLookup": pos(9)},
			want:     []string{"mcpgenCallFindItem"},
		},
		{
			name:     "a user's identifier that no name avoids",
			tools:    []*model.Tool{tool(1, "", "Lookup", "lookup")},
			declared: map[string]model.SrcPos{"mcpgenToolLookup": pos(9)},
			err:      "x.go:9: the package's own mcpgenToolLookup and tool Lookup (lookup) at x.go:1 both need the identifier mcpgenToolLookup: rename one",
		},
		{
			name:     "a user's Register",
			tools:    []*model.Tool{tool(3, "", "Ping", "ping")},
			declared: map[string]model.SrcPos{"Register": pos(8)},
			err:      "x.go:8: the package's own Register and the Register function for Ping at x.go:3 both need the identifier Register: rename one",
		},
		{
			name:  "two receivers of one Register",
			tools: []*model.Tool{tool(3, "Store", "Get", "get"), tool(5, "store", "Put", "put")},
			err:   "x.go:5: the Register function for store.Put and the Register function for Store.Get at x.go:3 both need the identifier RegisterStore: rename one",
		},
		{
			name:     "a user's name of an import",
			tools:    []*model.Tool{tool(1, "", "Ping", "ping")},
			declared: map[string]model.SrcPos{"handler": pos(9), "server": pos(10)},
			want:     []string{"mcpgenCallPing"},
			imports:  []string{handlerPkg + "=mcpgenhandler", serverPkg + "=mcpgenserver"},
		},
		{
			name:     "a user's name of a pattern",
			tools:    []*model.Tool{tool(1, "", "Ping", "ping")},
			declared: map[string]model.SrcPos{"mcpgenPattern0": pos(4)},
			err:      "x.go:4: mcpgenPattern0 is a name mcpgen gives the patterns of struct tags: rename it",
		},
		{
			name:    "a prompt and a tool of one name",
			tools:   []*model.Tool{tool(1, "", "Greet", "greet")},
			prompts: []*model.Prompt{{Pos: pos(2), GoName: "Greet", Name: "greet"}},
			want:    []string{"mcpgenCallGreet"},
		},
		{
			name: "a prompt's prefix swallows a tool's",
			// mcpgenPromptArgs + X is mcpgenPrompt + ArgsX: the prompt
			// named ArgsX moves to its MCP name.
			prompts: []*model.Prompt{
				{Pos: pos(1), GoName: "X", Name: "x"},
				{Pos: pos(2), GoName: "ArgsX", Name: "args_for_x"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &model.Handlers{Package: "p", Tools: tt.tools, Prompts: tt.prompts, Declared: tt.declared}
			n, err := newNames(h, nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, tl := range tt.tools {
				if got := n.tool(toolCall, tl); got != tt.want[i] {
					t.Errorf("tool %s: %s, want %s", tl.Name, got, tt.want[i])
				}
			}
			for _, r := range tt.register {
				recv, name, _ := strings.Cut(r, "=")
				if got := n.register[recv]; got != name {
					t.Errorf("Register of %q: %s, want %s", recv, got, name)
				}
			}
			for _, im := range tt.imports {
				path, alias, _ := strings.Cut(im, "=")
				if got := n.imports[path]; got != alias {
					t.Errorf("import %s: %q, want %q", path, got, alias)
				}
			}
			seen := map[string]string{}
			for key, base := range n.bases {
				var ids []string
				switch key.(type) {
				case *model.Tool:
					ids = prefixed(toolIdents, base)
				case *model.Prompt:
					ids = prefixed(promptIdents, base)
				}
				for _, id := range ids {
					if other, dup := seen[id]; dup {
						t.Errorf("%s named twice (%s and %s)", id, other, base)
					}
					seen[id] = base
				}
			}
			if len(tt.prompts) == 2 {
				if a, b := n.prompt(promptArgs, tt.prompts[0]), n.prompt(promptDef, tt.prompts[1]); a == b {
					t.Errorf("prompts share %s", a)
				}
			}
		})
	}
}

func prefixed(prefixes []string, base string) []string {
	out := make([]string, len(prefixes))
	for i, p := range prefixes {
		out[i] = p + base
	}
	return out
}

// The namer gives the same names every time: bases come from the model
// alone and declared names are visited in sorted order.
func TestNamesDeterministic(t *testing.T) {
	h := &model.Handlers{
		Tools: []*model.Tool{tool(1, "Store", "Set", "store_set"), tool(2, "", "StoreSet", "set_store"), tool(3, "", "Get", "fetch")},
		Declared: map[string]model.SrcPos{
			"mcpgenCallGet": pos(7), "a": pos(8), "b": pos(9), "c": pos(10), "d": pos(11), "handler": pos(12),
		},
	}
	first, err := newNames(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.tool(toolCall, h.Tools[2]); got != "mcpgenCallFetch" {
		t.Fatalf("tool get: %s, want mcpgenCallFetch", got)
	}
	for i := 0; i < 20; i++ {
		again, err := newNames(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range h.Tools {
			if a, b := first.tool(toolCall, tl), again.tool(toolCall, tl); a != b {
				t.Fatalf("run %d named tool %s %s, then %s", i, tl.Name, a, b)
			}
		}
	}
	h.Declared["mcpgenCallFetch"] = pos(6)
	for i := 0; i < 20; i++ {
		_, err := newNames(h, nil)
		want := "x.go:6: the package's own mcpgenCallFetch and tool Get (fetch) at x.go:3 both need the identifier mcpgenCallFetch: rename one"
		if err == nil || err.Error() != want {
			t.Fatalf("run %d: err = %v, want %s", i, err, want)
		}
	}
}
