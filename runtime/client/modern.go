package client

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The 2026-07-28 era on a Session.
//
// A modern Session has no handshake: every request carries the protocol
// version, the client's capabilities and identity, and the log level it
// asks for, in its params' _meta. A result that asks for input
// (resultType "input_required") is fulfilled through the same handlers
// that answer a legacy server's requests (Options.Elicit, CreateMessage,
// Roots) and the request is sent again, with a new id, the answers in
// inputResponses and the server's requestState echoed as it came, until
// the server answers in full or Options.MaxInputRounds is spent. Each
// call's rounds are its own: concurrent calls never see each other's.

// DefaultMaxInputRounds bounds the rounds of input one request may take
// when Options.MaxInputRounds is zero.
const DefaultMaxInputRounds = 10

// inputMethods are the requests a server may answer with an
// InputRequiredResult.
var inputMethods = []string{mcp.MethodCallTool, mcp.MethodGetPrompt, mcp.MethodReadResource}

// The _meta keys of a 2026-07-28 request.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// InputRequiredError is the error of a request made with ManualInput that
// the server answered with an InputRequiredResult: the caller fulfils
// Result.InputRequests and retries the request with inputResponses and,
// when Result has one, the same requestState.
type InputRequiredError struct {
	Method string
	Result *mcp.InputRequiredResult
}

func (e *InputRequiredError) Error() string {
	return fmt.Sprintf("client: the server needs input to answer %s (%d requests)", e.Method, len(e.Result.InputRequests))
}

type manualKey struct{}

// ManualInput returns a copy of ctx whose requests are not fulfilled by
// the Session: a request the server answers with an InputRequiredResult
// fails with an *InputRequiredError instead, for the caller to handle the
// rounds itself.
func ManualInput(ctx context.Context) context.Context {
	return context.WithValue(ctx, manualKey{}, true)
}

// startModern makes s a Session of the 2026-07-28 era in version v, its
// server having answered server/discover with res.
func (s *Session) startModern(v mcp.ProtocolVersion, res *mcp.DiscoverResult) {
	s.modern = true
	s.discovered = res
	s.version.Store(v)
	s.ready.Store(true)
}

// Era returns the era the Session speaks.
func (s *Session) Era() mcp.Era { return s.ProtocolVersion().Era() }

// DiscoverResult returns the server's answer to server/discover, or nil
// for a legacy Session.
func (s *Session) DiscoverResult() *mcp.DiscoverResult { return s.discovered }

// requestMeta returns params with the per-request fields of version v in
// their _meta: what a 2026-07-28 server needs of every request, and only
// the capabilities the client really handles, caps encoded.
func (s *Session) requestMeta(params []byte, v mcp.ProtocolVersion, caps []byte) ([]byte, error) {
	c := s.client
	add := []member{
		{key: metaProtocolVersion, value: jsonrpc.AppendString(nil, string(v))},
		{key: metaClientCapabilities, value: caps},
		{key: metaClientInfo, value: c.infoJSON},
	}
	if c.opts.LogLevel != "" {
		add = append(add, member{key: metaLogLevel, value: jsonrpc.AppendString(nil, string(c.opts.LogLevel))})
	}
	return withMeta(params, add)
}

// callModern sends a request of the 2026-07-28 era and follows its
// rounds of input to the final result; task reports that the result is a
// task handle (resultType "task"), which the caller follows.
func (s *Session) callModern(ctx context.Context, method string, params []byte) (raw []byte, task bool, err error) {
	params, err = s.requestMeta(params, s.ProtocolVersion(), s.capsFor(ctx, method))
	if err != nil {
		return nil, false, fmt.Errorf("client: %s: %w", method, err)
	}
	if method == mcp.MethodCallTool && s.mirrorsHeaders() {
		ctx = mcpheader.WithParams(ctx, s.tools.headers(toolName(params)))
	}
	max := s.client.opts.maxInputRounds()
	for round := 1; ; round++ {
		raw, err := s.send(ctx, method, params)
		if err != nil {
			return nil, false, err
		}
		switch rt := resultType(raw); rt {
		case "", "complete":
			return raw, false, nil
		case "task":
			if method != mcp.MethodCallTool || !s.wantsTask(ctx) {
				return nil, false, fmt.Errorf("client: %s: the server answered with resultType \"task\", though the request did not declare the %s extension", method, ExtensionTasks)
			}
			return raw, true, nil
		case "input_required":
		default:
			return nil, false, fmt.Errorf("client: %s: the server answered with resultType %q, which this client does not know", method, rt)
		}
		if !slices.Contains(inputMethods, method) {
			return nil, false, fmt.Errorf("client: %s: the server asked for input, which it may do only for tools/call, prompts/get and resources/read", method)
		}
		ir := new(mcp.InputRequiredResult)
		if err := ir.UnmarshalJSON(raw); err != nil {
			return nil, false, fmt.Errorf("client: %s: the InputRequiredResult does not decode: %w", method, err)
		}
		if ctx.Value(manualKey{}) != nil {
			return nil, false, &InputRequiredError{Method: method, Result: ir}
		}
		if round > max {
			return nil, false, fmt.Errorf("client: %s: the server still asks for input after %d rounds, the bound Options.MaxInputRounds sets", method, max)
		}
		answers, err := s.fulfill(ctx, ir.InputRequests)
		if err != nil {
			return nil, false, fmt.Errorf("client: %s: %w", method, err)
		}
		if params, err = retryParams(params, answers, memberOf(raw, "requestState")); err != nil {
			return nil, false, fmt.Errorf("client: %s: %w", method, err)
		}
	}
}

