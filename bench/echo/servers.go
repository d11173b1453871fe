// Package echo benchmarks one-tool echo MCP servers side by side: the same
// tool served by each library, driven by one hand-written JSON-RPC client so
// that the client costs every server the same.
//
// Each server is a program under bench/servers taking -stdio or -http ADDR,
// and an importable package with a Serve function for the in-process
// measurements. [Servers] lists them; adding one is adding a line there.
//
// go run ./echo/cmd/compare (from bench) prints the comparison table; the
// benchmarks in this package measure one server and mode at a time.
package echo

import (
	"context"
	"io"

	floorecho "github.com/mcpgen/mcpgen/bench/servers/floor/echo"
	gosdkecho "github.com/mcpgen/mcpgen/bench/servers/gosdk/echo"
	mcpgenecho "github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo"
	mcpgoecho "github.com/mcpgen/mcpgen/bench/servers/mcpgo/echo"
)

// Server is one echo server under comparison.
type Server struct {
	// Name labels the server in tables and benchmark names.
	Name string
	// Pkg is the import path of the server's main package.
	Pkg string
	// Serve runs the server in this process over rwc until the peer closes
	// it, closing rwc on return. Nil means the server has no in-process
	// form and only the stdio modes measure it.
	Serve func(ctx context.Context, rwc io.ReadWriteCloser) error
}

// Floor names the server the others are compared against.
const Floor = "floor"

// Servers lists every server the harness knows, the floor first.
var Servers = []Server{
	{Floor, "github.com/mcpgen/mcpgen/bench/servers/floor", floorecho.Serve},
	{"mcpgen", "github.com/mcpgen/mcpgen/bench/servers/mcpgen", mcpgenecho.Serve},
	{"gosdk", "github.com/mcpgen/mcpgen/bench/servers/gosdk", gosdkecho.Serve},
	{"mcpgo", "github.com/mcpgen/mcpgen/bench/servers/mcpgo", mcpgoecho.Serve},
}
