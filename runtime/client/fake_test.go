package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// fakeServer is a tiny MCP server on a jsonrpc.Conn: just enough of
// initialize, tools/list and tools/call to drive a client, with tools that
// call the client back and send it notifications.
type fakeServer struct {
	conn    *jsonrpc.Conn
	version string // the protocolVersion to answer; empty echoes the client's

	notes   chan note       // notifications from the client
	blocked chan jsonrpc.ID // ids of tools/call "block" requests, once they block
	tokens  chan string     // progress tokens seen in tools/call, as JSON

	mu   sync.Mutex
	init *mcp.InitializeRequestParams
}

// note is a notification the fake server received.
type note struct {
	method string
	params []byte
}

// toolPages are what tools/list answers, page by page.
var toolPages = [][]string{{"a", "b"}, {"c", "d"}, {"e"}}

// serve runs a fake server over tr until the test ends.
func serve(t *testing.T, tr jsonrpc.Transport, version string) *fakeServer {
	f := newFake(tr, version)
	go f.conn.Run(context.Background())
	t.Cleanup(func() {
		f.conn.Close()
		f.conn.Wait()
	})
	return f
}

// newFake returns a fake server over tr, not yet running.
func newFake(tr jsonrpc.Transport, version string) *fakeServer {
	f := &fakeServer{
		version: version,
		notes:   make(chan note, 100),
		blocked: make(chan jsonrpc.ID, 10),
		tokens:  make(chan string, 100),
	}
	f.conn = jsonrpc.NewConn(tr, f, jsonrpc.Options{OnCancel: func(id jsonrpc.ID) {
		params := fmt.Appendf(nil, `{"requestId":%s,"reason":"server gave up"}`, id.AppendJSON(nil))
		f.conn.Notify(context.Background(), mcp.MethodCancelledNotification, params)
	}})
	return f
}

// connect starts a fake server and connects a client with opts to it.
func connect(t *testing.T, version string, opts *client.Options) (*client.Session, *fakeServer) {
	t.Helper()
	a, b := transport.NewPipe()
	f := serve(t, b, version)
	c := client.New(mcp.Implementation{Name: "test-client", Version: "0.1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess, f
}

// nextNote returns the next notification with the method, failing the
// test if none arrives in time.
func (f *fakeServer) nextNote(t *testing.T, method string) note {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case n := <-f.notes:
			if n.method == method {
				return n
			}
		case <-timeout:
			t.Fatalf("no %s reached the server", method)
		}
	}
}

func (f *fakeServer) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		select {
		case f.notes <- note{req.Method, bytes.Clone(req.Params)}:
		default: // nobody listens
		}
		return nil, nil
	}
	switch req.Method {
	case mcp.MethodInitialize:
		p := new(mcp.InitializeRequestParams)
		if err := json.Unmarshal(req.Params, p); err != nil {
			return nil, jsonrpc.ErrInvalidParams(err.Error())
		}
		f.mu.Lock()
		f.init = p
		f.mu.Unlock()
		v := f.version
		if v == "" {
			v = p.ProtocolVersion
		}
		return json.Marshal(&mcp.InitializeResult{
			ProtocolVersion: v,
			ServerInfo:      mcp.Implementation{Name: "fake", Version: "1.0"},
			Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{ListChanged: true}},
		})
	case mcp.MethodPing:
		return []byte(`{}`), nil
	case mcp.MethodListTools:
		var p struct{ Cursor string }
		if req.Params != nil {
			json.Unmarshal(req.Params, &p)
		}
		page := 0
		if p.Cursor != "" {
			page, _ = strconv.Atoi(strings.TrimPrefix(p.Cursor, "page"))
		}
		var tools []string
		for _, name := range toolPages[page] {
			tools = append(tools, fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name))
		}
		next := ""
		if page+1 < len(toolPages) {
			next = fmt.Sprintf(`,"nextCursor":"page%d"`, page+1)
		}
		return fmt.Appendf(nil, `{"tools":[%s]%s}`, strings.Join(tools, ","), next), nil
	case mcp.MethodCallTool:
		return f.callTool(ctx, req)
	}
	return nil, jsonrpc.ErrMethodNotFound(req.Method)
}

// callTool runs the fake tools.
func (f *fakeServer) callTool(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	var p struct {
		Name      string
		Arguments json.RawMessage
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.ErrInvalidParams(err.Error())
	}
	select {
	case f.tokens <- string(p.Meta.ProgressToken):
	default: // nobody listens
	}
	var args struct {
		Steps int // progress notifications to send
		Every int // milliseconds between them
	}
	if p.Arguments != nil {
		json.Unmarshal(p.Arguments, &args)
	}
	text := ""
	switch p.Name {
	case "echo":
		text = string(p.Arguments)
	case "block":
		f.blocked <- req.ID
		<-ctx.Done()
		return nil, ctx.Err()
	case "progress":
		for i := range args.Steps {
			select {
			case <-time.After(time.Duration(args.Every) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			params := fmt.Appendf(nil, `{"progressToken":%s,"progress":%d,"total":%d}`, p.Meta.ProgressToken, i+1, args.Steps)
			f.conn.Notify(ctx, mcp.MethodProgressNotification, params)
		}
		text = "done"
	case "sample":
		text = callBack(ctx, req.Conn, mcp.MethodCreateMessage,
			`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`)
	case "sample_abandoned":
		// Give up on the client after a while: the Conn then sends
		// notifications/cancelled.
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		text = callBack(ctx, req.Conn, mcp.MethodCreateMessage,
			`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`)
	case "elicit":
		text = callBack(ctx, req.Conn, mcp.MethodElicit,
			`{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)
	case "roots":
		text = callBack(ctx, req.Conn, mcp.MethodListRoots, "")
	case "ping":
		text = callBack(ctx, req.Conn, mcp.MethodPing, "")
	case "notify":
		for _, n := range []struct{ method, params string }{
			{mcp.MethodLoggingMessageNotification, `{"level":"warning","logger":"fake","data":{"msg":"careful"}}`},
			{mcp.MethodProgressNotification, `{"progressToken":"nobody","progress":1}`},
			{mcp.MethodLoggingMessageNotification, `{"level":"no such level","data":1}`}, // dropped
			{mcp.MethodToolListChangedNotification, ""},
			{mcp.MethodPromptListChangedNotification, ""},
			{mcp.MethodResourceListChangedNotification, ""},
			{mcp.MethodResourceUpdatedNotification, `{"uri":"file:///x"}`},
		} {
			var params []byte
			if n.params != "" {
				params = []byte(n.params)
			}
			f.conn.Notify(ctx, n.method, params)
		}
		text = "sent"
	default:
		return nil, jsonrpc.ErrInvalidParams("no tool " + p.Name)
	}
	return json.Marshal(&mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}})
}

// callBack sends a request to the client and describes the outcome: the
// raw result, or "error <code>: <message>".
func callBack(ctx context.Context, conn *jsonrpc.Conn, method, params string) string {
	var raw []byte
	if params != "" {
		raw = []byte(params)
	}
	res, err := conn.Call(ctx, method, raw)
	if e, ok := err.(*jsonrpc.Error); ok {
		return fmt.Sprintf("error %d: %s", e.Code, e.Message)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return string(res)
}

// text returns the text of the first content block of a tool result.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("tool result has no content")
	}
	tc, ok := res.Content[0].Value.(*mcp.TextContent)
	if !ok {
		t.Fatalf("tool result content is %T, want *mcp.TextContent", res.Content[0].Value)
	}
	return tc.Text
}
