package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/internal/scaffold"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a new MCP server project in ./NAME",
		ArgsUsage: "NAME",
		Description: `Creates ./NAME holding a working MCP server: go.mod (with mcpgen as a tool),
main.go (stdio, and Streamable HTTP with -http ADDR), tools.go with an example
tool and prompt, the generated mcpgen_gen.go, a test, a README, a Makefile and
client configuration for Claude Code (.mcp.json), VS Code (.vscode/mcp.json)
and Claude Desktop (clients/).

NAME may be a path (../servers/weather); its last element names the project,
its binary and its server. It must be a new or empty directory unless --force
is given. Run from an mcpgen checkout (go run ./cmd/mcpgen init demo), the
project's go.mod points at that checkout with a replace directive.

Examples:
  mcpgen init weather
  mcpgen init weather --module github.com/you/weather --transport stdio
  mcpgen init demo --replace ~/src/mcpgen`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "module", Usage: "module `PATH` of the project (default: NAME)"},
			&cli.StringFlag{Name: "transport", Value: "both", Usage: "what main.go serves: stdio, http or both"},
			&cli.BoolFlag{Name: "force", Usage: "write into a non-empty directory, replacing files of the same name"},
			&cli.StringFlag{Name: "replace", Usage: "add a replace directive to the mcpgen checkout in `DIR`"},
		},
		Action: runInit,
	}
}

func runInit(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("mcpgen init NAME, e.g. mcpgen init weather", "init takes one NAME, got %d arguments", c.NArg())
	}
	dir := c.Args().First()
	name := filepath.Base(filepath.Clean(dir))
	if err := scaffold.CheckName(name); err != nil {
		return err
	}
	src := scaffold.Running()
	o := scaffold.Options{Name: name, Module: c.String("module"), Transport: c.String("transport"), Version: src.Version}
	if c.IsSet("module") && o.Module == "" {
		return hint.Errorf("name a module such as example.com/"+name, "--module is empty")
	}
	switch rdir := c.String("replace"); {
	case rdir != "":
		abs, err := filepath.Abs(rdir)
		if err != nil {
			return err
		}
		if scaffold.ModuleRoot(abs) != abs {
			return hint.Errorf("point --replace at the root of an mcpgen checkout, the directory holding its go.mod", "--replace %s: no go.mod declaring %s there", rdir, scaffold.ModulePath)
		}
		o.Replace = abs
	case src.Checkout != "":
		o.Replace = src.Checkout
		verbosef(c, "mcpgen runs from the checkout %s: the project replaces mcpgen with it", src.Checkout)
	}
	if err := scaffold.Create(c.Context, dir, o, c.Bool("force"), func(format string, args ...any) { verbosef(c, format, args...) }); err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprint(c.App.Writer, nextSteps(dir, o))
	}
	return nil
}

// nextSteps is what init prints once the project in dir exists.
func nextSteps(dir string, o scaffold.Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Created %s, an MCP server. Next:\n\n", o.Name)
	fmt.Fprintf(&b, "  cd %s\n", dir)
	fmt.Fprintf(&b, "  go test ./...                            # call the example tool in memory\n")
	if o.Transport == "http" {
		fmt.Fprintf(&b, "  go run .                                 # serve Streamable HTTP on localhost:8080\n")
	} else {
		fmt.Fprintf(&b, "  go run .                                 # serve stdio\n")
	}
	if o.Transport == "both" || o.Transport == "" {
		fmt.Fprintf(&b, "  go run . -http localhost:8080            # serve Streamable HTTP\n")
	}
	fmt.Fprintf(&b, "  npx @modelcontextprotocol/inspector      # inspect it (see README.md)\n")
	fmt.Fprintf(&b, "\nAdd tools in tools.go, then run go generate ./...\n")
	return b.String()
}
