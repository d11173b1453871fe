package gen

import "testing"

func TestRenderLinks(t *testing.T) {
	types := map[string]string{
		"Tool":               "Tool",
		"ToolUseContent":     "ToolUseContent",
		"CallToolRequest":    "CallToolRequest",
		"ElicitRequest":      "ElicitRequest",
		"MetaObject":         "MetaObject",
		"ResultMetaObject":   "ResultMetaObject",
		"Result":             "Result",
		"ClientCapabilities": "ClientCapabilities",
		"Implementation":     "mcp.Implementation",
	}
	lookup := func(name string) (string, bool) {
		l, ok := types[name]
		return l, ok
	}
	for _, c := range []struct{ in, want string }{
		{"no links here", "no links here"},
		{"except for {@link Tool},", "except for [Tool],"},
		{"see {@link ToolUseContent}.", "see [ToolUseContent]."},
		{"a {@link CallToolRequesttools/call} request", "a tools/call ([CallToolRequest]) request"},
		{"{@link ElicitRequestelicitation/create}", "elicitation/create ([ElicitRequest])"},
		{"the {@link MetaObject`_meta` key naming rules}", "the `_meta` key naming rules ([MetaObject])"},
		{"{@link ResultMetaObject}", "[ResultMetaObject]"},
		{"{@link Tool.outputSchema}", "[Tool].outputSchema"},
		{"{@link ClientCapabilities.sampling.tools}.", "[ClientCapabilities].sampling.tools."},
		{"{@link CallToolRequest | tools/call}", "tools/call ([CallToolRequest])"},
		{"{@link CallToolRequest tools/call}", "tools/call ([CallToolRequest])"},
		{"{@link Tool | Tool}", "[Tool]"},
		{"{@link Implementation}", "[mcp.Implementation]"},
		{"{@link Unknown}", "Unknown"},
		{"{@link Unknown.field}", "Unknown.field"},
		{"{@link Unknown | the text}", "the text (Unknown)"},
		{"{@link Tool} and {@link Result}", "[Tool] and [Result]"},
		{"unclosed {@link Tool", "unclosed {@link Tool"},
		{"{@linkcode Tool}", "{@linkcode Tool}"},
	} {
		if got := renderLinks(c.in, lookup); got != c.want {
			t.Errorf("renderLinks(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
