// Package hostile measures how MCP servers fare against clients that
// behave badly, on purpose or by accident: clients that flood a server
// with calls whose handlers ask the client something back, cancel
// everything they send, stop reading, hold connections open while
// sending nothing, post into another user's session, pipeline their
// start, or see the server told to stop with calls in flight.
//
// Each case is a function that starts a server process of its own,
// behaves as such a client would, and reports what happened in a few
// rows of text. Every case runs under a deadline: a server that stops
// answering shows up as "stuck" or "timeout" in the table, never as a
// hung harness. Server processes run in process groups of their own and
// are killed, group and all, when their case ends.
//
// The servers are programs taking the flags of
// bench/hostile/servers/internal/cli (-stdio, -http ADDR, -sse ADDR)
// and serving the tools sample, slow, count and spam;
// bench/hostile/servers holds one on mcpgen and one on the official Go
// SDK. Command hostile (bench/hostile/cmd/hostile) builds them, runs
// every case against each, and prints the table.
package hostile
