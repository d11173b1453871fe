package auth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// End to end over Streamable HTTP: the Middleware in front of a Handler
// whose sessions are bound with Authenticate, an engine with a scoped
// tool, and clients holding tokens of the test authorization server.

// mcpServer is the MCP side of the tests.
type mcpServer struct {
	url    string
	writes atomic.Int32 // runs of the scoped tool
}

func newMCPServer(t *testing.T, as *testAS, opts *streamable.HandlerOptions) *mcpServer {
	t.Helper()
	ms := &mcpServer{}
	s := server.New(mcp.Implementation{Name: "auth-test", Version: "1"}, &server.Options{PageSize: 1})
	add := func(name string, h server.ToolHandler, o ...server.ToolOption) {
		var def mcp.Tool
		if err := json.Unmarshal([]byte(`{"name":"`+name+`","inputSchema":{"type":"object"}}`), &def); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTool(def, h, o...); err != nil {
			t.Fatal(err)
		}
	}
	add("whoami", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		info := TokenInfoFrom(ctx)
		if info == nil {
			return nil, fmt.Errorf("no token info")
		}
		return text(info.Subject + " " + fmt.Sprint(server.PrincipalFrom(ctx)) + " " + strings.Join(info.Scopes, ",")), nil
	})
	add("write", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ms.writes.Add(1)
		return text("written"), nil
	}, server.WithScopes("files:write"))
	add("ask", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := server.Elicit(ctx, &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
			Message: "name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
				Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}},
			},
		}}, server.InputKey("n"))
		if err != nil {
			return nil, err
		}
		return text(string(r.Action)), nil
	})
	add("job", func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text("done"), nil
	}, server.WithTaskSupport(server.TaskOptional))
	if opts == nil {
		opts = &streamable.HandlerOptions{}
	}
	opts.Authenticate = Authenticate
	h := streamable.NewHandler(s, opts)
	t.Cleanup(func() { h.Close() })
	m := newMiddleware(t, as.jwtVerifier(t, nil, JWTOptions{}), as.issuer())
	mux := http.NewServeMux()
	if err := m.Mount(mux, "/mcp", h); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	ms.url = ts.URL + "/mcp"
	return ms
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
}

// answer is an HTTP answer to one POST, and the JSON-RPC response in it.
type answer struct {
	status int
	header http.Header
	sse    bool
	resp   struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

// post sends a JSON-RPC body with a token and headers (name, value, ...).
func post(t *testing.T, url, token, body string, hdr ...string) *answer {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := &answer{status: resp.StatusCode, header: resp.Header, sse: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
	if a.sse {
		// The response is the last data line of the stream.
		var last []byte
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok && len(bytes.TrimSpace(d)) > 0 {
				last = append([]byte(nil), d...)
			}
		}
		raw = last
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &a.resp); err != nil {
			t.Fatalf("%d: %q: %v", resp.StatusCode, raw, err)
		}
	}
	return a
}

// text returns the text of a tool result.
func (a *answer) text(t *testing.T) string {
	t.Helper()
	if a.resp.Error != nil || a.status != 200 {
		t.Fatalf("status %d, error %+v", a.status, a.resp.Error)
	}
	var r struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(a.resp.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", a.resp.Result, err)
	}
	return r.Content[0].Text
}

