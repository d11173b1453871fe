package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/fetch"
)

func fetchCommand() *cli.Command {
	return &cli.Command{
		Name:      "fetch-schema",
		Usage:     "download the official schema.json of an MCP version",
		ArgsUsage: "VERSION",
		Description: `Downloads BASE-URL/VERSION/schema.json from the specification repository,
checks that it parses and passes its JSON Schema metaschema, and writes it to
DIR/VERSION/schema.json (through a temporary file: a failed download leaves
the old file as it was). Prints the path written.

Examples:
  mcpgen fetch-schema 2025-11-25
  mcpgen fetch-schema --dir ../shared/schema 2025-11-25
  mcpgen diff --schema-dir schema 2025-06-18 2025-11-25`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: "schema", Usage: "write to `DIR`/VERSION/schema.json"},
			&cli.StringFlag{Name: "base-url", Value: fetch.DefaultBaseURL, Usage: "the schema folder to download from"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("mcpgen fetch-schema VERSION, e.g. mcpgen fetch-schema 2025-11-25", "fetch-schema takes one VERSION, got %d arguments", c.NArg())
			}
			o := fetch.Options{BaseURL: c.String("base-url")}
			verbosef(c, "GET %s", o.URL(c.Args().First()))
			path, err := fetch.Schema(c.Context, c.Args().First(), c.String("dir"), o)
			if err != nil {
				return err
			}
			if !c.Bool("quiet") {
				fmt.Fprintln(c.App.Writer, path)
			}
			return nil
		},
	}
}
