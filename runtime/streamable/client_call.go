package streamable

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The stateless era (2026-07-28) on the client side of the transport.
//
// A frame holding one request whose _meta names its protocol version is a
// request of that era, and goes out on its own: a POST with the headers
// the era mirrors from the body (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, and the Mcp-Param-* headers of a tool's annotated
// parameters, which the client attaches to the Write's ctx with
// mcpheader.WithParams), no session id, no re-initialization, no
// resumption: a stream that breaks before the response loses the request,
// which the caller re-issues as a new one. A notifications/cancelled for
// such a request is not sent: closing the request's stream is the
// cancellation on HTTP. Everything else is the legacy transport, as before.

// call is what a 2026-07-28 exchange sends besides its frame.
type call struct {
	version string
	method  string
	name    string // params.name or params.uri, for Mcp-Name
	args    []byte // params.arguments, for Mcp-Param-*
	params  []mcpheader.Param
	ctx     context.Context // ends the exchange: its POST and its stream
	cancel  context.CancelFunc
}

// MirrorsHeaders reports that the transport copies values from the body
// of 2026-07-28 requests into HTTP headers (SEP-2243). A client uses it
// to apply the rules that bind transports of that kind, such as dropping
// a tool whose x-mcp-header annotations are invalid.
func (t *ClientTransport) MirrorsHeaders() bool { return true }

// modernCall returns the call of a frame that is one 2026-07-28 request.
func modernCall(ctx context.Context, m *jsonrpc.Message) (*call, bool) {
	if m.Kind() != jsonrpc.MessageRequest {
		return nil, false
	}
	p, ok := readCallParams(m.Params)
	if !ok || p.version == "" {
		return nil, false
	}
	c := &call{version: p.version, method: m.Method}
	switch m.Method {
	case mcp.MethodCallTool, mcp.MethodGetPrompt:
		c.name = p.name
	case mcp.MethodReadResource:
		c.name = p.uri
	case mcptasks.MethodGetTask, mcptasks.MethodCancelTask, mcptasks.MethodUpdateTask:
		c.name = p.taskID // the tasks extension's routing header
	}
	if m.Method == mcp.MethodCallTool {
		c.args = p.arguments
		c.params = mcpheader.ParamsFrom(ctx)
	}
	return c, true
}

// callParams are the members of a request's params that a 2026-07-28
// exchange mirrors into its headers.
type callParams struct {
	version   string // _meta's io.modelcontextprotocol/protocolVersion
	name      string
	uri       string
	taskID    string
	arguments []byte // raw, aliasing the params
}

// readCallParams reads the callParams of params with the scanner, in one
// pass: every request of a session goes through here, so it allocates
// only the strings it returns. As with encoding/json, a null member
// counts as absent and of duplicate keys the last wins; params that are
// not a well-formed object, or a member of the wrong type, report false.
func readCallParams(params []byte) (p callParams, ok bool) {
	var s jsonrpc.Scanner
	s.Reset(params)
	if s.ObjectStart() != nil {
		return p, false
	}
	for {
		k, more, err := s.NextKey()
		if err != nil {
			return p, false
		}
		if !more {
			break
		}
		switch string(k) {
		case "_meta":
			err = readMetaVersion(&s, &p.version)
		case "name":
			err = readOptString(&s, &p.name)
		case "uri":
			err = readOptString(&s, &p.uri)
		case "taskId":
			err = readOptString(&s, &p.taskID)
		case "arguments":
			p.arguments, err = s.Raw()
		default:
			err = s.Skip()
		}
		if err != nil {
			return p, false
		}
	}
	return p, s.End() == nil
}

