// Command mcpgen generates MCP protocol types and handler wiring for Go.
//
//	mcpgen [DIR]                  # handlers: what //go:generate go tool mcpgen runs
//	mcpgen protocol --schema VERSION=FILE [--schema ...] --out DIR --package NAME
//	mcpgen protocol --schema VERSION=FILE --core FILE --core-package PATH --out DIR --package NAME
//	mcpgen init NAME              # a new server project
//	mcpgen diff OLD NEW           # what changed between two spec versions
//	mcpgen fetch-schema VERSION   # download an official schema.json
//	mcpgen version
//
// Exit codes: 0 success, 1 a mistake in the input (one line of cause on
// stderr, and a hint when there is one), 2 a command line mcpgen cannot read
// (an unknown command or flag, an argument too many or missing; cause and
// hint as for 1), 3 an internal error.
package main

import (
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/model"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// Exit codes of run.
const (
	exitOK       = 0
	exitInput    = 1 // a mistake in what the command line names: a package, a schema, a file, a flag's value
	exitUsage    = 2 // a command line mcpgen cannot read, as the go command exits for one
	exitInternal = 3 // a fault of mcpgen itself
)

// internalError is a failure of mcpgen itself rather than of its input:
// exit code 3. Everything else is the user's to fix.
type internalError struct{ err error }

func (e internalError) Error() string { return "internal error: " + e.err.Error() }
func (e internalError) Unwrap() error { return e.err }

// usageError is a command line mcpgen cannot read: an unknown command or
// flag, or arguments too many or missing. Exit code 2, where a mistake in
// what a well-formed command line names is exit code 1. It carries a hint
// saying what to run instead.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef formats a usageError with its hint, as hint.Errorf does.
func usagef(hintText, format string, args ...any) error {
	return usageError{hint.Errorf(hintText, format, args...)}
}

// onUsageError turns urfave/cli's flag errors into a usageError naming the
// command and where its flags are listed, in place of urfave/cli's help page
// on stdout.
func onUsageError(c *cli.Context, err error, isSubcommand bool) error {
	cmd := "mcpgen"
	if isSubcommand && c.Command != nil {
		cmd += " " + c.Command.Name
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		dashes := "-"
		if len(name) > 1 {
			dashes = "--"
		}
		msg = fmt.Sprintf("%s has no flag %s%s", cmd, dashes, name)
	}
	return usagef(cmd+" --help lists its flags", "%s", msg)
}

func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "mcpgen: internal error: %v\n", r)
			code = exitInternal
		}
	}()
	app := newApp(stdout, stderr)
	err := app.Run(flagsFirst(app, args))
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "mcpgen:", errorText(err.Error()))
	var ie internalError
	if errors.As(err, &ie) {
		return exitInternal
	}
	if h := hint.Of(err); h != "" {
		fmt.Fprintln(stderr, "hint:", h)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitInput
}

// newApp builds the command line, writing to stdout and stderr.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "mcpgen",
		Usage: "generate Model Context Protocol code for Go",
		Description: `With no command, mcpgen generates the MCP wiring of the Go package in the
current directory (or DIR): the functions and methods annotated with //mcp:tool
get their JSON Schemas, decoders, validators and registration in mcpgen_gen.go.
Use it from a go:generate line, with mcpgen as a tool of the module
(go get -tool github.com/mcpgen/mcpgen/cmd/mcpgen):

  //go:generate go tool mcpgen

Examples:
  mcpgen                                  # the package in the current directory
  mcpgen ./internal/tools                 # another package
  mcpgen init weather                     # a new server project
  mcpgen diff 2025-11-25 2026-07-28       # what a spec bump changes

Exit codes: 0 success, 1 a mistake in the input (cause and hint on stderr),
2 a command line mcpgen cannot read (an unknown command or flag, an argument
too many or missing), 3 an internal error of mcpgen.`,
		ArgsUsage: "[DIR]",
		Action:    generateHandlers,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors and requested output"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "report each step on stderr"},
		},
		Commands: []*cli.Command{
			protocolCommand(),
			initCommand(),
			diffCommand(),
			fetchCommand(),
			versionCommand(),
		},
		HideVersion:    true,
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsageError
	}
	return app
}

// errorText is an error message as the user sees it: whole, so that the
// compiler's lines and positions for a package that does not compile
// reach them, but at most maxErrorLines lines, the rest counted.
func errorText(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) > maxErrorLines {
		more := len(lines) - maxErrorLines
		lines = append(lines[:maxErrorLines], fmt.Sprintf("... and %d more lines", more))
	}
	return strings.Join(lines, "\n")
}

// maxErrorLines bounds an error message printed: go/packages can report
// hundreds of errors for a broken package, the first ones matter.
const maxErrorLines = 30

// verbosef reports a step on stderr under --verbose.
func verbosef(c *cli.Context, format string, args ...any) {
	if c.Bool("verbose") && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "mcpgen: "+format+"\n", args...)
	}
}

