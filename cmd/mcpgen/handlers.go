package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// generateHandlers is the default action, what
// //go:generate go tool mcpgen runs: it writes
// mcpgen_gen.go for the package in the current directory (or DIR).
func generateHandlers(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("too many arguments: mcpgen [DIR] generates handlers for one package; see mcpgen help")
	}
	dir := "."
	if c.NArg() == 1 {
		dir = c.Args().First()
	}
	h, err := gosrc.Parse(dir)
	if err != nil {
		return err
	}
	src, err := gen.Handlers(h)
	var pe *model.PosError
	switch {
	case errors.As(err, &pe):
		return err // names the package's own declarations cannot get
	case err != nil:
		return internalError{err}
	}
	if src != nil {
		if err := gosrc.CheckGenerated(dir, src); err != nil {
			return internalError{err}
		}
	}
	removed, err := gen.WriteHandlers(dir, src)
	if err != nil {
		return err
	}
	if src == nil && !c.Bool("quiet") {
		from := ""
		if f := os.Getenv("GOFILE"); f != "" {
			from = " (go:generate in " + f + ")"
		}
		msg := "nothing to generate"
		if removed {
			msg = "removed the stale " + gen.HandlersFile
		}
		fmt.Fprintf(c.App.Writer, "mcpgen: package %s has no //mcp: directives%s: %s\n", h.Package, from, msg)
	}
	return nil
}
