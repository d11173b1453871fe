package gosrc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// parseGolden parses the golden/handlers/<name> package.
func parseGolden(t *testing.T, name string) *model.Handlers {
	t.Helper()
	h, err := Parse(filepath.Join("..", "..", "golden", "handlers", name))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return h
}

// writeModule writes files (name → text) into a new temporary directory
// and returns it: a package of its own for a test to parse.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func toolNamed(t *testing.T, h *model.Handlers, goName string) *model.Tool {
	t.Helper()
	for _, tool := range h.Tools {
		if tool.GoName == goName {
			return tool
		}
	}
	t.Fatalf("no tool %s", goName)
	return nil
}

// The //mcp:tool directive and its options, and the input struct as JSON
// sees it.
func TestParseTool(t *testing.T) {
	h := parseGolden(t, "basic")
	if h.Package != "basic" {
		t.Errorf("package %q", h.Package)
	}
	add := toolNamed(t, h, "Add")
	if add.Name != "add_numbers" || add.Title != "Add numbers" || add.Description != "Adds two numbers and reports the sum." {
		t.Errorf("Add: name %q, title %q, description %q", add.Name, add.Title, add.Description)
	}
	var hints []string
	for _, hint := range add.Hints {
		hints = append(hints, hint.Key+"="+map[bool]string{true: "true", false: "false"}[hint.Value])
	}
	if got := strings.Join(hints, " "); got != "destructiveHint=false idempotentHint=true readOnlyHint=true" {
		t.Errorf("hints %s", got)
	}
	if add.Pos.Line == 0 || !strings.HasSuffix(add.Pos.File, "basic.go") {
		t.Errorf("position %v", add.Pos)
	}
	if add.Input == nil || add.Input.Object == nil {
		t.Fatal("Add has no input object")
	}
	props := map[string]*model.Property{}
	var names []string
	for _, p := range add.Input.Object.Fields {
		props[p.JSONName] = p
		names = append(names, p.JSONName)
	}
	// Unexported fields and json:"-" are not properties; order is the
	// struct's.
	if !slices.Equal(names, []string{"a", "b", "mode", "digits", "label"}) {
		t.Fatalf("properties %v", names)
	}
	tests := []struct {
		name string
		ok   bool
	}{
		{"a required, described", props["a"].Required && props["a"].Description == "First addend."},
		{"b bounds from its tag", props["b"].Rules.Minimum != nil && props["b"].Rules.Minimum.JSON == "0" && props["b"].Rules.Maximum.JSON == "100"},
		{"mode omitempty, optional, default", !props["mode"].Required && props["mode"].OmitEmpty && props["mode"].Rules.Default != nil && props["mode"].Rules.Default.S == "none"},
		{"mode's enum from the constants, in order", enumNames(props["mode"].Value) == "floor ceil none"},
		{"digits a pointer", props["digits"].Value.Kind == model.ValPointer && !props["digits"].Required},
		{"label omitzero with length and pattern", props["label"].OmitZero && *props["label"].Rules.MinLength == 1 && *props["label"].Rules.MaxLength == 20 && props["label"].Rules.Pattern == "^[a-z, ]+$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Error("not as the source says")
			}
		})
	}
	ping := toolNamed(t, h, "Ping")
	if ping.Name != "ping" || ping.Input != nil || len(ping.Hints) != 0 {
		t.Errorf("Ping: name %q, input %v, hints %v", ping.Name, ping.Input, ping.Hints)
	}
}

// task= and input-before-task reach the model beside the other options;
// without them a tool is TaskForbidden and starts no task itself.
func TestParseToolTask(t *testing.T) {
	h := parseGolden(t, "tasks")
	tests := []struct {
		goName          string
		want            model.TaskSupport
		inputBeforeTask bool
	}{
		{"Export", model.TaskRequired, false},
		{"Search", model.TaskOptional, false},
		{"Purge", model.TaskOptional, true},
		{"Ping", model.TaskForbidden, false},
	}
	for _, tt := range tests {
		t.Run(tt.goName, func(t *testing.T) {
			tool := toolNamed(t, h, tt.goName)
			if tool.Task != tt.want || tool.InputBeforeTask != tt.inputBeforeTask {
				t.Errorf("Task = %v, InputBeforeTask = %v; want %v, %v", tool.Task, tool.InputBeforeTask, tt.want, tt.inputBeforeTask)
			}
		})
	}
	if purge := toolNamed(t, h, "Purge"); purge.Name != "purge" || len(purge.Hints) != 1 || purge.Hints[0].Key != "destructiveHint" {
		t.Errorf("Purge: name %q, hints %v: input-before-task disturbed the other options", purge.Name, purge.Hints)
	}
	if search := toolNamed(t, h, "Search"); search.Name != "search" || search.Title != "Search" || len(search.Hints) != 1 {
		t.Errorf("Search: name %q, title %q, hints %v: task= disturbed the other options", search.Name, search.Title, search.Hints)
	}
}

