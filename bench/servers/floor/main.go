// Command floor is the echo benchmark's floor: a one-tool MCP server with no
// MCP library. See package github.com/mcpgen/mcpgen/bench/servers/floor/echo.
package main

import (
	"github.com/mcpgen/mcpgen/bench/servers/floor/echo"
	"github.com/mcpgen/mcpgen/bench/servers/internal/cli"
)

func main() {
	cli.Main(cli.Server{Name: "floor", Serve: echo.Serve, HTTP: echo.HTTP})
}
