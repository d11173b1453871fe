// Package auth makes an MCP server served over HTTP an OAuth 2.1
// resource server, as the MCP authorization spec asks: it publishes
// Protected Resource Metadata (RFC 9728) naming its authorization
// servers, accepts access tokens in the Authorization header only, holds
// each token to its issuer, its audience (this server's resource URI,
// RFC 8707) and its lifetime, and answers what it refuses with the
// challenges clients act on (401 with resource_metadata and scope, 403
// insufficient_scope for step-up). The server never forwards the token
// anywhere.
//
// Two TokenVerifiers check tokens: JWTVerifier, for JWT access tokens
// (RFC 9068) signed with the issuer's published keys (asymmetric
// algorithms only, keys cached and fetched again when a token names an
// unknown one, at a bounded rate), and IntrospectionVerifier, for opaque
// tokens the authorization server vouches for (RFC 7662). A Middleware
// wraps any http.Handler, Streamable HTTP's and the legacy HTTP+SSE
// transport's alike:
//
//	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: issuer, Resource: "https://mcp.example/mcp"})
//	m, _ := auth.New(auth.Options{Verifier: v, Resource: "https://mcp.example/mcp",
//		AuthorizationServers: []string{issuer}, Scopes: []string{"mcp"}})
//	h := streamable.NewHandler(s, &streamable.HandlerOptions{Authenticate: auth.Authenticate})
//	m.Mount(mux, "", h) // the endpoint at /mcp, its metadata at /.well-known/oauth-protected-resource/mcp
//
// The principal. A verified request reaches the engine with a Principal,
// the token's issuer and subject: comparable with ==, the same for every
// token of one subject and different for another. Streamable HTTP binds
// a session to the principal of its initialize (with Authenticate), and
// the engine binds tasks, pagination cursors and 2026-07-28 requestStates
// to it, so none of them can be used with another subject's token, while
// a refreshed or stepped-up token of the same subject keeps them.
// Handlers read the token itself with TokenInfoFrom.
//
// Scopes. Tools, prompts and resources registered with server.WithScopes,
// server.PromptScopes and server.ResourceScopes are served only to
// requests whose own token grants those scopes (a Principal is a
// server.RequestScoper). A refusal is a JSON-RPC error with
// server.CodeInsufficientScope, and, where the HTTP status can still say
// so, a 403 with an insufficient_scope challenge naming the scopes the
// operation requires: for 2026-07-28 requests and for the POSTs of
// Streamable HTTP sessions; see Middleware.
package auth
