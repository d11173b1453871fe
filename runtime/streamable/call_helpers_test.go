package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/rawschema"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Helpers of the tests of the 2026-07-28 era on the endpoint (call_*_test.go,
// eras_test.go): request bodies and headers as a 2026-07-28 client sends
// them, and the answer of one POST taken apart.

const modern = "2026-07-28"

// meta26 returns the _meta of a 2026-07-28 request that declares caps (a
// JSON object, "" for none) and has the extra members given, each a
// `"key":value` text.
func meta26(caps string, extra ...string) string {
	if caps == "" {
		caps = "{}"
	}
	m := `{"io.modelcontextprotocol/protocolVersion":"` + modern + `","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"c26","version":"1"}`
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

// body26 returns a JSON-RPC request with id (JSON) whose params hold the
// members given (JSON object members without braces, "" for none) and,
// unless meta is "", that _meta.
func body26(id, method, members, meta string) string {
	if meta != "" {
		if members != "" {
			members += ","
		}
		members += `"_meta":` + meta
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + members + `}}`
}

// call26 returns a tools/call of tool with args (JSON, "" for {}).
func call26(id, tool, args, meta string) string {
	if args == "" {
		args = "{}"
	}
	return body26(id, "tools/call", `"name":`+jsonString(tool)+`,"arguments":`+args, meta)
}

// listen26 returns a subscriptions/listen with the filter (a JSON object).
func listen26(id, filter string) string {
	return body26(id, "subscriptions/listen", `"notifications":`+filter, meta26(""))
}

// hdr26 returns the headers a 2026-07-28 client sends with a request of
// method about name ("" for a method without Mcp-Name), followed by more
// name/value pairs.
func hdr26(method, name string, more ...string) []string {
	h := []string{"MCP-Protocol-Version", modern, "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return append(h, more...)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rpcMessage is a JSON-RPC message as a test reads it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// reply is the answer to one POST that carried a request.
type reply struct {
	status int
	header http.Header
	sse    bool
	notes  []rpcMessage // the notifications before the response
	raw    []string     // every message, as sent
	resp   rpcMessage   // the response, last
}

// send posts body and reads the whole answer.
func (c *client) send(body string, hdr ...string) *reply {
	c.t.Helper()
	return readReply(c.t, c.do("POST", body, hdr...))
}

// readReply reads an answer: one JSON body, or an SSE stream of
// notifications that ends with the response.
func readReply(t testing.TB, resp *http.Response) *reply {
	t.Helper()
	r := &reply{status: resp.StatusCode, header: resp.Header, sse: resp.Header.Get("Content-Type") == "text/event-stream"}
	r.raw = messages(t, resp)
	if len(r.raw) == 0 {
		t.Fatalf("%d: an answer without messages", r.status)
	}
	for i, raw := range r.raw {
		var m rpcMessage
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("%d: message %d is not JSON: %v\n%s", r.status, i, err, raw)
		}
		if i < len(r.raw)-1 {
			if m.Method == "" || m.ID != nil {
				t.Fatalf("message %d before the response is not a notification: %s", i, raw)
			}
			r.notes = append(r.notes, m)
			continue
		}
		if m.Method != "" {
			t.Fatalf("the answer ends with %s, not a response", raw)
		}
		r.resp = m
	}
	return r
}

// wantError checks that the reply is one application/json error response
// with the HTTP status, the JSON-RPC code and the request's id (JSON).
func (r *reply) wantError(t testing.TB, status int, code int64, id string) *rpcError {
	t.Helper()
	if r.status != status || r.resp.Error == nil || r.resp.Error.Code != code || string(r.resp.ID) != id {
		t.Fatalf("got %d %q, want %d with error %d and id %s", r.status, r.raw, status, code, id)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("an error answered as %q, want application/json", ct)
	}
	return r.resp.Error
}

// result checks that the reply is a 200 result for the request's id
// (JSON) and returns it decoded.
func (r *reply) result(t testing.TB, id string) map[string]any {
	t.Helper()
	if r.status != http.StatusOK || r.resp.Error != nil || r.resp.Result == nil || string(r.resp.ID) != id {
		t.Fatalf("got %d %q, want a result for id %s", r.status, r.raw, id)
	}
	var m map[string]any
	if err := json.Unmarshal(r.resp.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// text returns the text of a complete tools/call result with one text
// block.
func (r *reply) text(t testing.TB, id string) string {
	t.Helper()
	if rt := r.result(t, id)["resultType"]; rt != "complete" {
		t.Fatalf("resultType %v, want complete: %s", rt, r.resp.Result)
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(r.resp.Result); err != nil {
		t.Fatal(err)
	}
	return toolText(t, &res)
}

// methods lists the methods of the notifications before the response.
func (r *reply) methods() string {
	var out []string
	for _, n := range r.notes {
		out = append(out, n.Method)
	}
	return strings.Join(out, " ")
}

// inputRound is what an input_required result asks.
type inputRound struct {
	requests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	state string
}

// inputRequired checks that the reply is an InputRequiredResult and
// returns its questions and requestState.
func (r *reply) inputRequired(t testing.TB, id string) inputRound {
	t.Helper()
	r.result(t, id)
	var res struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(r.resp.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.ResultType != "input_required" || len(res.InputRequests) == 0 || res.RequestState == "" {
		t.Fatalf("want an InputRequiredResult with questions and a requestState, got %s", r.resp.Result)
	}
	var ir mcp.InputRequiredResult
	if err := ir.UnmarshalJSON(r.resp.Result); err != nil {
		t.Fatalf("InputRequiredResult does not decode: %v", err)
	}
	if err := ir.ValidateVersion(mcp.Version20260728); err != nil {
		t.Fatalf("InputRequiredResult is not valid 2026-07-28: %v\n%s", err, r.resp.Result)
	}
	return inputRound{requests: res.InputRequests, state: res.RequestState}
}

// accept returns the inputResponses that accept every elicitation of the
// round with name.
func (ir inputRound) accept(t testing.TB, name string) string {
	t.Helper()
	var parts []string
	for key, q := range ir.requests {
		if q.Method != "elicitation/create" {
			t.Fatalf("question %s is %s, want elicitation/create", key, q.Method)
		}
		parts = append(parts, jsonString(key)+`:{"action":"accept","content":{"name":`+jsonString(name)+`}}`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// retry26 returns the retry of a tools/call of tool with args that
// answers a round.
func retry26(id, tool, args, responses, state, meta string) string {
	if args == "" {
		args = "{}"
	}
	return body26(id, "tools/call", `"name":`+jsonString(tool)+`,"arguments":`+args+
		`,"inputResponses":`+responses+`,"requestState":`+jsonString(state), meta)
}

// byUser authenticates a request as its X-User header, or as nobody.
func byUser(r *http.Request) (any, error) {
	if u := r.Header.Get("X-User"); u != "" {
		return u, nil
	}
	return nil, nil
}

// serveEngine starts a Handler over srv on a loopback test server.
func serveEngine(t testing.TB, srv *server.Server, opts *HandlerOptions) (*Handler, *httptest.Server) {
	t.Helper()
	return serveLogged(t, srv, opts, nil)
}

// serveLogged is serveEngine with the test server's net/http error log
// set to errLog (nil: net/http's default).
func serveLogged(t testing.TB, srv *server.Server, opts *HandlerOptions, errLog *log.Logger) (*Handler, *httptest.Server) {
	t.Helper()
	h := NewHandler(srv, opts)
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = errLog
	ts.Start()
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return h, ts
}

// newMCP26 returns the engine of newMCP with what the 2026-07-28 tests
// reach beyond it (addExtras); with opts, an engine of those options that
// has echo instead of newMCP's tools.
func newMCP26(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
	var s *server.Server
	if opts == nil {
		s = newMCP(t)
	} else {
		s = server.New(mcp.Implementation{Name: "test", Version: "1"}, opts)
		addEcho(t, s)
	}
	addExtras(t, s)
	return s
}

// addExtras registers:
//   - the tool principal, which answers with server.PrincipalFrom;
//   - the tool ask, which asks the user for a name under the input key
//     "name" and answers "hi <name>";
//   - the tool region, whose argument region is mirrored in the header
//     Mcp-Param-Region and whose argument count in Mcp-Param-Count;
//   - the prompt greet, with the required argument name;
//   - the resources file:///a.txt and file:///b.txt, the second with its
//     own caching (5 s, public), and the template file:///t/{x};
//   - a completion handler that tries to ask the user, which 2026-07-28
//     does not allow outside tools/call, prompts/get and resources/read.
func addExtras(t testing.TB, s *server.Server) {
	t.Helper()
	addTool(t, s, "principal", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult(fmt.Sprint(server.PrincipalFrom(ctx))), nil
	})
	addTool(t, s, "ask", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.Elicit(ctx, nameQuestion(t), server.InputKey("name"))
		if err != nil {
			return nil, err
		}
		name, _ := r.Content["name"].Value.(mcp.ElicitResultContentValueString)
		return textResult("hi " + string(name)), nil
	})
	addToolSchema(t, s, "region", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"},"query":{"type":"string"}}}`,
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var in struct{ Region string }
			json.Unmarshal(p.Arguments, &in)
			return textResult("region " + in.Region), nil
		})
	var greet mcp.Prompt
	if err := json.Unmarshal([]byte(`{"name":"greet","arguments":[{"name":"name","required":true}]}`), &greet); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPrompt(greet, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: "Hello, " + p.Arguments["name"]}}}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"file:///a.txt", "file:///b.txt"} {
		var opts []server.ResourceOption
		if uri == "file:///b.txt" {
			opts = append(opts, server.ResourceCaching(server.Caching{TTL: 5 * time.Second, Public: true}))
		}
		if err := s.AddResource(mcp.Resource{URI: uri, Name: uri}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return textContents(p.URI, "text of "+p.URI), nil
		}, opts...); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
		return textContents(p.URI, "template "+vars["x"]), nil
	}); err != nil {
		t.Fatal(err)
	}
	s.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
		if _, err := server.Elicit(ctx, nameQuestion(t)); err != nil {
			return nil, err
		}
		return &mcp.CompleteResult{}, nil
	})
}

