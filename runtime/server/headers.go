package server

import (
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/internal/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// headerMismatch is the -32020 error, which HTTP answers with 400. A
// server that reads the body of a 2026-07-28 HTTP request must refuse one
// whose mirrored headers say something else: an intermediary may have
// acted on them.
func headerMismatch(msg string) error {
	return jsonrpc.NewError(mcp.CodeHeaderMismatch, "header mismatch: "+msg)
}

// checkStandardHeaders checks MCP-Protocol-Version, Mcp-Method and
// Mcp-Name against the body of an HTTP request.
func checkStandardHeaders(c *Call, version string) error {
	if err := headerEquals(c, mcpheader.ProtocolVersion, version); err != nil {
		return err
	}
	if err := headerEquals(c, mcpheader.Method, c.Method); err != nil {
		return err
	}
	var key string
	switch c.Method {
	case mcp.MethodCallTool, mcp.MethodGetPrompt:
		key = "name"
	case mcp.MethodReadResource:
		key = "uri"
	case mcptasks.MethodGetTask, mcptasks.MethodCancelTask, mcptasks.MethodUpdateTask:
		key = "taskId" // the tasks extension's routing header
	default:
		return nil
	}
	value, ok := paramString(c.Params, key)
	if !ok {
		return nil // the dispatch reports the missing or malformed param
	}
	return headerEquals(c, mcpheader.Name, value)
}

// headerEquals checks that the one header name holds want, after the
// Base64 sentinel form is decoded where the header allows it.
func headerEquals(c *Call, name, want string) error {
	values := c.Header.Values(name)
	switch len(values) {
	case 0:
		return headerMismatch("the " + name + " header is required and missing")
	case 1:
	default:
		return headerMismatch("the " + name + " header is given more than once")
	}
	got := strings.TrimSpace(values[0])
	if name == mcpheader.Name {
		decoded, err := mcpheader.Decode(got)
		if err != nil {
			return headerMismatch(name + ": " + err.Error())
		}
		got = decoded
	}
	if got != want {
		return headerMismatch(name + " header value " + quote(got) + " does not match the body's " + quote(want))
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// the arguments, for the tool's x-mcp-header parameters. An unknown tool
// is the dispatch's to report.
func (s *Server) checkParamHeaders(c *Call) error {
	name, ok := paramString(c.Params, "name")
	if !ok {
		return nil
	}
	t := s.tool(name)
	if t == nil || len(t.headers) == 0 {
		return nil
	}
	var sc jsonrpc.Scanner
	sc.Reset(c.Params)
	args, _ := member(&sc, "arguments")
	if err := mcpheader.Check(t.headers, args, c.Header); err != nil {
		return headerMismatch(err.Error())
	}
	return nil
}

// paramString returns the string member key of the params object.
func paramString(params []byte, key string) (string, bool) {
	var sc jsonrpc.Scanner
	sc.Reset(params)
	raw, ok := member(&sc, key)
	if !ok {
		return "", false
	}
	return rawString(raw)
}
