// Command mcpgen generates MCP protocol types and handler wiring for Go.
//
//	mcpgen [DIR]     # handlers: what //go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen runs
//	mcpgen protocol --schema VERSION=FILE [--schema ...] --out DIR --package NAME
package main

import (
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// internalError is a failure of mcpgen itself rather than of its input:
// exit code 2. Everything else (flags, schemas, files) is the user's to fix:
// exit code 1.
type internalError struct{ err error }

func (e internalError) Error() string { return "internal error: " + e.err.Error() }
func (e internalError) Unwrap() error { return e.err }

func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mcpgen: internal error: %v\n", r)
			code = 2
		}
	}()
	app := &cli.App{
		Name:  "mcpgen",
		Usage: "generate Model Context Protocol code for Go",
		Description: `With no command, mcpgen generates the MCP wiring of the Go package in the
current directory (or DIR): the functions and methods annotated with //mcp:tool
get their JSON Schemas, decoders, validators and registration in mcpgen_gen.go.
Use it from a go:generate line:

  //go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen`,
		ArgsUsage: "[DIR]",
		Action:    generateHandlers,
		Commands: []*cli.Command{
			protocolCommand(),
		},
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(args); err != nil {
		fmt.Fprintln(stderr, "mcpgen:", err)
		var ie internalError
		if errors.As(err, &ie) {
			return 2
		}
		return 1
	}
	return 0
}

func protocolCommand() *cli.Command {
	return &cli.Command{
		Name:  "protocol",
		Usage: "generate the protocol package from official MCP schemas",
		Description: `One schema generates that version alone; several merge into one package in
which every type, field and method records the versions it exists in.

Example:
  mcpgen protocol --schema 2025-11-25=schema/2025-11-25/schema.json \
                  --schema 2026-07-28=schema/2026-07-28/schema.json \
                  --out generated/mcp --package mcp`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "schema", Usage: "`VERSION=FILE`, or FILE in a directory named after its version (repeatable)", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output `DIR`", Required: true},
			&cli.StringFlag{Name: "package", Value: "mcp", Usage: "package `NAME` of the generated code"},
		},
		Action: func(c *cli.Context) error {
			var schemas []pipeline.Schema
			for _, arg := range c.StringSlice("schema") {
				s, err := pipeline.ParseSchemaArg(arg)
				if err != nil {
					return err
				}
				schemas = append(schemas, s)
			}
			pkg := c.String("package")
			if !token.IsIdentifier(pkg) {
				return fmt.Errorf("--package %q is not a Go identifier: name the package with letters, digits and underscores", pkg)
			}
			m, err := pipeline.Model(schemas)
			if err != nil {
				return err
			}
			files, err := gen.Protocol(m, gen.Config{Package: pkg})
			if err != nil {
				return internalError{err}
			}
			return gen.WriteDir(c.String("out"), files)
		},
	}
}