// insufficientScope checks a refusal for lacking files:write.
func (a *answer) insufficientScope(t *testing.T, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d; want %d", a.status, status)
	}
	if a.resp.Error == nil || a.resp.Error.Code != server.CodeInsufficientScope || string(a.resp.Error.Data) != `{"requiredScopes":["files:write"]}` {
		t.Fatalf("error %+v; want %d naming files:write", a.resp.Error, server.CodeInsufficientScope)
	}
	want := `Bearer error="insufficient_scope", error_description="the request needs more scopes", scope="files:write", resource_metadata="` + metadataURL + `"`
	got := a.header.Get("WWW-Authenticate")
	if status == http.StatusForbidden && got != want {
		t.Fatalf("WWW-Authenticate %q; want %q", got, want)
	}
	if status != http.StatusForbidden && got != "" {
		t.Fatalf("WWW-Authenticate %q on a %d", got, status)
	}
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// call26 posts a 2026-07-28 tools/call of tool with extra params members.
func call26(t *testing.T, url, token, tool, members string) *answer {
	t.Helper()
	if members != "" {
		members = "," + members
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}` + members + `,` + meta26 + `}}`
	return post(t, url, token, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool)
}

func TestStreamableModernScopes(t *testing.T) {
	as := newAS(t)
	ms := newMCPServer(t, as, nil)
	reader := as.token("alice", "mcp files:read")
	writer := as.token("alice", "mcp files:read files:write")

	if a := call26(t, ms.url, "", "write", ""); a.status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", a.status)
	}
	call26(t, ms.url, reader, "write", "").insufficientScope(t, http.StatusForbidden)
	if n := ms.writes.Load(); n != 0 {
		t.Fatalf("the scoped tool ran %d times without its scope", n)
	}
	if got := call26(t, ms.url, writer, "write", "").text(t); got != "written" {
		t.Fatalf("with the scope: %q", got)
	}
	want := `alice "alice"@"` + as.issuer() + `" mcp,files:read`
	if got := call26(t, ms.url, reader, "whoami", "").text(t); got != want {
		t.Fatalf("whoami %q; want %q", got, want)
	}
}

func TestStreamableRequestStateAndCursorsBound(t *testing.T) {
	as := newAS(t)
	ms := newMCPServer(t, as, nil)
	alice := as.token("alice", "mcp")
	alice2 := as.token("alice", "mcp files:write") // refreshed and stepped up
	bob := as.token("bob", "mcp")

	first := call26(t, ms.url, alice, "ask", "")
	var ir struct {
		ResultType   string `json:"resultType"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(first.resp.Result, &ir); err != nil || ir.RequestState == "" {
		t.Fatalf("first round: %d %s %+v", first.status, first.resp.Result, first.resp.Error)
	}
	retry := `"inputResponses":{"n":{"action":"accept","content":{"name":"x"}}},"requestState":"` + ir.RequestState + `"`
	if a := call26(t, ms.url, bob, "ask", retry); a.resp.Error == nil || !strings.Contains(a.resp.Error.Message, "requestState") {
		t.Fatalf("bob with alice's requestState: %d %+v", a.status, a.resp.Error)
	}
	if got := call26(t, ms.url, alice2, "ask", retry).text(t); got != "accept" {
		t.Fatalf("alice with a new token: %q", got)
	}

	list := func(token, cursor string) *answer {
		members := meta26
		if cursor != "" {
			members = `"cursor":"` + cursor + `",` + meta26
		}
		return post(t, ms.url, token, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+members+`}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	}
	var page struct{ NextCursor string }
	if a := list(alice, ""); json.Unmarshal(a.resp.Result, &page) != nil || page.NextCursor == "" {
		t.Fatalf("the first page: %s", a.resp.Result)
	}
	if a := list(bob, page.NextCursor); a.resp.Error == nil {
		t.Fatalf("bob with alice's cursor: %s", a.resp.Result)
	}
	if a := list(alice2, page.NextCursor); a.resp.Error != nil {
		t.Fatalf("alice with a new token and her cursor: %+v", a.resp.Error)
	}
}

// session is a legacy Streamable HTTP session.
type session struct {
	t   *testing.T
	url string
	id  string
}

const legacyVersion = "2025-11-25"

func initialize(t *testing.T, url, token string) (*session, int) {
	t.Helper()
	a := post(t, url, token, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+legacyVersion+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if a.status != http.StatusOK {
		return nil, a.status
	}
	s := &session{t: t, url: url, id: a.header.Get("Mcp-Session-Id")}
	if s.id == "" {
		t.Fatal("no session id")
	}
	if n := s.post(token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); n.status != http.StatusAccepted {
		t.Fatalf("initialized: %d", n.status)
	}
	return s, a.status
}

func (s *session) post(token, body string) *answer {
	s.t.Helper()
	return post(s.t, s.url, token, body, "Mcp-Session-Id", s.id, "MCP-Protocol-Version", legacyVersion)
}

func (s *session) call(token, tool string) *answer {
	s.t.Helper()
	return s.post(token, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
}

func TestStreamableSessionsBound(t *testing.T) {
	for _, jsonReplies := range []bool{false, true} {
		t.Run(fmt.Sprint("JSONResponse=", jsonReplies), func(t *testing.T) {
			as := newAS(t)
			ms := newMCPServer(t, as, &streamable.HandlerOptions{JSONResponse: jsonReplies, MaxSessionsPerIdentity: 1})
			alice := as.token("alice", "mcp")
			s, _ := initialize(t, ms.url, alice)

			// Another subject cannot use the session; nor can a request
			// without a token.
			if a := s.call(as.token("bob", "mcp"), "whoami"); a.status != http.StatusNotFound {
				t.Fatalf("bob in alice's session: %d", a.status)
			}
			if a := s.call("", "whoami"); a.status != http.StatusUnauthorized {
				t.Fatalf("no token in alice's session: %d", a.status)
			}
			// The same subject with another token can, and its handlers
			// see the token of the request.
			alice2 := as.token("alice", "mcp files:read")
			want := `alice "alice"@"` + as.issuer() + `" mcp,files:read`
			if got := s.call(alice2, "whoami").text(t); got != want {
				t.Fatalf("whoami %q; want %q", got, want)
			}
			// Sessions are counted per subject, whatever the token.
			if _, status := initialize(t, ms.url, alice2); status != http.StatusTooManyRequests {
				t.Fatalf("alice's second session: %d; want 429", status)
			}
			if _, status := initialize(t, ms.url, as.token("bob", "mcp")); status != http.StatusOK {
				t.Fatalf("bob's first session: %d", status)
			}
			// A scoped tool: refused without the scope with a 403, whether
			// the session answers with JSON or SSE (the refusal comes
			// before the stream would start), and run with it, within the
			// same session.
			a := s.call(alice, "write")
			if a.sse {
				t.Fatal("a refusal for scopes answered as an SSE stream")
			}
			a.insufficientScope(t, http.StatusForbidden)
			if ms.writes.Load() != 0 {
				t.Fatal("the scoped tool ran without its scope")
			}
			if got := s.call(as.token("alice", "files:write"), "write").text(t); got != "written" {
				t.Fatalf("with the scope: %q", got)
			}
		})
	}
}

// TestLegacySSEScopes runs the 2024-11-05 HTTP+SSE transport behind the
// Middleware: the session is bound to the principal of its GET, and a
// scope refusal is the JSON-RPC error on the stream.
func TestLegacySSEScopes(t *testing.T) {
	as := newAS(t)
	s := server.New(mcp.Implementation{Name: "auth-test", Version: "1"}, nil)
	var def mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"write","inputSchema":{"type":"object"}}`), &def); err != nil {
		t.Fatal(err)
	}
	var writes atomic.Int32
	if err := s.AddTool(def, func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		writes.Add(1)
		return text("written"), nil
	}, server.WithScopes("files:write")); err != nil {
		t.Fatal(err)
	}
	lh := streamable.NewLegacyHandler(s, &streamable.LegacyOptions{Authenticate: Authenticate})
	t.Cleanup(func() { lh.Close() })
	m := newMiddleware(t, as.jwtVerifier(t, nil, JWTOptions{}), as.issuer())
	ts := httptest.NewServer(m.Wrap(lh))
	t.Cleanup(ts.Close)

	alice := as.token("alice", "mcp")
	req, _ := http.NewRequest("GET", ts.URL+"/sse", nil)
	req.Header.Set("Authorization", "Bearer "+alice)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	events := bufio.NewReader(resp.Body)
	data := func() string {
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("the stream ended: %v", err)
			}
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				return strings.TrimSpace(d)
			}
		}
	}
	endpoint := data()
	if !strings.HasPrefix(endpoint, "/") && !strings.HasPrefix(endpoint, "http") {
		t.Fatalf("endpoint event %q", endpoint)
	}
	if strings.HasPrefix(endpoint, "/") {
		endpoint = ts.URL + endpoint
	}
	send := func(token, body string) int {
		a := post(t, endpoint, token, body)
		return a.status
	}
	if st := send(as.token("bob", "mcp files:write"), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); st < 400 {
		t.Fatalf("bob posting into alice's session: %d", st)
	}
	if st := send(alice, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); st != http.StatusAccepted {
		t.Fatalf("initialize: %d", st)
	}
	if !strings.Contains(data(), `"id":0`) {
		t.Fatal("no initialize result")
	}
	send(alice, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if st := send(alice, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{}}}`); st != http.StatusAccepted {
		t.Fatalf("tools/call: %d", st)
	}
	got := data()
	if !strings.Contains(got, fmt.Sprint(server.CodeInsufficientScope)) || !strings.Contains(got, `"requiredScopes":["files:write"]`) {
		t.Fatalf("the answer %s; want the insufficient scope error", got)
	}
	if st := send(as.token("alice", "files:write"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{}}}`); st != http.StatusAccepted {
		t.Fatalf("tools/call: %d", st)
	}
	if got := data(); !strings.Contains(got, "written") || writes.Load() != 1 {
		t.Fatalf("the answer %s with the scope", got)
	}
}

func TestStreamableTasksBound(t *testing.T) {
	as := newAS(t)
	ms := newMCPServer(t, as, nil)
	const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	created := post(t, ms.url, as.token("alice", "mcp"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},`+tasksMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "job")
	var task struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if err := json.Unmarshal(created.resp.Result, &task); err != nil || task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("tools/call as a task: %d %s %+v", created.status, created.resp.Result, created.resp.Error)
	}
	get := func(token string) *answer {
		return post(t, ms.url, token, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+task.TaskID+`",`+tasksMeta+`}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tasks/get", "Mcp-Name", task.TaskID)
	}
	if a := get(as.token("bob", "mcp")); a.resp.Error == nil || a.resp.Error.Code != -32602 || !strings.Contains(a.resp.Error.Message, "task") {
		t.Fatalf("bob reads alice's task: %s %+v", a.resp.Result, a.resp.Error)
	}
	if a := get(as.token("alice", "mcp files:read")); a.resp.Error != nil {
		t.Fatalf("alice with a new token reads her task: %+v", a.resp.Error)
	}
}
