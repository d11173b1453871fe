package support

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The generator copies every non-test file of this package into package mcp.
// These tests hold the files to what that needs.

// supportFiles parses the non-test Go files of this package but doc.go,
// this package's own comment, which the generator does not copy.
func supportFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := make(map[string]*ast.File)
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || name == "doc.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) == 0 {
		t.Fatal("no files")
	}
	return files
}

// runtimeImports are the packages outside the standard library that the
// copies in package mcp may import: the scanner, and the errors with JSON
// paths that the protocol package shares with generated handler files.
var runtimeImports = map[string]bool{
	"github.com/mcpgen/mcpgen/runtime/jsonrpc":  true,
	"github.com/mcpgen/mcpgen/runtime/fielderr": true,
}

func TestEmittedFilesAreSelfContained(t *testing.T) {
	for name, f := range supportFiles(t) {
		if f.Doc != nil {
			t.Errorf("%s: has a package comment, which would land in package mcp", name)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !runtimeImports[path] {
				t.Errorf("%s: imports %s", name, path)
			}
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//go:") {
					t.Errorf("%s: directive %s", name, c.Text)
				}
			}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: has an init function", name)
			}
		}
	}
}

// topLevel returns the package-level names declared in f, with their doc
// comments.
func topLevel(f *ast.File) map[string]*ast.CommentGroup {
	names := make(map[string]*ast.CommentGroup)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = d.Doc
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					doc := spec.Doc
					if doc == nil {
						doc = d.Doc
					}
					names[spec.Name.Name] = doc
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						doc := spec.Doc
						if doc == nil {
							doc = d.Doc
						}
						names[n.Name] = doc
					}
				}
			}
		}
	}
	return names
}

func TestExportedNamesAreDocumented(t *testing.T) {
	for name, f := range supportFiles(t) {
		for id, doc := range topLevel(f) {
			if !ast.IsExported(id) {
				continue
			}
			if doc == nil || !strings.HasPrefix(doc.Text(), id+" ") {
				t.Errorf("%s: %s has no doc comment starting with its name", name, id)
			}
		}
	}
}

// TestNoClashWithSchemaDefinitions checks the package-level names against
// the definitions of every schema version, each of which becomes a type of
// the same name in package mcp.
func TestNoClashWithSchemaDefinitions(t *testing.T) {
	schemas, _ := filepath.Glob("../../../shared/schema/*/schema.json")
	if len(schemas) == 0 {
		t.Skip("no schemas in ../../../shared/schema")
	}
	defs := make(map[string]string)
	for _, path := range schemas {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Definitions map[string]json.RawMessage `json:"definitions"`
			Defs        map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for name := range doc.Definitions {
			defs[name] = path
		}
		for name := range doc.Defs {
			defs[name] = path
		}
	}
	if len(defs) == 0 {
		t.Fatal("no definitions found")
	}
	for name, f := range supportFiles(t) {
		for id := range topLevel(f) {
			if path, ok := defs[id]; ok {
				t.Errorf("%s: %s is also a definition in %s", name, id, path)
			}
		}
	}
}
