// Package pipeline runs mcpgen's two generations from their inputs to Go
// source: for the protocol, parser/schema reads the schema files and lowers
// them into a model, then gen renders it; for a package of handlers,
// parser/gosrc lowers the annotated functions, gen renders mcpgen_gen.go,
// and parser/gosrc type-checks the result before anything is written.
package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/model"
	"github.com/mcpgen/mcpgen/parser/gosrc"
	"github.com/mcpgen/mcpgen/parser/schema"
)

// Schema is one input: a protocol version and the file of its schema.
type Schema struct {
	Version string
	File    string
}

// versionRE matches a version name: a date, or draft for a schema not yet
// released (an extension's, say).
var versionRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|draft)$`)

// ParseSchemaArg reads VERSION=FILE, or a bare FILE whose parent directory
// is named after its version (the older schema files do not name their
// version inside).
func ParseSchemaArg(arg string) (Schema, error) {
	if v, file, ok := strings.Cut(arg, "="); ok {
		if !versionRE.MatchString(v) {
			return Schema{}, fmt.Errorf("--schema %s: version %q is not of the form YYYY-MM-DD (or draft)", arg, v)
		}
		if file == "" {
			return Schema{}, fmt.Errorf("--schema %s: no file after =", arg)
		}
		return Schema{Version: v, File: file}, nil
	}
	dir := filepath.Base(filepath.Dir(arg))
	if !versionRE.MatchString(dir) {
		return Schema{}, fmt.Errorf("--schema %s: cannot tell the version: write VERSION=FILE, or keep the file in a directory named after its version", arg)
	}
	return Schema{Version: dir, File: arg}, nil
}

// Model loads the schemas and lowers them into one model.
func Model(schemas []Schema) (*model.Model, error) {
	if len(schemas) == 0 {
		return nil, fmt.Errorf("no schemas given")
	}
	sorted := append([]Schema(nil), schemas...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Version < sorted[j].Version })
	var versions []string
	var docs []*schema.Document
	for i, s := range sorted {
		if i > 0 && s.Version == sorted[i-1].Version {
			return nil, fmt.Errorf("version %s given twice", s.Version)
		}
		doc, err := schema.Load(s.File)
		if err != nil {
			return nil, err
		}
		versions = append(versions, s.Version)
		docs = append(docs, doc)
	}
	return schema.Lower(versions, docs)
}

// Core is the protocol package an extension's schema builds on: the
// schema file of the protocol version it extends and the import path of
// the package generated from it.
type Core struct {
	File    string
	Package string
}

// ExtensionModel loads the schema of an extension and the core schema it
// extends, and lowers the extension alone: its copies of core definitions
// stay types of core.Package (see schema.LowerExtension).
func ExtensionModel(ext Schema, core Core) (*model.Model, error) {
	doc, err := schema.Load(ext.File)
	if err != nil {
		return nil, err
	}
	coreDoc, err := schema.Load(core.File)
	if err != nil {
		return nil, err
	}
	return schema.LowerExtension(ext.Version, doc, coreDoc, core.Package)
}

// Protocol generates the protocol package for the schemas.
func Protocol(schemas []Schema, pkg string) (map[string][]byte, error) {
	m, err := Model(schemas)
	if err != nil {
		return nil, err
	}
	return gen.Protocol(m, gen.Config{Package: pkg})
}

// InternalError is a failure of mcpgen itself rather than of its input,
// such as generated code that does not compile.
type InternalError struct{ Err error }

func (e *InternalError) Error() string { return "internal error: " + e.Err.Error() }
func (e *InternalError) Unwrap() error { return e.Err }

// Handlers generates the handler file of the package in dir: its source,
// nil when the package has no directives, and the package's model. Mistakes
// in the package are *model.PosError or load errors, a call of a Register
// function that src would not declare among them; a fault of the generator
// is an *InternalError. Nothing is written.
func Handlers(dir string) ([]byte, *model.Handlers, error) {
	h, err := gosrc.Parse(dir)
	if err != nil {
		return nil, nil, err
	}
	src, err := gen.Handlers(h)
	var pe *model.PosError
	switch {
	case errors.As(err, &pe):
		return nil, h, err // names the package's own declarations cannot get
	case err != nil:
		return nil, h, &InternalError{err}
	}
	if src != nil {
		if err := gosrc.CheckGenerated(dir, src); err != nil {
			return nil, h, &InternalError{err}
		}
	}
	if err := checkRegisterCalls(dir, src); err != nil {
		return nil, h, err
	}
	return src, h, nil
}
