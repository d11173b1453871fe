package gosrc

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

var dirPos = model.SrcPos{File: "h.go", Line: 7}

// wantPosError checks that err is a *model.PosError at dirPos whose message
// is msg.
func wantPosError(t *testing.T, err error, msg string) {
	t.Helper()
	var pe *model.PosError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *model.PosError", err)
	}
	if pe.Pos != dirPos || pe.Msg != msg {
		t.Errorf("error at %v: %s\nwant at %v: %s", pe.Pos, pe.Msg, dirPos, msg)
	}
}

// optString writes options as key=value, key= or key (bare), separated by |.
func optString(opts []option) string {
	var out []string
	for _, o := range opts {
		if o.bare {
			out = append(out, o.key)
		} else {
			out = append(out, o.key+"="+o.value)
		}
	}
	return strings.Join(out, "|")
}

// The grammar of a directive line: a kind, then options key or key=value,
// values with spaces in Go double quotes.
func TestParseDirective(t *testing.T) {
	tests := []struct {
		name, text string
		kind, opts string // when it parses
		err        string // the message when it does not
	}{
		{"kind alone", "tool", "tool", "", ""},
		{"trailing blanks", "prompt   ", "prompt", "", ""},
		{"bare option", "tool readonly", "tool", "readonly", ""},
		{"key=value", "tool name=add_numbers", "tool", "name=add_numbers", ""},
		{"empty value", "tool title=", "tool", "title=", ""},
		{"quoted value with spaces", `tool title="Add two numbers" readonly`, "tool", "title=Add two numbers|readonly", ""},
		{"quoted value with escapes", `tool title="say \"hi\"\t"`, "tool", "title=say \"hi\"\t", ""},
		{"tabs between options", "tool readonly\tidempotent=false", "tool", "readonly|idempotent=false", ""},
		{"order kept", "resource uri=file:///a mime=text/plain name=a", "resource", "uri=file:///a|mime=text/plain|name=a", ""},
		{"equals sign inside a value", "resource uri=x://a?b=c", "resource", "uri=x://a?b=c", ""},
		{"missing key", "tool =x", "", "", `//mcp:tool: missing option name before "=x": write key=value`},
		{"unterminated quote", `tool title="open`, "", "", `//mcp:tool: option title: unterminated or malformed quoted value: write it as a Go string, e.g. title="two words"`},
		{"text glued to the closing quote", `tool title="a"b`, "", "", "//mcp:tool: option title: put a space after the closing quote"},
		{"quote inside a bare value", `tool title=a"b"`, "", "", `//mcp:tool: option title: a quote inside a value: quote the whole value, e.g. title="a b"`},
		{"option twice", "tool readonly readonly=false", "", "", "//mcp:tool: option readonly is given twice: keep one"},
		{"task twice, even agreeing", "tool task=optional task=optional", "", "", "//mcp:tool: option task is given twice: keep one"},
		{"scopes twice", "resource uri=x://a scopes=a scopes=b", "", "", "//mcp:resource: option scopes is given twice: keep one"},
		{"input-before-task twice", "tool task=required input-before-task input-before-task", "", "", "//mcp:tool: option input-before-task is given twice: keep one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, ok := directiveText("//mcp:" + tt.text)
			if !ok {
				t.Fatal("directiveText refused the line")
			}
			d, err := parseDirective(dirPos, text)
			if tt.err != "" {
				wantPosError(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.kind != tt.kind || optString(d.opts) != tt.opts || d.pos != dirPos {
				t.Errorf("kind %q opts %q at %v, want %q %q", d.kind, optString(d.opts), d.pos, tt.kind, tt.opts)
			}
		})
	}
}

func TestDirectiveText(t *testing.T) {
	tests := []struct {
		name, comment, text string
		ok                  bool
	}{
		{"directive", "//mcp:tool name=x", "tool name=x", true},
		{"trailing blanks trimmed", "//mcp:prompt \t ", "prompt", true},
		{"plain comment", "// Add adds.", "", false},
		{"space after the slashes", "// mcp:tool", "", false},
		{"block comment", "/*mcp:tool*/", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, ok := directiveText(tt.comment)
			if text != tt.text || ok != tt.ok {
				t.Errorf("directiveText(%q) = %q, %v, want %q, %v", tt.comment, text, ok, tt.text, tt.ok)
			}
		})
	}
}