func nameQuestion(t testing.TB) *mcp.ElicitRequestParams {
	t.Helper()
	var q mcp.ElicitRequestParams
	if err := json.Unmarshal([]byte(`{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`), &q); err != nil {
		t.Fatal(err)
	}
	return &q
}

func textContents(uri, text string) *mcp.ReadResourceResult {
	var r mcp.ReadResourceResult
	b, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": text}}})
	if err := r.UnmarshalJSON(b); err != nil {
		panic(err)
	}
	return &r
}

// addToolSchema registers a tool with an input schema of its own.
func addToolSchema(t testing.TB, s *server.Server, name, schema string, h server.ToolHandler) {
	t.Helper()
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":`+jsonString(name)+`,"inputSchema":`+schema+`}`), &def); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(def, h, rawschema.Validate()); err != nil {
		t.Fatal(err)
	}
}

// observer tells when the engine starts serving a request, and with what
// ctx cause it ends.
type observer struct {
	started chan struct{}
	ended   chan error
}

// observe watches the requests of method through a middleware on s.
func observe(s *server.Server, method string) *observer {
	o := &observer{started: make(chan struct{}, 16), ended: make(chan error, 16)}
	s.Use(func(next server.HandlerFunc) server.HandlerFunc {
		return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
			if req.Method != method {
				return next(ctx, req)
			}
			o.started <- struct{}{}
			defer func() { o.ended <- context.Cause(ctx) }()
			return next(ctx, req)
		}
	})
	return o
}
