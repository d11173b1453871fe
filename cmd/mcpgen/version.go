package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/scaffold"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print mcpgen's module version",
		Description: `Prints the version of the mcpgen module the binary was built from: a release
such as v0.3.0 for go install ...@v0.3.0, "(devel)" for a build from a checkout.

Example:
  mcpgen version`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("mcpgen version", "version takes no arguments, got %d", c.NArg())
			}
			v := scaffold.Running().Version
			if v == "" {
				v = "(devel)"
			}
			fmt.Fprintln(c.App.Writer, "mcpgen", v)
			return nil
		},
	}
}
