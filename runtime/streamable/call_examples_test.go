package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tests that post the official 2026-07-28 example requests (the shared
// folder's examples/2026-07-28) to an engine that serves what they ask
// for, built from the example results, and check the answers against the
// example responses and the generated types.

// example returns the shared example <Definition>/<file> as raw JSON.
func example(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.ExamplesDir(t, "2026-07-28"), name))
	if err != nil {
		t.Fatalf("example %s: %v", name, err)
	}
	return data
}

// exampleMember returns the member at the path of keys in an example.
func exampleMember(t testing.TB, name string, path ...string) json.RawMessage {
	t.Helper()
	raw := json.RawMessage(example(t, name))
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m[k] == nil {
			t.Fatalf("example %s has no %s", name, strings.Join(path, "."))
		}
		raw = m[k]
	}
	return raw
}

func asValue(t testing.TB, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	return v
}

// withoutServerInfo returns a result without the serverInfo the server
// adds to _meta (dropping _meta when nothing else is in it), having
// checked that it is there.
func withoutServerInfo(t testing.TB, result json.RawMessage) map[string]any {
	t.Helper()
	m, _ := asValue(t, result).(map[string]any)
	meta, _ := m["_meta"].(map[string]any)
	if meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("no serverInfo in the result's _meta: %s", result)
	}
	delete(meta, "io.modelcontextprotocol/serverInfo")
	if len(meta) == 0 {
		delete(m, "_meta")
	}
	return m
}

