// Package streamable serves MCP over the Streamable HTTP transport: one
// endpoint for both eras of the protocol, deciding per request.
//
// A POST of the stateless era (2026-07-28: its MCP-Protocol-Version header
// names that era, or its body's _meta carries the era's per-request
// fields) is one request on its own. No session is looked up or made: the
// engine's ServeCall runs on the HTTP request's goroutine, the answer is
// one application/json body, or an SSE stream once the request causes
// notifications (progress, log messages, a subscriptions/listen stream's
// changes), and closing the stream cancels the request. The headers the
// era mirrors from the body are checked against it, and its errors get the
// HTTP statuses it prescribes (400, and 404 for unknown methods).
//
// Everything else is the legacy transport (protocol versions 2025-03-26 to
// 2025-11-25): POST, GET and DELETE on sessions that begin with
// initialize. A Handler runs each session as one goroutine calling
// Server.Serve over a session transport. The frames of POST bodies are fed
// to that transport's Read; what the engine writes is routed by the
// request that caused it: a response, and every notification or request a
// handler sends with its ctx, goes on the SSE stream (or into the JSON
// reply) of the POST that carried the request; what no request caused
// goes on the session's standalone GET stream.
//
// What a client that reads slowly can cost is bounded: each SSE stream
// holds at most HandlerOptions.MaxStreamBuffer bytes (1 MiB by default)
// not yet written to its connection, and a handler that would send more
// waits, with its ctx, until the client reads; responses never wait. A
// 2026-07-28 stream, and the HTTP+SSE transport of 2024-11-05, write
// straight to the connection, so their handlers wait on it alone.
//
// Handlers reach the HTTP side through their ctx, in both eras:
// HTTPRequestFromContext returns the POST that carried the request,
// IdentityFromContext what HandlerOptions.Authenticate made of it (also
// server.PrincipalFrom). State the server hands clients to give back
// (requestState, cursors) is bound to that identity.
package streamable
