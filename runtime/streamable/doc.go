// Package streamable serves MCP over the Streamable HTTP transport
// (protocol versions 2025-03-26 to 2025-11-25): one endpoint taking POST,
// GET and DELETE.
//
// A Handler runs each MCP session as one goroutine calling Server.Serve
// over a session transport. The frames of POST bodies are fed to that
// transport's Read; what the engine writes is routed by the request that
// caused it: a response, and every notification or request a handler sends
// with its ctx, goes on the SSE stream (or into the JSON reply) of the POST
// that carried the request; what no request caused goes on the session's
// standalone GET stream.
//
// Handlers reach the HTTP side through their ctx: HTTPRequestFromContext
// returns the POST that carried the request, IdentityFromContext what
// HandlerOptions.Authenticate made of it.
package streamable