// flagsFirst moves flags ahead of the arguments, so that
// `mcpgen init demo --force` means what `mcpgen init --force demo` does:
// urfave/cli stops reading flags at the first argument. It also moves the
// global flags (--quiet, --verbose) written after a command, as in
// `mcpgen init -q demo`, ahead of the command, where urfave/cli reads them.
// A flag neither the command nor mcpgen defines stays with the command,
// which reports it; --help anywhere asks for the command's help alone.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	global := []string{args[0]}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		global = append(global, args[i])
		i++
	}
	if i >= len(args) {
		return global
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[i]) {
			cmd = c
		}
	}
	var own []cli.Flag // the flags of the command, or none for the default action
	if cmd != nil {
		own = cmd.Flags
		i++
	}
	var flags, rest []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			rest = append(rest, args[j:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if cmd != nil && (name == "help" || name == "h") && !defines(own, name) {
			// urfave/cli would take the arguments for a help topic.
			return append(global, args[i-1], a)
		}
		to, from := &flags, own
		if cmd == nil || (!defines(own, name) && defines(app.Flags, name)) {
			to, from = &global, app.Flags
		}
		*to = append(*to, a)
		if !hasValue && takesValue(from, name) && j+1 < len(args) {
			j++
			*to = append(*to, args[j])
		}
	}
	if cmd == nil {
		return append(global, rest...)
	}
	out := append(global, args[i-1])
	out = append(out, flags...)
	if len(rest) > 0 && rest[0] != "--" {
		out = append(out, "--")
	}
	return append(out, rest...)
}

// defines reports whether one of flags is called name.
func defines(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// takesValue reports whether the flag name among flags takes a value.
func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

// protocolModel lowers the schemas of the protocol command: the versions
// of the core protocol, or with --core one extension of it.
func protocolModel(c *cli.Context, schemas []pipeline.Schema) (*model.Model, error) {
	core, corePkg := c.String("core"), c.String("core-package")
	switch {
	case core == "" && corePkg == "":
		return pipeline.Model(schemas)
	case core == "" || corePkg == "":
		return nil, fmt.Errorf("--core and --core-package go together: the core schema and the import path of the package generated from it")
	case len(schemas) != 1:
		return nil, fmt.Errorf("an extension takes one --schema, got %d", len(schemas))
	}
	return pipeline.ExtensionModel(schemas[0], pipeline.Core{File: core, Package: corePkg})
}

func protocolCommand() *cli.Command {
	return &cli.Command{
		Name:  "protocol",
		Usage: "generate the protocol package from official MCP schemas",
		Description: `One schema generates that version alone; several merge into one package in
which every type, field and method records the versions it exists in.

An extension's schema (io.modelcontextprotocol/tasks, say) repeats the core
definitions it uses. Given --core, the schema of the protocol version it
extends, and --core-package, the package generated from that, mcpgen
generates the extension's own definitions only: each copy of a core
definition becomes a reference to the core package's type (mcp.Result), and
a definition that shares a core name but differs is an error. An extension
takes one --schema; its version may be named draft.

Examples:
  mcpgen protocol --schema 2025-11-25=schema/2025-11-25/schema.json \
                  --schema 2026-07-28=schema/2026-07-28/schema.json \
                  --out generated/mcp --package mcp

  mcpgen protocol --schema draft=schema/ext-tasks/draft/schema.json \
                  --core schema/2026-07-28/schema.json \
                  --core-package github.com/mcpgen/mcpgen/generated/mcp \
                  --out generated/tasks --package tasks`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "schema", Usage: "`VERSION=FILE`, or FILE in a directory named after its version (repeatable)"},
			&cli.StringFlag{Name: "core", Usage: "the schema `FILE` of the core protocol version an extension's --schema extends"},
			&cli.StringFlag{Name: "core-package", Usage: "import `PATH` of the package generated from --core"},
			&cli.StringFlag{Name: "out", Usage: "output `DIR`"},
			&cli.StringFlag{Name: "package", Value: "mcp", Usage: "package `NAME` of the generated code"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("mcpgen protocol takes its input as flags: --schema VERSION=FILE --out DIR", "protocol takes no arguments, got %s", strings.Join(c.Args().Slice(), " "))
			}
			for _, name := range []string{"schema", "out"} {
				if !c.IsSet(name) {
					return usagef("mcpgen protocol --schema VERSION=FILE --out DIR; mcpgen protocol --help lists the flags", "protocol needs --%s", name)
				}
			}
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
			m, err := protocolModel(c, schemas)
			if err != nil {
				return err
			}
			files, err := gen.Protocol(m, gen.Config{Package: pkg})
			var me *model.Error
			if errors.As(err, &me) {
				return err // the schema asks for what the generator cannot write
			}
			if err != nil {
				return internalError{err}
			}
			return gen.WriteDir(c.String("out"), files)
		},
	}
}
