// Package client is the MCP client engine, for servers of both eras of the
// protocol: the stateless 2026-07-28, whose requests each carry their
// protocol version and the client's capabilities in _meta, and the legacy
// versions, whose sessions begin with the initialize handshake.
//
// A [Client] holds what stays the same across connections: the client's
// identity, the handlers that answer what the server asks of the client
// (sampling, elicitation, roots) and the callbacks that receive its
// notifications. [Client.Connect] finds the server's era (a
// server/discover probe, and initialize for a legacy server; see
// Options.ProtocolVersion and Options.Era to pin one) over a transport
// and returns a [Session], whose embedded [mcp.Client] sends typed
// requests:
//
//	c := client.New(mcp.Implementation{Name: "demo", Version: "1.0"}, nil)
//	t, err := client.CommandTransport(exec.Command("my-server"), nil) // stdio
//	// or t := streamable.NewClientTransport("https://example.com/mcp", nil) // Streamable HTTP
//	...
//	sess, err := c.Connect(ctx, t)
//	...
//	defer sess.Close()
//	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add"})
//
// Any jsonrpc.Transport will do; these are the ones to reach for:
//
//   - stdio: [CommandTransport] starts the server as a subprocess and
//     speaks over its stdin and stdout (a [Process], which also stops it).
//   - Streamable HTTP: [github.com/mcpgen/mcpgen/runtime/streamable.NewClientTransport];
//     streamable.DialClientTransport falls back to the HTTP+SSE transport
//     of 2024-11-05 for an old server, and streamable.NewLegacyClientTransport
//     speaks only that one.
//   - in memory, for tests and examples:
//     [github.com/mcpgen/mcpgen/runtime/transport.NewPipe], one end for the
//     client and the other for server.Server.Serve.
//
// The same handlers serve both eras: a legacy server sends the client a
// request; a 2026-07-28 server answers with an InputRequiredResult, which
// the Session fulfils through the handlers and retries (ManualInput hands
// the rounds to the caller instead). Session.Listen keeps a 2026-07-28
// subscription open.
//
// A tools/call may run as a task, in either era (the tasks extension of
// 2026-07-28, the task param of 2025-11-25): Session.StartToolTask
// returns a [Task] to poll, wait for and cancel, and with Options.Tasks
// CallTool waits for the task as for any result, answering the task's
// questions through the same handlers.
//
// The session takes care of the protocol's housekeeping: it answers ping,
// tells the server when the ctx of a request ends (notifications/cancelled
// on a stream; closing the request's stream on Streamable HTTP in
// 2026-07-28), stops a handler when the server cancels its request, gives
// a request a progress token when Options.OnProgress or RequestTimeout
// needs one (each notifications/progress then restarts the timeout),
// checks structuredContent against the tool's outputSchema, and, over
// Streamable HTTP, mirrors the parameters tools annotate with x-mcp-header
// into headers and leaves out of tools/list the tools whose annotations
// break the rules.
package client