// resultType reads the resultType of a raw result, "" when it has none.
func resultType(raw []byte) string {
	v := memberOf(raw, "resultType")
	if v == nil {
		return ""
	}
	var sc jsonrpc.Scanner
	sc.Reset(v)
	str, err := sc.String()
	if err != nil {
		return string(v) // not a string: unknown, and said so
	}
	return str
}

// toolName reads params.name of a tools/call.
func toolName(params []byte) string {
	v := memberOf(params, "name")
	var sc jsonrpc.Scanner
	sc.Reset(v)
	name, _ := sc.String()
	return name
}

// fulfill answers each input request through the Client's handlers, in
// key order. A request the client has no handler for fails the call: a
// server must not ask for what the client did not declare.
func (s *Session) fulfill(ctx context.Context, reqs mcp.InputRequests) ([]member, error) {
	h := handler{s.client}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]member, 0, len(keys))
	for _, k := range keys {
		var res mcp.Message
		var err error
		switch q := reqs[k].Value.(type) {
		case *mcp.ElicitRequest:
			res, err = h.Elicit(ctx, &q.Params)
		case *mcp.CreateMessageRequest:
			res, err = h.CreateMessage(ctx, &q.Params)
		case *mcp.ListRootsRequest:
			res, err = h.ListRoots(ctx, q.Params)
		default:
			err = fmt.Errorf("an input request of type %T", q)
		}
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", k, err)
		}
		raw, err := res.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("input request %q: the answer does not encode: %w", k, err)
		}
		out = append(out, member{key: k, value: raw})
	}
	return out, nil
}

// retryParams returns the params of the retry: inputResponses holding the
// answers, and the requestState as the server wrote it, or none when it
// sent none, for a client never invents one.
func retryParams(params []byte, answers []member, state []byte) ([]byte, error) {
	top, err := members(params)
	if err != nil {
		return nil, err
	}
	top = set(top, "inputResponses", object(answers))
	top = set(top, "requestState", state)
	return object(top), nil
}

// errNotModern is the error of a modern-only call on a legacy Session, and
// errNotLegacy the reverse.
var (
	errNotModern = errors.New("client: the Session speaks the legacy era, which has no such call")
	errNotLegacy = errors.New("client: the Session speaks the 2026-07-28 era, which has no such call")
)

// Forward sends a request of any method in the Session's era and returns
// the server's raw result as it came, unchecked and not followed: for a
// proxy that hands the result on to a client of its own. In 2026-07-28 a
// tools/call declares the tasks extension, so that the server may answer
// with a task handle (resultType "task"), which Forward returns as it is,
// and so do the extension's own requests (tasks/get, update, cancel);
// a result asking for input is fulfilled as for any request, or, with
// ManualInput, fails with an *InputRequiredError. A legacy tools/call is
// sent as it is, with the task param only when params have one.
func (s *Session) Forward(ctx context.Context, method string, params []byte) ([]byte, error) {
	if s.modern {
		switch method {
		case mcp.MethodCallTool, tasks.MethodGetTask, tasks.MethodUpdateTask, tasks.MethodCancelTask:
			ctx = context.WithValue(ctx, taskKey{}, true)
		}
		raw, _, err := s.callModern(ctx, method, params)
		return raw, err
	}
	return s.send(ctx, method, params)
}
