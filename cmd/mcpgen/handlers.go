package main

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// generateHandlers is the default action, what
// //go:generate go tool mcpgen runs: it writes
// mcpgen_gen.go for the package in the current directory (or DIR).
func generateHandlers(c *cli.Context) error {
	dir, err := packageDir(c)
	if err != nil {
		return err
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

// whatToRun is the hint for a command line that names neither a command nor
// a package folder.
const whatToRun = "run mcpgen in a package folder (go generate does), or mcpgen init NAME, mcpgen protocol, mcpgen diff OLD NEW, mcpgen fetch-schema VERSION; see mcpgen help"

// packageDir returns the folder of the package the default action reads:
// the current directory, or the one argument, which must be a folder
// holding a Go package. An argument that is no folder is most likely a
// command misspelt, and says so.
func packageDir(c *cli.Context) (string, error) {
	args := c.Args().Slice()
	if len(args) == 0 {
		return ".", noGoPackage(".")
	}
	dir := args[0]
	fi, err := os.Stat(dir)
	switch {
	case strings.Contains(dir, "..."):
		return "", usagef("run mcpgen in each package's folder: go generate ./... runs the //go:generate line of every package",
			"%s is a package pattern: mcpgen reads the one package in a folder", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	case err != nil:
		h := whatToRun
		if cmd := nearCommand(c.App, dir); cmd != "" {
			h = "did you mean mcpgen " + cmd + "? Else " + h
		}
		return "", usagef(h, "%q is not a package or a command", dir)
	case !fi.IsDir():
		return "", usagef("mcpgen "+filepath.Dir(dir)+" reads the package that file is in",
			"%s is a file: mcpgen takes the folder of a package", dir)
	case len(args) > 1:
		return "", usagef("mcpgen [DIR] generates the MCP wiring of one package; see mcpgen help",
			"too many arguments: %s", strings.Join(args, " "))
	}
	return dir, noGoPackage(dir)
}

// noGoPackage reports an error when dir holds no Go package, or one
// outside a Go module: go/packages would only say that it found none.
func noGoPackage(dir string) error {
	name := dir
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if dir == "." {
		name = abs
	}
	bp, err := build.ImportDir(dir, 0)
	var ng *build.NoGoError
	switch {
	case len(bp.IgnoredGoFiles) > 0 && (err == nil || errors.As(err, &ng)):
		// Build tags of go generate's own (GOFLAGS=-tags=...) may
		// select files that the default build context leaves out: the
		// load knows.
		return nil
	case errors.As(err, &ng):
		return hint.Errorf(startHint, "no Go package in %s", name)
	case err == nil && len(bp.GoFiles)+len(bp.CgoFiles) == 0:
		return hint.Errorf(startHint, "no Go package in %s, only tests", name)
	case err != nil:
		return nil // the load reports it, with positions
	}
	if os.Getenv("GO111MODULE") != "off" && moduleRoot(abs) == "" {
		return hint.Errorf("run go mod init MODULE in the folder to hold the module, or start one with mcpgen init NAME",
			"package %s in %s is in no Go module: no go.mod there or in a parent folder", bp.Name, name)
	}
	return nil
}

// startHint is what to do in a folder without a Go package.
const startHint = "run mcpgen in the folder of the package whose //mcp: directives it should read (go generate does), or mcpgen init NAME to start one"

// moduleRoot returns the folder of the go.mod or go.work governing dir, ""
// when there is none.
func moduleRoot(dir string) string {
	for {
		for _, f := range []string{"go.mod", "go.work"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// nearCommand returns the name of a command of app that arg misspells by
// a letter or two, "" when none is that close.
func nearCommand(app *cli.App, arg string) string {
	if strings.ContainsAny(arg, `/\.`) {
		return "" // a path, not a command
	}
	for _, cmd := range app.Commands {
		if cmd.Name != "help" && editDistance(arg, cmd.Name) <= 2 {
			return cmd.Name
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
