// Command gosdk is the echo benchmark server built on the official Go SDK.
// See package github.com/mcpgen/mcpgen/bench/servers/gosdk/echo.
package main

import (
	"github.com/mcpgen/mcpgen/bench/servers/gosdk/echo"
	"github.com/mcpgen/mcpgen/bench/servers/internal/cli"
)

func main() {
	cli.Main(cli.Server{Name: "gosdk", Serve: echo.Serve, HTTP: echo.HTTP, Stateless: echo.Stateless})
}