// impliedHeaders returns the headers a 2026-07-28 client sends with a
// request: the version of its _meta, its method, and the name or URI it
// is about.
func impliedHeaders(t testing.TB, body []byte) []string {
	t.Helper()
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string                     `json:"name"`
			URI  string                     `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var version string
	json.Unmarshal(req.Params.Meta["io.modelcontextprotocol/protocolVersion"], &version)
	h := []string{"MCP-Protocol-Version", version, "Mcp-Method", req.Method}
	switch req.Method {
	case "tools/call", "prompts/get":
		h = append(h, "Mcp-Name", req.Params.Name)
	case "resources/read":
		h = append(h, "Mcp-Name", req.Params.URI)
	}
	return h
}

// exampleEngine serves what the example requests ask for, as the example
// results describe it: the tool get_weather, the prompt code_review, the
// resource file:///project/src/main.rs (cached a minute, privately), the
// template file:///{path}, and the resource file:///project/config.json
// that the example subscription watches. Results are cached an hour,
// publicly, as the example list results say.
func exampleEngine(t testing.TB) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "ExampleServer", Version: "1.0.0"}, &server.Options{Caching: server.Caching{TTL: time.Hour, Public: true}})
	var tools []json.RawMessage
	json.Unmarshal(exampleMember(t, "ListToolsResultResponse/list-tools-result-response.json", "result", "tools"), &tools)
	var tool mcp.Tool
	if err := tool.UnmarshalJSON(tools[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(tool, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var in struct{ Location string }
		json.Unmarshal(p.Arguments, &in)
		return textResult("Current weather in " + in.Location + ":\nTemperature: 72°F\nConditions: Partly cloudy"), nil
	}, rawschema.Validate()); err != nil {
		t.Fatal(err)
	}
	var prompts struct{ Prompts []json.RawMessage }
	json.Unmarshal(example(t, "ListPromptsResult/prompts-list-with-cursor-and-ttl.json"), &prompts)
	var prompt mcp.Prompt
	if err := prompt.UnmarshalJSON(prompts.Prompts[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(prompt, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "Code review prompt", Messages: []mcp.PromptMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: "Please review this Python code:\n" + p.Arguments["code"]}},
		}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	readResult := exampleMember(t, "ReadResourceResultResponse/read-resource-result-response-with-ttl.json", "result")
	if err := s.AddResource(mcp.Resource{URI: "file:///project/src/main.rs", Name: "main.rs"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		var r struct {
			Contents json.RawMessage `json:"contents"`
		}
		json.Unmarshal(readResult, &r)
		var out mcp.ReadResourceResult
		err := out.UnmarshalJSON([]byte(`{"contents":` + string(r.Contents) + `}`))
		return &out, err
	}, server.ResourceCaching(server.Caching{TTL: time.Minute})); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(mcp.Resource{URI: "file:///project/config.json", Name: "config.json"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return textContents(p.URI, "{}"), nil
	}); err != nil {
		t.Fatal(err)
	}
	var templates struct{ ResourceTemplates []json.RawMessage }
	json.Unmarshal(exampleMember(t, "ListResourceTemplatesResultResponse/list-resource-templates-result-response.json", "result"), &templates)
	var tmpl mcp.ResourceTemplate
	if err := tmpl.UnmarshalJSON(templates.ResourceTemplates[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResourceTemplate(tmpl, func(ctx context.Context, p *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
		return textContents(p.URI, vars["path"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// validated is a generated response type.
type validated interface {
	UnmarshalJSON([]byte) error
	ValidateVersion(mcp.ProtocolVersion) error
}

func TestExampleRequests(t *testing.T) {
	_, ts := serveEngine(t, exampleEngine(t), nil)
	c := newClient(t, ts)
	callParams := example(t, "CallToolRequestParams/get-weather-tool-call-params.json")
	listPrompts := example(t, "ListPromptsRequest/list-prompts-request.json")
	for _, tc := range []struct {
		name string
		body []byte
		as   validated
		// check compares the result with the example's.
		check func(t *testing.T, result json.RawMessage)
	}{
		{"DiscoverRequest", example(t, "DiscoverRequest/server-discover-request.json"), new(mcp.DiscoverResultResponse), func(t *testing.T, result json.RawMessage) {
			var got, want mcp.DiscoverResult
			got.UnmarshalJSON(result)
			want.UnmarshalJSON(exampleMember(t, "DiscoverResultResponse/discover-result-response.json", "result"))
			if got.TTLMs != want.TTLMs || got.CacheScope != want.CacheScope || got.ResultType != want.ResultType {
				t.Errorf("ttlMs %d, cacheScope %q, resultType %q; the example has %d, %q, %q", got.TTLMs, got.CacheScope, got.ResultType, want.TTLMs, want.CacheScope, want.ResultType)
			}
			for _, v := range want.SupportedVersions {
				if !strings.Contains(string(result), `"`+v+`"`) {
					t.Errorf("supportedVersions lacks %s: %s", v, result)
				}
			}
			if got.Capabilities.Tools == nil || got.Capabilities.Resources == nil || got.Capabilities.Prompts == nil {
				t.Errorf("capabilities %s do not offer tools, resources and prompts", result)
			}
		}},
		{"CallToolRequest", []byte(`{"jsonrpc":"2.0","id":"call-tool-example","method":"tools/call","params":` + string(callParams) + `}`), new(mcp.CallToolResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, exampleMember(t, "CallToolResultResponse/call-tool-result-response.json", "result")).(map[string]any)
			got := withoutServerInfo(t, result)
			if !reflect.DeepEqual(got["content"], want["content"]) || got["resultType"] != want["resultType"] {
				t.Errorf("result %v, the example has %v", got, want)
			}
		}},
		{"ListToolsRequest", []byte(strings.Replace(strings.Replace(string(listPrompts), `"prompts/list"`, `"tools/list"`, 1), "list-prompts-example", "list-tools-example", 1)), new(mcp.ListToolsResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, exampleMember(t, "ListToolsResultResponse/list-tools-result-response.json", "result")).(map[string]any)
			got := withoutServerInfo(t, result)
			delete(want, "nextCursor") // the example's list has more pages
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result %v, the example has %v", got, want)
			}
		}},
		{"ListPromptsRequest", listPrompts, new(mcp.ListPromptsResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, example(t, "ListPromptsResult/prompts-list-with-cursor-and-ttl.json")).(map[string]any)
			got := withoutServerInfo(t, result)
			if !reflect.DeepEqual(got["prompts"], want["prompts"]) || got["cacheScope"] != "public" || got["ttlMs"] != 3600000.0 {
				t.Errorf("result %v; the example's prompts are %v", got, want["prompts"])
			}
		}},
		{"GetPromptRequest", example(t, "GetPromptRequest/get-prompt-request.json"), new(mcp.GetPromptResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, example(t, "GetPromptResult/code-review-prompt.json"))
			if got := withoutServerInfo(t, result); !reflect.DeepEqual(got, want) {
				t.Errorf("result %v, the example has %v", got, want)
			}
		}},
		{"ReadResourceRequest", example(t, "ReadResourceRequest/read-resource-request.json"), new(mcp.ReadResourceResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, exampleMember(t, "ReadResourceResultResponse/read-resource-result-response-with-ttl.json", "result"))
			if got := withoutServerInfo(t, result); !reflect.DeepEqual(got, want) {
				t.Errorf("result %v, the example has %v", got, want)
			}
		}},
		{"ListResourceTemplatesRequest", example(t, "ListResourceTemplatesRequest/list-resource-templates-request.json"), new(mcp.ListResourceTemplatesResultResponse), func(t *testing.T, result json.RawMessage) {
			want := asValue(t, exampleMember(t, "ListResourceTemplatesResultResponse/list-resource-templates-result-response.json", "result"))
			if got := withoutServerInfo(t, result); !reflect.DeepEqual(got, want) {
				t.Errorf("result %v, the example has %v", got, want)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(tc.body, &req)
			r := c.send(string(tc.body), impliedHeaders(t, tc.body)...)
			r.result(t, string(req.ID))
			last := []byte(r.raw[len(r.raw)-1])
			if err := tc.as.UnmarshalJSON(last); err != nil {
				t.Fatalf("the response does not decode as %T: %v\n%s", tc.as, err, last)
			}
			if err := tc.as.ValidateVersion(mcp.Version20260728); err != nil {
				t.Fatalf("the response is not a valid %T: %v\n%s", tc.as, err, last)
			}
			tc.check(t, r.resp.Result)
		})
	}
}

// TestExampleErrors provokes the errors the examples show and checks that
// ours decode as their types and carry what the examples carry.
func TestExampleErrors(t *testing.T) {
	s := exampleEngine(t)
	addTool(t, s, "ask", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if _, err := server.Elicit(ctx, nameQuestion(t)); err != nil {
			return nil, err
		}
		return textResult(""), nil
	})
	_, ts := serveEngine(t, s, nil)
	c := newClient(t, ts)
	params := string(example(t, "CallToolRequestParams/get-weather-tool-call-params.json"))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`

	t.Run("HeaderMismatchError", func(t *testing.T) {
		r := c.send(call, "MCP-Protocol-Version", modern, "Mcp-Method", "tools/call", "Mcp-Name", "foo")
		r.wantError(t, http.StatusBadRequest, mcp.CodeHeaderMismatch, "1")
		var typed mcp.HeaderMismatchError
		if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
			t.Fatalf("not a HeaderMismatchError: %s (%v)", r.raw[0], err)
		}
	})
	t.Run("UnsupportedProtocolVersionError", func(t *testing.T) {
		requested := asValue(t, exampleMember(t, "UnsupportedProtocolVersionError/unsupported-version.json", "error", "data", "requested")).(string)
		body := strings.Replace(call, modern, requested, 1)
		r := c.send(body, "MCP-Protocol-Version", requested, "Mcp-Method", "tools/call", "Mcp-Name", "get_weather")
		e := r.wantError(t, http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion, "1")
		var typed mcp.UnsupportedProtocolVersionError
		if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
			t.Fatalf("not an UnsupportedProtocolVersionError: %s (%v)", r.raw[0], err)
		}
		if got := asValue(t, e.Data).(map[string]any)["requested"]; got != requested {
			t.Fatalf("requested %v, want %s", got, requested)
		}
	})
	t.Run("MissingRequiredClientCapabilityError", func(t *testing.T) {
		body := strings.Replace(strings.Replace(call, `"get_weather"`, `"ask"`, 1), `"location"`, `"x"`, 1)
		r := c.send(body, hdr26("tools/call", "ask")...)
		e := r.wantError(t, http.StatusBadRequest, mcp.CodeMissingRequiredClientCapability, "1")
		var typed mcp.MissingRequiredClientCapabilityError
		if err := typed.UnmarshalJSON([]byte(r.raw[0])); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
			t.Fatalf("not a MissingRequiredClientCapabilityError: %s (%v)", r.raw[0], err)
		}
		want := asValue(t, exampleMember(t, "MissingRequiredClientCapabilityError/missing-elicitation-capability.json", "error", "data"))
		if got := asValue(t, e.Data); !reflect.DeepEqual(got, want) {
			t.Fatalf("data %v, the example has %v", got, want)
		}
	})
	t.Run("InvalidParamsError", func(t *testing.T) {
		list := strings.Replace(string(example(t, "ListPromptsRequest/list-prompts-request.json")), `"params": {`, `"params": {"cursor": "next-page-cursor",`, 1)
		r := c.send(list, hdr26("prompts/list", "")...)
		r.wantError(t, http.StatusBadRequest, -32602, `"list-prompts-example"`)
		var typed mcp.InvalidParamsError
		if err := typed.UnmarshalJSON(errorMember(t, r)); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
			t.Fatalf("not an InvalidParamsError: %s (%v)", r.raw[0], err)
		}
	})
	t.Run("MethodNotFoundError", func(t *testing.T) {
		_, bare := serveEngine(t, server.New(mcp.Implementation{Name: "bare", Version: "1"}, nil), nil)
		body := example(t, "ListPromptsRequest/list-prompts-request.json")
		r := newClient(t, bare).send(string(body), impliedHeaders(t, body)...)
		r.wantError(t, http.StatusNotFound, -32601, `"list-prompts-example"`)
		var typed mcp.MethodNotFoundError
		if err := typed.UnmarshalJSON(errorMember(t, r)); err != nil || typed.ValidateVersion(mcp.Version20260728) != nil {
			t.Fatalf("not a MethodNotFoundError: %s (%v)", r.raw[0], err)
		}
	})
}

