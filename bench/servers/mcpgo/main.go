// Command mcpgo is the echo benchmark server built on mark3labs/mcp-go.
// See package github.com/mcpgen/mcpgen/bench/servers/mcpgo/echo.
package main

import (
	"github.com/mcpgen/mcpgen/bench/servers/internal/cli"
	"github.com/mcpgen/mcpgen/bench/servers/mcpgo/echo"
)

func main() {
	cli.Main(cli.Server{Name: "mcpgo", Serve: echo.Serve, HTTP: echo.HTTP})
}
