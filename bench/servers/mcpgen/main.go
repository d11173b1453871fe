// Command mcpgen is the echo benchmark's server built on mcpgen's runtime.
// See package github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo.
package main

import (
	"github.com/mcpgen/mcpgen/bench/servers/internal/cli"
	"github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo"
)

func main() {
	cli.Main(cli.Server{Name: "mcpgen", Serve: echo.Serve, HTTP: echo.HTTP})
}