// errorMember returns the error object of an error response.
func errorMember(t testing.TB, r *reply) []byte {
	t.Helper()
	var m struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.raw[len(r.raw)-1]), &m); err != nil || m.Error == nil {
		t.Fatalf("no error in %s", r.raw)
	}
	return m.Error
}

// TestExampleSubscription opens the subscription the example
// acknowledgement answers, and checks the acknowledgement, a change, and
// the completion result against the examples.
func TestExampleSubscription(t *testing.T) {
	h, ts := serveEngine(t, exampleEngine(t), nil)
	srv := srvOf(h)
	ackExample := example(t, "SubscriptionsAcknowledgedNotification/listen-acknowledged.json")
	filter := exampleMember(t, "SubscriptionsAcknowledgedNotification/listen-acknowledged.json", "params", "notifications")
	ls, ack := openListen(t, newClient(t, ts), `"listen-1"`, string(filter))
	gotAck, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": ack.Method, "params": ack.Params})
	if got, want := asValue(t, gotAck), asValue(t, ackExample); !reflect.DeepEqual(got, want) {
		t.Fatalf("acknowledgement %s\nthe example: %s", gotAck, ackExample)
	}
	srv.RemoveTool("get_weather")
	m := ls.next(t)
	gotNote, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": m.Method, "params": m.Params})
	if got, want := asValue(t, gotNote), asValue(t, example(t, "ToolListChangedNotification/tools-list-changed.json")); !reflect.DeepEqual(got, want) {
		t.Fatalf("after RemoveTool: %s, the example %v", gotNote, want)
	}
	srv.ResourceUpdated(context.Background(), "file:///project/config.json")
	m = ls.next(t)
	gotNote, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "method": m.Method, "params": m.Params})
	want := asValue(t, example(t, "ResourceUpdatedNotification/file-resource-updated-notification.json")).(map[string]any)
	want["params"].(map[string]any)["uri"] = "file:///project/config.json" // the URI the example subscription watches
	if got := asValue(t, gotNote); !reflect.DeepEqual(got, want) {
		t.Fatalf("after ResourceUpdated: %s, want %v", gotNote, want)
	}
	go h.Close()
	m = ls.next(t)
	gotEnd, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "result": withoutServerInfo(t, m.Result)})
	if got, want := asValue(t, gotEnd), asValue(t, example(t, "SubscriptionsListenResultResponse/listen-closed-response.json")); !reflect.DeepEqual(got, want) {
		t.Fatalf("the completion %s\nthe example: %v", gotEnd, want)
	}
}