func hintString(hints []model.Hint) string {
	var out []string
	for _, h := range hints {
		out = append(out, h.Key+"="+map[bool]string{true: "true", false: "false"}[h.Value])
	}
	return strings.Join(out, " ")
}

// Each //mcp:tool option, accepted and refused.
func TestToolDirective(t *testing.T) {
	tests := []struct {
		name, text string
		want       toolOptions
		err        string
	}{
		{"no options", "tool", toolOptions{}, ""},
		{"name", "tool name=add.v2-beta_1", toolOptions{name: "add.v2-beta_1"}, ""},
		{"name of 128 characters", "tool name=" + strings.Repeat("a", 128), toolOptions{name: strings.Repeat("a", 128)}, ""},
		{"title", `tool title="Add numbers"`, toolOptions{title: "Add numbers"}, ""},
		{"empty title", `tool title=""`, toolOptions{}, ""},
		{"description", `tool description="Files a new issue, given its title."`, toolOptions{description: "Files a new issue, given its title."}, ""},
		{"description of one word", "tool description=Pings.", toolOptions{description: "Pings."}, ""},
		{"description with escapes", `tool description="Says \"hi\".\nTwice."`, toolOptions{description: "Says \"hi\".\nTwice."}, ""},
		{"bare description", "tool description", toolOptions{}, `//mcp:tool: description needs a value: description="Files a new issue." (leave it out to take the doc comment)`},
		{"empty description", `tool description=""`, toolOptions{}, `//mcp:tool: description needs a value: description="Files a new issue." (leave it out to take the doc comment)`},
		{"blank description", `tool description=" \t"`, toolOptions{}, `//mcp:tool: description needs a value: description="Files a new issue." (leave it out to take the doc comment)`},
		{"bare hints sorted by key", "tool readonly openworld idempotent destructive", toolOptions{hints: []model.Hint{
			{Key: "destructiveHint", Value: true}, {Key: "idempotentHint", Value: true}, {Key: "openWorldHint", Value: true}, {Key: "readOnlyHint", Value: true},
		}}, ""},
		{"hint values", "tool readonly=false destructive=1 idempotent=F", toolOptions{hints: []model.Hint{
			{Key: "destructiveHint", Value: true}, {Key: "idempotentHint", Value: false}, {Key: "readOnlyHint", Value: false},
		}}, ""},
		{"input-schema", "tool input-schema=in.json", toolOptions{inputSchema: "in.json", inputSchemaSet: true}, ""},
		{"output-schema", "tool output-schema=schemas/out.json", toolOptions{outputSchema: "schemas/out.json", outputIsSet: true}, ""},
		{"no task", "tool readonly", toolOptions{hints: []model.Hint{{Key: "readOnlyHint", Value: true}}, task: model.TaskForbidden}, ""},
		{"task optional", "tool task=optional", toolOptions{task: model.TaskOptional}, ""},
		{"task required", `tool name=export task="required"`, toolOptions{name: "export", task: model.TaskRequired}, ""},
		{"input-before-task after task=required", "tool task=required input-before-task", toolOptions{task: model.TaskRequired, inputBeforeTask: true}, ""},
		{"input-before-task before task=optional", "tool input-before-task readonly task=optional", toolOptions{hints: []model.Hint{{Key: "readOnlyHint", Value: true}}, task: model.TaskOptional, inputBeforeTask: true}, ""},
		{"task without input-before-task", "tool task=optional", toolOptions{task: model.TaskOptional, inputBeforeTask: false}, ""},
		{"rate per second", "tool rate=10/s", toolOptions{rateLimit: &model.RateLimit{Count: 10, Per: model.PerSecond, Burst: 10}}, ""},
		{"rate per minute with a burst", "tool rate=30/m burst=5", toolOptions{rateLimit: &model.RateLimit{Count: 30, Per: model.PerMinute, Burst: 5}, burst: 5}, ""},
		{"burst before rate per hour", "tool burst=100 rate=500/h", toolOptions{rateLimit: &model.RateLimit{Count: 500, Per: model.PerHour, Burst: 100}, burst: 100}, ""},
		{"burst above the rate", "tool rate=1/m burst=10", toolOptions{rateLimit: &model.RateLimit{Count: 1, Per: model.PerMinute, Burst: 10}, burst: 10}, ""},
		{"rate without a unit", "tool rate=10", toolOptions{}, "//mcp:tool: rate=10: write the calls each caller may make per second, minute or hour: rate=10/s, rate=30/m or rate=500/h"},
		{"rate with a long unit", "tool rate=10/min", toolOptions{}, "//mcp:tool: rate=10/min: write the calls each caller may make per second, minute or hour: rate=10/s, rate=30/m or rate=500/h"},
		{"rate of a fraction", "tool rate=0.5/s", toolOptions{}, "//mcp:tool: rate=0.5/s: write the calls each caller may make per second, minute or hour: rate=10/s, rate=30/m or rate=500/h"},
		{"rate of zero", "tool rate=0/s", toolOptions{}, "//mcp:tool: rate=0/s: the number of calls must be from 1 to 1000000"},
		{"rate too high", "tool rate=1000001/s", toolOptions{}, "//mcp:tool: rate=1000001/s: the number of calls must be from 1 to 1000000"},
		{"bare rate", "tool rate", toolOptions{}, "//mcp:tool: rate=: write the calls each caller may make per second, minute or hour: rate=10/s, rate=30/m or rate=500/h"},
		{"burst without rate", "tool burst=5", toolOptions{}, "//mcp:tool: burst= needs rate= beside it: burst=5 says how many calls may come at once under a rate, e.g. rate=30/m burst=5"},
		{"burst of zero", "tool rate=1/s burst=0", toolOptions{}, "//mcp:tool: burst=0: write the calls a caller may make at once, a whole number from 1 to 1000000, e.g. burst=5"},
		{"burst not a number", "tool rate=1/s burst=many", toolOptions{}, "//mcp:tool: burst=many: write the calls a caller may make at once, a whole number from 1 to 1000000, e.g. burst=5"},
		{"bare burst", "tool rate=1/s burst", toolOptions{}, "//mcp:tool: burst=: write the calls a caller may make at once, a whole number from 1 to 1000000, e.g. burst=5"},
		{"one scope", "tool scopes=files:read", toolOptions{scopes: []string{"files:read"}}, ""},
		{"scopes in the order written", "tool scopes=files:write|files:read|admin", toolOptions{scopes: []string{"files:write", "files:read", "admin"}}, ""},
		{"scope that is a URL", "tool scopes=https://www.googleapis.com/auth/drive.file", toolOptions{scopes: []string{"https://www.googleapis.com/auth/drive.file"}}, ""},
		{"scopes quoted", `tool scopes="files:read|files:write"`, toolOptions{scopes: []string{"files:read", "files:write"}}, ""},
		{"scopes of every character RFC 6749 allows but |", "tool scopes=!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{}~|a=b", toolOptions{scopes: []string{"!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{}~", "a=b"}}, ""},
		{"scopes beside rate and task", "tool task=optional scopes=admin rate=10/s", toolOptions{task: model.TaskOptional, rateLimit: &model.RateLimit{Count: 10, Per: model.PerSecond, Burst: 10}, scopes: []string{"admin"}}, ""},
		{"scopes differing in case are two", "tool scopes=Admin|admin", toolOptions{scopes: []string{"Admin", "admin"}}, ""},
		{"bare scopes", "tool scopes", toolOptions{}, "//mcp:tool: scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. scopes=files:read|files:write"},
		{"empty scopes", "tool scopes=", toolOptions{}, "//mcp:tool: scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. scopes=files:read|files:write"},
		{"empty quoted scopes", `tool scopes=""`, toolOptions{}, "//mcp:tool: scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. scopes=files:read|files:write"},
		{"scopes separated by spaces", `tool scopes="files:read files:write"`, toolOptions{}, `//mcp:tool: scopes="files:read files:write": separate scopes with |, not spaces: scopes=files:read|files:write`},
		{"scopes separated by a tab", "tool scopes=\"a\\tb\"", toolOptions{}, `//mcp:tool: scopes="a\tb": separate scopes with |, not spaces: scopes=files:read|files:write`},
		{"empty scope between bars", "tool scopes=a||b", toolOptions{}, "//mcp:tool: scopes=a||b: a scope is empty: put one | between two scopes and none at the ends, e.g. scopes=files:read|files:write"},
		{"leading bar", "tool scopes=|a", toolOptions{}, "//mcp:tool: scopes=|a: a scope is empty: put one | between two scopes and none at the ends, e.g. scopes=files:read|files:write"},
		{"trailing bar", "tool scopes=a|", toolOptions{}, "//mcp:tool: scopes=a|: a scope is empty: put one | between two scopes and none at the ends, e.g. scopes=files:read|files:write"},
		{"a bar alone", "tool scopes=|", toolOptions{}, "//mcp:tool: scopes=|: a scope is empty: put one | between two scopes and none at the ends, e.g. scopes=files:read|files:write"},
		{"scope written twice", "tool scopes=a|b|a", toolOptions{}, "//mcp:tool: scopes=a|b|a: scope a is written twice: keep one"},
		{"backslash in a scope", `tool scopes=files|a\b`, toolOptions{}, `//mcp:tool: scopes: scope "a\\b" holds '\\': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"quote in a scope", `tool scopes="a\"b"`, toolOptions{}, `//mcp:tool: scopes: scope "a\"b" holds '"': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"non-ASCII scope", "tool scopes=dateien:größe", toolOptions{}, `//mcp:tool: scopes: scope "dateien:größe" holds 'ö': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"control character in a scope", `tool scopes="a\x7f"`, toolOptions{}, `//mcp:tool: scopes: scope "a\x7f" holds '\x7f': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"bad character checked before an empty scope", `tool scopes="||a\x01"`, toolOptions{}, `//mcp:tool: scopes: scope "a\x01" holds '\x01': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"scope misspelt", "tool scope=admin", toolOptions{}, `//mcp:tool: unknown option "scope": use name=, title=, description=, readonly, destructive, idempotent, openworld, task=, input-before-task, rate=, burst=, scopes=, input-schema= or output-schema=`},
		{"name with a space", `tool name="add numbers"`, toolOptions{}, `//mcp:tool: name="add numbers" is not a valid tool name: use 1 to 128 letters, digits, '_', '-' or '.'`},
		{"name of 129 characters", "tool name=" + strings.Repeat("a", 129), toolOptions{}, `//mcp:tool: name="` + strings.Repeat("a", 129) + `" is not a valid tool name: use 1 to 128 letters, digits, '_', '-' or '.'`},
		{"bare name", "tool name", toolOptions{}, `//mcp:tool: name="" is not a valid tool name: use 1 to 128 letters, digits, '_', '-' or '.'`},
		{"slash in a name", "tool name=a/b", toolOptions{}, `//mcp:tool: name="a/b" is not a valid tool name: use 1 to 128 letters, digits, '_', '-' or '.'`},
		{"bare title", "tool title", toolOptions{}, `//mcp:tool: title needs a value: title="Plan a trip"`},
		{"hint not a boolean", "tool readonly=yes", toolOptions{}, "//mcp:tool: readonly=yes: write readonly, readonly=true or readonly=false"},
		{"bare input-schema", "tool input-schema", toolOptions{}, "//mcp:tool: input-schema needs a JSON file next to the package's sources: input-schema=FILE.json"},
		{"output-schema not .json", "tool output-schema=out.yaml", toolOptions{}, "//mcp:tool: output-schema needs a JSON file next to the package's sources: output-schema=FILE.json"},
		{"task maybe", "tool task=maybe", toolOptions{}, "//mcp:tool: task=maybe: write task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"task in capitals", "tool task=Optional", toolOptions{}, "//mcp:tool: task=Optional: write task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"task forbidden, the default, is not written", "tool task=forbidden", toolOptions{}, "//mcp:tool: task=forbidden: write task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"task empty", "tool task=", toolOptions{}, "//mcp:tool: task needs a value: task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"task empty quoted", `tool task=""`, toolOptions{}, "//mcp:tool: task needs a value: task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"bare task", "tool task", toolOptions{}, "//mcp:tool: task needs a value: task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"input-before-task without task", "tool input-before-task", toolOptions{}, "//mcp:tool: input-before-task needs task=optional or task=required beside it: a tool that never runs as a task has no task to start"},
		{"input-before-task beside other options but no task", "tool name=ask readonly input-before-task", toolOptions{}, "//mcp:tool: input-before-task needs task=optional or task=required beside it: a tool that never runs as a task has no task to start"},
		{"input-before-task with a value", "tool task=required input-before-task=true", toolOptions{}, "//mcp:tool: input-before-task=true: write input-before-task alone, with no value"},
		{"input-before-task with an empty value", "tool task=required input-before-task=", toolOptions{}, "//mcp:tool: input-before-task=: write input-before-task alone, with no value"},
		{"input-before-task with a bad task", "tool input-before-task task=maybe", toolOptions{}, "//mcp:tool: task=maybe: write task=optional or task=required (leave it out for a tool that always answers at once)"},
		{"input-before-task misspelt", "tool task=required input-before-tasks", toolOptions{}, `//mcp:tool: unknown option "input-before-tasks": use name=, title=, description=, readonly, destructive, idempotent, openworld, task=, input-before-task, rate=, burst=, scopes=, input-schema= or output-schema=`},
		{"unknown option", "tool readOnly", toolOptions{}, `//mcp:tool: unknown option "readOnly": use name=, title=, description=, readonly, destructive, idempotent, openworld, task=, input-before-task, rate=, burst=, scopes=, input-schema= or output-schema=`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDirective(dirPos, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			got, err := toolDirective(d)
			if tt.err != "" {
				wantPosError(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.name != tt.want.name || got.title != tt.want.title || got.description != tt.want.description || hintString(got.hints) != hintString(tt.want.hints) || got.task != tt.want.task || got.inputBeforeTask != tt.want.inputBeforeTask ||
				got.inputSchema != tt.want.inputSchema || got.inputSchemaSet != tt.want.inputSchemaSet ||
				got.outputSchema != tt.want.outputSchema || got.outputIsSet != tt.want.outputIsSet ||
				!reflect.DeepEqual(got.rateLimit, tt.want.rateLimit) || got.burst != tt.want.burst || !slices.Equal(got.scopes, tt.want.scopes) {
				t.Errorf("toolDirective(%q) = %+v (rate %+v), want %+v (rate %+v)", tt.text, *got, got.rateLimit, tt.want, tt.want.rateLimit)
			}
		})
	}
}

// Each //mcp:prompt and //mcp:resource option, with the keys each kind
// allows (as prompt and resource pass them).
func TestEntryDirective(t *testing.T) {
	prompt := []string{"name", "title", "description", "scopes"}
	resource := []string{"uri", "uri-template", "name", "title", "description", "mime", "scopes"}
	tests := []struct {
		name, text string
		allowed    []string
		want       entryOptions
		err        string
	}{
		{"prompt without options", "prompt", prompt, entryOptions{}, ""},
		{"prompt name and title", `prompt name=review title="Review code"`, prompt, entryOptions{name: "review", title: "Review code"}, ""},
		{"resource uri and mime", "resource uri=file:///README.md mime=text/markdown", resource, entryOptions{uri: "file:///README.md", mime: "text/markdown"}, ""},
		{"resource template", `resource uri-template="repo://{owner}/{repo}" name=repo title=Repo`, resource, entryOptions{template: "repo://{owner}/{repo}", name: "repo", title: "Repo"}, ""},
		{"prompt takes no mime", "prompt mime=text/plain", prompt, entryOptions{}, `//mcp:prompt: unknown option "mime": use name=, title=, description=, scopes=`},
		{"resource unknown option", "resource url=x://a", resource, entryOptions{}, `//mcp:resource: unknown option "url": use uri=, uri-template=, name=, title=, description=, mime=, scopes=`},
		{"prompt scopes", "prompt name=review scopes=code:read", prompt, entryOptions{name: "review", scopes: []string{"code:read"}}, ""},
		{"resource scopes in the order written", "resource uri=file:///secret scopes=files:read|admin", resource, entryOptions{uri: "file:///secret", scopes: []string{"files:read", "admin"}}, ""},
		{"template scopes", `resource scopes="repo" uri-template="repo://{owner}/{repo}"`, resource, entryOptions{template: "repo://{owner}/{repo}", scopes: []string{"repo"}}, ""},
		{"bare prompt scopes", "prompt scopes", prompt, entryOptions{}, "//mcp:prompt: scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. scopes=files:read|files:write"},
		{"empty resource scopes", `resource uri=x://a scopes=""`, resource, entryOptions{}, "//mcp:resource: scopes needs a value: the OAuth scopes a caller's token must hold, separated by |, e.g. scopes=files:read|files:write"},
		{"prompt scopes separated by spaces", `prompt scopes="a b"`, prompt, entryOptions{}, `//mcp:prompt: scopes="a b": separate scopes with |, not spaces: scopes=files:read|files:write`},
		{"resource empty scope", "resource uri=x://a scopes=a||b", resource, entryOptions{}, "//mcp:resource: scopes=a||b: a scope is empty: put one | between two scopes and none at the ends, e.g. scopes=files:read|files:write"},
		{"template scope twice", "resource uri-template=x://{a} scopes=r|r", resource, entryOptions{}, "//mcp:resource: scopes=r|r: scope r is written twice: keep one"},
		{"resource scope not ASCII", "resource uri=x://a scopes=lesen:ä", resource, entryOptions{}, `//mcp:resource: scopes: scope "lesen:ä" holds 'ä': an OAuth scope (RFC 6749 §3.3) is printable ASCII without spaces, '"' or '\'`},
		{"prompt description", `prompt name=review description="Reviews a change."`, prompt, entryOptions{name: "review", description: "Reviews a change."}, ""},
		{"resource description", `resource uri=file:///README.md description="The project's README."`, resource, entryOptions{uri: "file:///README.md", description: "The project's README."}, ""},
		{"bare prompt description", "prompt description", prompt, entryOptions{}, `//mcp:prompt: description needs a value: description="Reviews a change." (leave it out to take the doc comment)`},
		{"empty resource description", `resource uri=x://a description=""`, resource, entryOptions{}, `//mcp:resource: description needs a value: description="The project's README." (leave it out to take the doc comment)`},
		{"bare option", "prompt name", prompt, entryOptions{}, "//mcp:prompt: name needs a value: name=..."},
		{"empty value", `resource uri=""`, resource, entryOptions{}, "//mcp:resource: uri needs a value: uri=..."},
		{"mime without a subtype", "resource uri=x://a mime=text", resource, entryOptions{}, "//mcp:resource: mime=text is not a MIME type: write type/subtype, e.g. mime=text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDirective(dirPos, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			got, err := entryDirective(d, tt.allowed...)
			if tt.err != "" {
				wantPosError(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("entryDirective(%q) = %+v, want %+v", tt.text, *got, tt.want)
			}
		})
	}
}

// The //mcp:schema package option.
func TestSchemaDirective(t *testing.T) {
	tests := []struct {
		name, text string
		want       model.Draft
		err        string
	}{
		{"draft-07", "schema draft-07", model.Draft07, ""},
		{"2020-12", "schema 2020-12", model.Draft2020, ""},
		{"extra blanks", "schema   draft-07", model.Draft07, ""},
		{"no dialect", "schema", 0, "//mcp:schema : unknown dialect: write //mcp:schema draft-07 (or 2020-12, the default)"},
		{"unknown dialect", "schema draft-04", 0, "//mcp:schema draft-04: unknown dialect: write //mcp:schema draft-07 (or 2020-12, the default)"},
		{"dialect URL", "schema http://json-schema.org/draft-07/schema#", 0, "//mcp:schema http://json-schema.org/draft-07/schema#: unknown dialect: write //mcp:schema draft-07 (or 2020-12, the default)"},
		{"a word that starts with schema", "schemas draft-07", 0, "unknown directive //mcp:schemas: the package option is //mcp:schema draft-07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schemaDirective(dirPos, tt.text)
			if tt.err != "" {
				wantPosError(t, err, tt.err)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("schemaDirective(%q) = %v, %v, want %v", tt.text, got, err, tt.want)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Add", "add"}, {"AddNumbers", "add_numbers"}, {"GetURLFor", "get_url_for"},
		{"HTTPServer", "http_server"}, {"Get2Things", "get2_things"}, {"ID", "id"},
		{"add", "add"}, {"userID", "user_id"}, {"ÜberCool", "über_cool"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := snakeCase(tt.in); got != tt.want {
				t.Errorf("snakeCase(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// The scanner's refusals of where directives sit, which no golden bad
// case covers: all in one package, whose load reports them joined.
func TestDirectivePlacement(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/place\n\ngo 1.26\n",
		"a.go": `//mcp:schema draft-07

package place

import "context"

// mcp:tool
func Spaced(ctx context.Context) (string, error) { return "", nil }

// mcp:resource uri=x://a
func SpacedResource(ctx context.Context) (string, error) { return "", nil }

//mcp:tool
//mcp:prompt
func Twice(ctx context.Context) (string, error) { return "", nil }

//mcp:schema draft-07
func Schema(ctx context.Context) (string, error) { return "", nil }
`,
		"b.go": `package place

//mcp:schema 2020-12
`,
	})
	_, err := Parse(dir)
	if err == nil {
		t.Fatal("Parse succeeded")
	}
	// Positions are relative to the package's directory.
	got := strings.Split(err.Error(), "\n")
	tests := []struct{ name, want string }{
		{"space after the slashes", "a.go:7: write directives without a space after the slashes: //mcp:tool, not // mcp:tool"},
		{"space before a resource", "a.go:10: write directives without a space after the slashes: //mcp:tool, not // mcp:tool"},
		{"two directives", "a.go:14: Twice has more than one //mcp: directive: keep one"},
		{"schema on a function", "a.go:17: //mcp:schema is a package option, not a handler's: put it in a comment of its own, e.g. above the package clause"},
		{"files disagree", "b.go:3: //mcp:schema disagrees with the one at a.go:1: a package has one schema dialect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Contains(got, tt.want) {
				t.Errorf("errors\n%s\nlack\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
	if len(got) != len(tests) {
		t.Errorf("%d errors, want %d:\n%s", len(got), len(tests), strings.Join(got, "\n"))
	}
}