func enumNames(v *model.Value) string {
	var out []string
	for _, l := range v.Enum {
		out = append(out, l.S)
	}
	return strings.Join(out, " ")
}

// Methods carry their receiver.
func TestParseMethods(t *testing.T) {
	h := parseGolden(t, "methods")
	if len(h.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range h.Tools {
		if tool.Recv == "" {
			t.Errorf("tool %s has no receiver", tool.GoName)
		}
	}
}

// The //mcp:prompt directive: names, titles, arguments from the input
// struct (embedded structs flattened, pointers optional).
func TestParsePrompt(t *testing.T) {
	h := parseGolden(t, "prompts")
	byGo := map[string]*model.Prompt{}
	for _, p := range h.Prompts {
		byGo[p.GoName] = p
	}
	review := byGo["CodeReview"]
	if review == nil || review.Name != "code_review" || review.Title != "Review code" {
		t.Fatalf("CodeReview: %+v", review)
	}
	var args []string
	for _, a := range review.Args {
		args = append(args, a.Name+map[bool]string{true: "!", false: "?"}[a.Required])
	}
	if got := strings.Join(args, " "); got != "code! language? tone? author?" {
		t.Errorf("arguments %s", got)
	}
	if hello := byGo["Hello"]; hello == nil || hello.Name != "hello" || hello.Input != nil {
		t.Errorf("Hello: %+v", hello)
	}
}

// The //mcp:resource directive: fixed URIs and templates.
func TestParseResource(t *testing.T) {
	h := parseGolden(t, "resources")
	var fixed, templates []string
	for _, r := range h.Resources {
		if r.Template != "" {
			templates = append(templates, r.Template)
		} else {
			fixed = append(fixed, r.URI+" "+r.MIME)
		}
	}
	if !slices.Contains(fixed, "file:///README.md text/markdown") || !slices.Contains(templates, "repo://{owner}/{repo}/{+path}") {
		t.Errorf("fixed %v, templates %v", fixed, templates)
	}
}

// Descriptions reach the model from doc comments without their leading Go
// name, or from description= as written.
func TestParseDescriptions(t *testing.T) {
	basic, methods, prompts, resources := parseGolden(t, "basic"), parseGolden(t, "methods"), parseGolden(t, "prompts"), parseGolden(t, "resources")
	field := func(tool *model.Tool, name string) string {
		for _, p := range tool.Input.Object.Fields {
			if p.JSONName == name {
				return p.Description
			}
		}
		t.Fatalf("%s has no field %s", tool.GoName, name)
		return ""
	}
	entry := func(descs map[string]string, goName string) string {
		d, ok := descs[goName]
		if !ok {
			t.Fatalf("no handler %s", goName)
		}
		return d
	}
	promptDescs, resourceDescs := map[string]string{}, map[string]string{}
	for _, p := range prompts.Prompts {
		promptDescs[p.GoName] = p.Description
	}
	for _, r := range resources.Resources {
		resourceDescs[r.GoName] = r.Description
	}
	tests := []struct {
		name, got, want string
	}{
		{"tool: Name verbs", toolNamed(t, basic, "Add").Description, "Adds two numbers and reports the sum."},
		{"method tool: Name verbs", toolNamed(t, methods, "Set").Description, "Stores a value."},
		{"description= over the doc comment", toolNamed(t, methods, "Now").Description, "The server's time, as text."},
		{"field: a noun phrase kept", field(toolNamed(t, basic, "Add"), "a"), "First addend."},
		{"field: Name is the", field(toolNamed(t, basic, "Add"), "digits"), "The number of digits to keep."},
		{"prompt: Name verbs", entry(promptDescs, "CodeReview"), "Asks the model to review a piece of code."},
		{"prompt: description=", entry(promptDescs, "Hello"), "Greets the user."},
		{"resource: Name is the", entry(resourceDescs, "Readme"), "The project's README."},
		{"resource: description=", entry(resourceDescs, "Logo"), "The project's logo, a PNG of 64x64 pixels."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("description %q, want %q", tt.got, tt.want)
			}
		})
	}
}
