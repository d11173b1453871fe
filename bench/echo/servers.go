// Package echo benchmarks one-tool echo MCP servers side by side: the same
// tool served by each library, driven by one hand-written JSON-RPC client so
// that the client costs every server the same.
//
// Each server is a program under bench/servers taking -stdio or -http ADDR,
// and an importable package with Serve and HTTP functions for the
// in-process measurements. [Servers] lists them; adding one is adding a line
// there.
//
// The client speaks either era ([Era]): the legacy one of sessions, which
// begins with initialize, or 2026-07-28, where every request carries the
// client's _meta and no session exists. An [Entry] is one server driven in
// one era, a row of the comparison.
//
// go run ./echo/cmd/compare (from bench) prints the comparison table; the
// benchmarks in this package measure one server and mode at a time.
package echo

import (
	"context"
	"io"
	"net/http"

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
	// HTTP returns the server's Streamable HTTP handler, the one its
	// program serves with -http, for the in-process HTTP measurements.
	HTTP func() (http.Handler, error)
	// Stateless, when not nil, returns the handler the server's library
	// serves 2026-07-28 with over HTTP, because its HTTP handler serves
	// only the legacy era; the program serves it with -http ADDR
	// -stateless. Nil means HTTP serves both eras, deciding per request.
	Stateless func() (http.Handler, error)
}

// Floor names the server the others are compared against.
const Floor = "floor"

// Servers lists every server the harness knows, the floor first.
var Servers = []Server{
	{Floor, "github.com/mcpgen/mcpgen/bench/servers/floor", floorecho.Serve, floorecho.HTTP, nil},
	{"mcpgen", "github.com/mcpgen/mcpgen/bench/servers/mcpgen", mcpgenecho.Serve, mcpgenecho.HTTP, nil},
	// go-sdk serves 2026-07-28 on stdio per request, but over HTTP only
	// on a stateless handler.
	{"gosdk", "github.com/mcpgen/mcpgen/bench/servers/gosdk", gosdkecho.Serve, gosdkecho.HTTP, gosdkecho.Stateless},
	{"mcpgo", "github.com/mcpgen/mcpgen/bench/servers/mcpgo", mcpgoecho.Serve, mcpgoecho.HTTP, nil},
}

// Entry is one row of a comparison: a server, and the era its client
// speaks to it.
type Entry struct {
	Server
	Era Era
}

// String names the entry: the server's name, followed by the version for
// 2026-07-28.
func (e Entry) String() string {
	if e.Era == Legacy {
		return e.Name
	}
	return e.Name + " " + e.Era.String()
}

// Entries returns every server in every one of eras, server by server.
func Entries(servers []Server, eras []Era) []Entry {
	var out []Entry
	for _, s := range servers {
		for _, e := range eras {
			out = append(out, Entry{s, e})
		}
	}
	return out
}

// httpArgs are the arguments after -http ADDR that make the entry's
// program serve its era.
func (e Entry) httpArgs() []string {
	if e.Era == Modern && e.Stateless != nil {
		return []string{"-stateless"}
	}
	return nil
}

// Handler returns the HTTP handler that serves the entry's era in this
// process: HTTP's, or Stateless's for a 2026-07-28 entry of a library
// that needs it.
func (e Entry) Handler() (http.Handler, error) {
	if e.Era == Modern && e.Stateless != nil {
		return e.Stateless()
	}
	return e.HTTP()
}
