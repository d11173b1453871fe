// Package client is the MCP client engine for the legacy era of the
// protocol, whose sessions begin with the initialize handshake.
//
// A [Client] holds what stays the same across connections: the client's
// identity, the handlers that answer the server's requests (sampling,
// elicitation, roots) and the callbacks that receive its notifications.
// [Client.Connect] runs the handshake over a transport and returns a
// [Session], whose embedded [mcp.Client] sends typed requests:
//
//	c := client.New(mcp.Implementation{Name: "demo", Version: "1.0"}, nil)
//	t, err := client.CommandTransport(exec.Command("my-server"), nil)
//	...
//	sess, err := c.Connect(ctx, t)
//	...
//	defer sess.Close()
//	res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add"})
//
// The session takes care of the protocol's housekeeping: it answers ping,
// tells the server with notifications/cancelled when the ctx of a request
// ends, stops a handler when the server cancels its request, and, when
// Options.RequestTimeout is set, gives every request a progress token so
// that the server's progress notifications keep it alive.
package client