// readMetaVersion reads a _meta object into the protocol version it
// names; a null _meta names none.
func readMetaVersion(s *jsonrpc.Scanner, version *string) error {
	if null, err := s.Null(); null || err != nil {
		*version = ""
		return err
	}
	if err := s.ObjectStart(); err != nil {
		return err
	}
	for {
		k, more, err := s.NextKey()
		if err != nil || !more {
			return err
		}
		if string(k) == "io.modelcontextprotocol/protocolVersion" {
			err = readOptString(s, version)
		} else {
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
}

// readOptString reads a string or null into v, which null leaves as it is.
func readOptString(s *jsonrpc.Scanner, v *string) error {
	if null, err := s.Null(); null || err != nil {
		return err
	}
	str, err := s.String()
	if err != nil {
		return err
	}
	*v = str
	return nil
}

// writeCall sends one 2026-07-28 request. Written by a Call of the
// Conn over t (jsonrpc.Replies), it reads the reply on the caller's
// goroutine, so that the request costs no goroutine of its own and its
// response no hand-off: a reply that is the response itself goes
// straight to the Call (jsonrpc.Reply), a stream's messages, the
// response among them, come to Read in their order. It then returns when
// the exchange is over, with ctx.Err() if ctx ended first or
// ErrClientClosed if Close did, before the response came. Any other
// writer gets the reply through Read, and writeCall returns once the
// request is sent.
func (t *ClientTransport) writeCall(ctx context.Context, frame []byte, id jsonrpc.ID, c *call) error {
	x := &exchange{frame: frame, ids: []jsonrpc.ID{id}, call: c}
	if !jsonrpc.Replies(ctx, t) {
		c.ctx, c.cancel = context.WithCancel(t.ctx)
		x.sent = make(chan struct{})
		err := t.start(ctx, x, t.runCall)
		if err != nil {
			// The caller stopped waiting: closing the POST is the
			// request's cancellation.
			t.forget(x)
			c.cancel()
		}
		return err
	}
	// Close cancels the exchanges still waiting (enter registers x) for
	// their response; one that has it has nothing left to wait for.
	c.ctx, c.cancel = context.WithCancel(ctx)
	if !t.enter(x) {
		c.cancel()
		return ErrClientClosed
	}
	defer t.wg.Done()
	t.runCall(x)
	switch {
	case ctx.Err() != nil && t.forget(x):
		return ctx.Err()
	case t.ctx.Err() != nil && t.forget(x):
		return ErrClientClosed
	case t.forget(x):
		// Every way runCall ends answers x unless a ctx ended; should one
		// not, the Call must not wait for an answer that cannot come.
		return errors.New("streamable: the exchange ended without a response")
	}
	return nil
}

// cancelCall closes the stream of the 2026-07-28 request that a
// notifications/cancelled names, reporting whether there was one.
func (t *ClientTransport) cancelCall(params []byte) bool {
	id, err := server.CancelledRequestID(params)
	if err != nil {
		return false
	}
	t.mu.Lock()
	x := t.waiting[id.String()]
	if x != nil && x.call != nil {
		delete(t.waiting, id.String()) // the caller has stopped waiting
	}
	t.mu.Unlock()
	if x == nil || x.call == nil {
		return false
	}
	x.call.cancel()
	return true
}

// runCall POSTs a 2026-07-28 request and reads its reply.
func (t *ClientTransport) runCall(x *exchange) {
	defer x.markSent()
	defer x.call.cancel()
	c := x.call
	req, err := t.request(c.ctx, http.MethodPost, x.frame, "", c.version, "")
	if err != nil {
		t.fail(x, jsonrpc.CodeInternalError, err.Error(), nil)
		return
	}
	h := req.Header
	h.Set(mcpheader.Method, c.method)
	if c.name != "" {
		h.Set(mcpheader.Name, mcpheader.Encode(c.name))
	}
	mcpheader.SetHeaders(h, c.params, c.args)
	resp, err := t.do(req)
	x.markSent()
	if err != nil {
		if c.ctx.Err() == nil {
			t.fail(x, jsonrpc.CodeInternalError, "streamable: POST "+t.shown+": "+err.Error(), nil)
		}
		return
	}
	if resp.StatusCode/100 != 2 {
		t.refused(x, resp)
		return
	}
	t.reply(x, resp)
}

// refused answers a 2026-07-28 request that the server refused (400, 404)
// with the JSON-RPC error of the refusal, code, message and data as the
// server gave them: -32022's supported versions are what the client picks
// a version from, and a body without such an error is what tells it the
// server is of the legacy era.
func (t *ClientTransport) refused(x *exchange, resp *http.Response) {
	e := t.statusError(http.MethodPost, resp)
	resp.Body.Close()
	if e.RPC == nil {
		t.fail(x, jsonrpc.CodeInternalError, e.Error(), httpStatusData(e.StatusCode))
		return
	}
	data := e.RPC.Data
	if len(data) == 0 { // the status, for DialClientTransport's probe to see an HTTP+SSE server
		data = httpStatusData(e.StatusCode)
	}
	t.fail(x, e.RPC.Code, e.RPC.Message, data)
}

func httpStatusData(status int) []byte {
	return append(strconv.AppendInt([]byte(`{"httpStatus":`), int64(status), 10), '}')
}
