package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/diff"
	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/internal/shared"
)

var versionName = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "say what changed between two MCP schema versions for Go code",
		ArgsUsage: "OLD NEW",
		Description: `OLD and NEW are schema.json files, or version names found as
VERSION/schema.json in --schema-dir (default: $MCPGEN_SHARED/schema, else the
shared/schema folder beside an mcpgen checkout, else ../shared/schema). Each is
lowered alone, as mcpgen protocol would, and the two models are compared:
methods (added, removed, changed params, result or direction), error codes,
types (added, removed, changed kind), fields (added, removed, changed type or
requiredness), union variants and enum values.

Examples:
  mcpgen diff 2025-11-25 2026-07-28
  mcpgen diff --json old/schema.json new/schema.json
  mcpgen diff --schema-dir ./schema 2025-06-18 2025-11-25`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the changes as JSON"},
			&cli.StringFlag{Name: "schema-dir", Usage: "`DIR` holding VERSION/schema.json for version names"},
		},
		Action: runDiff,
	}
}

func runDiff(c *cli.Context) error {
	if c.NArg() != 2 {
		return usagef("mcpgen diff OLD NEW, e.g. mcpgen diff 2025-11-25 2026-07-28", "diff takes two schemas, got %d arguments", c.NArg())
	}
	var labels [2]string
	var schemas [2]pipeline.Schema
	for i, arg := range c.Args().Slice() {
		s, err := diffSchema(c, arg)
		if err != nil {
			return err
		}
		labels[i], schemas[i] = arg, s
	}
	oldModel, err := pipeline.Model([]pipeline.Schema{schemas[0]})
	if err != nil {
		return err
	}
	newModel, err := pipeline.Model([]pipeline.Schema{schemas[1]})
	if err != nil {
		return err
	}
	r := diff.Compare(labels[0], oldModel, labels[1], newModel)
	if c.Bool("json") {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return internalError{err}
		}
		_, err = c.App.Writer.Write(append(data, '\n'))
		return err
	}
	return r.WriteText(c.App.Writer)
}

// diffSchema resolves a diff argument: a file, or a version name in the
// schema folder.
func diffSchema(c *cli.Context, arg string) (pipeline.Schema, error) {
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() {
		version := filepath.Base(filepath.Dir(arg))
		if !versionName.MatchString(version) {
			version = "0000-00-00"
		}
		verbosef(c, "%s: the schema file %s", arg, arg)
		return pipeline.Schema{Version: version, File: arg}, nil
	}
	if !versionName.MatchString(arg) {
		return pipeline.Schema{}, hint.Errorf("give a schema.json file or a version such as 2025-11-25", "%s: no such file, and not a version name", arg)
	}
	dir, err := schemaDir(c)
	if err != nil {
		return pipeline.Schema{}, err
	}
	file := filepath.Join(dir, arg, "schema.json")
	if _, err := os.Stat(file); err != nil {
		return pipeline.Schema{}, hint.Errorf(fmt.Sprintf("mcpgen fetch-schema %s --dir %s downloads it; mcpgen knows %v", arg, dir, shared.Versions),
			"unknown version %s: no %s", arg, file)
	}
	verbosef(c, "%s: the schema file %s", arg, file)
	return pipeline.Schema{Version: arg, File: file}, nil
}

// schemaDir is --schema-dir, or the shared schema folder.
func schemaDir(c *cli.Context) (string, error) {
	if dir := c.String("schema-dir"); dir != "" {
		return dir, nil
	}
	if dir, err := shared.Dir(); err == nil {
		return filepath.Join(dir, "schema"), nil
	} else if os.Getenv(shared.EnvVar) != "" {
		return "", hint.Wrap(err, "point "+shared.EnvVar+" at a folder holding schema/VERSION/schema.json, or pass --schema-dir")
	}
	return filepath.Join("..", "shared", "schema"), nil
}
