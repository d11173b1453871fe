// Package interop holds the tests that run mcpgen against the official
// TypeScript MCP SDK and its reference server, both pinned by the
// package-lock.json beside this file. The tests carry the build tag
// interop, since they need Node.js and the npm packages installed:
//
//	make interop
//
// which runs `npm ci` here and then `go test -tags interop ./interop/`.
package interop
