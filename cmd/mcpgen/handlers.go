package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/pipeline"
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
	src, h, err := pipeline.Handlers(dir)
	var ie *pipeline.InternalError
	if errors.As(err, &ie) {
		return internalError{ie.Err}
	}
	if err != nil {
		return err
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
