// Package interop holds the tests that run mcpgen against the official
// TypeScript MCP SDK and its reference server, all pinned by the
// package-lock.json beside this file:
//
//   - @modelcontextprotocol/sdk, SDK v1, whose Client and servers speak the
//     2025 era (the initialize handshake);
//   - @modelcontextprotocol/server-everything, the reference server;
//   - @modelcontextprotocol/client and @modelcontextprotocol/server, SDK v2,
//     which speak the stateless 2026-07-28 era (server/discover, _meta on
//     every request, input_required results).
//
// The scripts beside this file drive them: ts-client.mjs, ts-http-client.mjs
// and init-client.mjs run SDK v1's Client, ts-http-server.mjs is an SDK v1
// server, ts-v2-client.mjs runs SDK v2's Client pinned to 2026-07-28, and
// ts-v2-server.mjs is an SDK v2 server of that era only, with the tools of
// examples/everything that the era changes, to try 2026-07-28 clients on.
//
// The tests carry the build tag interop, since they need Node.js and the npm
// packages installed:
//
//	make interop
//
// which runs `npm ci` here and then `go test -tags interop ./interop/`.
package interop
