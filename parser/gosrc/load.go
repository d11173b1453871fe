// Package gosrc is mcpgen's Go source front-end: it loads a user's package
// with golang.org/x/tools/go/packages, finds the functions and methods
// annotated with //mcp:tool, //mcp:prompt or //mcp:resource and the struct
// types annotated with //mcp:form, checks their
// signatures and lowers their input and output types into the handler model
// (model.Handlers). Every mistake is a *model.PosError with file:line and a
// message saying what to do.
//
// Directives sit in a function's or method's doc comment:
//
//	//mcp:tool [name=N] [title="T"] [description="D"] [readonly] [destructive] [idempotent] [openworld] [task=optional|required [input-before-task]] [rate=N/s|N/m|N/h [burst=B]] [scopes=S|S...] [input-schema=F.json] [output-schema=F.json]
//	//mcp:prompt [name=N] [title="T"] [description="D"] [scopes=S|S...]
//	//mcp:resource uri=URI [name=N] [title="T"] [description="D"] [mime=type/subtype] [scopes=S|S...]
//	//mcp:resource uri-template=TEMPLATE [name=N] [title="T"] [description="D"] [mime=type/subtype] [scopes=S|S...]
//
// An option is written once.
//
// A handler's description is its doc comment without the Go name that
// godoc convention puts first: "CreateIssue files a new issue." is sent as
// "Files a new issue.", and "Readme is the project's README." as "The
// project's README.". The name (or, for a method, Recv.Name) is dropped only
// when it is the first word and is followed by a verb in the third person
// (a lower-case word ending in s) or by "is"/"are" and an article (a, an,
// the); the word that then leads is capitalised. Any other comment is sent
// whole, so an imperative ("Get the weather.") or "Deprecated: ..." keeps
// its first word; an imperative whose next word ends in s ("List issues.")
// cannot be told from the convention and loses it. A struct field's doc
// comment, its property's description, loses only "Name is"/"Name are"
// before an article ("Title is the title." → "The title.").
// description="D" is sent instead of the doc comment, as written; an empty
// one is refused.
//
// task= lets a tool run as an MCP task: with
// task=optional it runs as one when the client can take a task and answers
// at once otherwise; with task=required it runs only as one. The generated
// Register passes server.WithTaskSupport for it. Without task= a tool always
// answers at once; task= takes no other value. input-before-task, a flag
// written only beside task=, makes a 2026-07-28 call start as a
// synchronous one: the handler asks for its input in rounds (server.Elicit
// and the others) and turns the call into a task itself with
// server.StartTask (legacy sessions create the task first, as without the
// flag). The generated Register passes server.WithInputBeforeTask for it.
//
// rate= limits each caller's calls of the tool: rate=30/m lets a caller
// (its principal, else its legacy session) make 30 calls a minute on
// average; burst=B, written only beside rate=, says how many may come at
// once, N when left out. The generated Register passes
// server.WithRateLimit for it; calls over the limit are refused with
// server.CodeRateLimited before anything else of the call happens.
//
// scopes= names the OAuth scopes a caller's credentials must grant to call
// the tool, get the prompt or read the resource (or a URI of the
// template), separated by |: scopes=files:read|files:write. Each is an
// OAuth scope token (RFC 6749 §3.3: printable ASCII without spaces, '"'
// or '\'; a scope that holds '|' must be registered by hand); none may be
// empty or written twice, and they keep the order written. The generated
// Register passes server.WithScopes, server.PromptScopes or
// server.ResourceScopes for them; a request whose credentials lack one is
// refused with server.CodeInsufficientScope before anything else of it
// happens, a tool's rate limit included.
//
// An input or output struct's fields take JSON Schema keywords from an
// mcp:"..." tag: minimum, maximum, exclusiveMinimum and exclusiveMaximum
// (numbers; an integer field's are integers), minLength and maxLength
// (strings, counted in characters), pattern (a Go regexp, matched
// unanchored), format (strings), enum (values separated by |, \| for a
// bar), default (strings, numbers and booleans), minItems, maxItems and
// uniqueItems (slices and arrays), title, deprecated, and nullable (an
// optional field whose schema has a type: the schema admits null). Items are
// key=value separated by commas; a value holding commas or spaces is
// single-quoted, a quote inside it doubled; booleans may be bare. A pointer
// field's keywords apply to the value pointed to. The keywords must agree
// with the field's type and with one another, or mcpgen refuses the tag:
//
//   - enum values and the default are of the field's type and within a
//     sized number's range;
//   - the bounds leave some value (minimum=5,maximum=4 does not, nor do
//     exclusiveMinimum=0,exclusiveMaximum=1 on an integer, nor minimum=200
//     on an int8), minLength is at most maxLength, minItems at most
//     maxItems, and a Go array's length, which is its number of items,
//     lies between them;
//   - every enum value is distinct and passes the field's other keywords
//     (bounds, lengths, pattern, and the formats the generated validator
//     checks: date-time, date and byte);
//   - the default passes them too, and is one of the enum's values;
//   - on a named string or integer type whose constants the package
//     declares (which are its enum), enum= names some of those constants
//     and so narrows the set; a value that is not a constant is refused,
//     never added. Without enum=, the default must be one of the
//     constants, and some constant must pass the field's other keywords;
//   - nullable is on an optional field (a required one refuses null in
//     the decoder) whose value is not any or json.RawMessage (whose
//     schema admits null already).
//
// A struct type's doc comment may hold
//
//	//mcp:form
//
// which makes the struct an elicitation form: the generated file holds its
// requestedSchema, a decoder that checks an answer against it, and
// ElicitT(ctx, message string, opts ...server.InputOption) (T,
// mcp.ElicitResultAction, error) (elicitT for an unexported T), which
// asks it through server.ElicitForm. Each field, with its doc comment and
// mcp tag as in a tool's input, is a string (title, minLength, maxLength,
// format=email|uri|date|date-time, default), a string enum (a named
// string type with constants, or enum=), an integer or number (minimum,
// maximum, default) or a bool (default); a pointer or omitempty makes it
// optional. Nested structs, slices, maps and other keywords are refused.
//
// One more directive is a package option rather than a handler's: a
// comment line of its own (not part of a declaration's doc comment, e.g.
// just above or below the package clause) in any file of the package,
//
//	//mcp:schema draft-07
//
// makes every generated schema JSON Schema draft-07 instead of the default
// 2020-12 ("//mcp:schema 2020-12" says the default out loud), for clients
// that predate 2020-12: the schemas then carry the draft-07 $schema URL and
// keep recursive types under definitions instead of $defs. Files of one
// package must not disagree.
package gosrc

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// GeneratedFile is the name of the file mcpgen writes into a package.
const GeneratedFile = "mcpgen_gen.go"

// loadMode asks go/packages for no more than the front-end reads: the
// package's name and files, its syntax (for doc comments and directives)
// and its types (for signatures and type lowering).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo

// generatedSymbol matches the undefined names that only the generated file
// declares (Register functions, a form's Elicit function, its own): errors about them come from code that uses a previous
// mcpgen_gen.go, which the load leaves out, and must not block regenerating it.
var generatedSymbol = regexp.MustCompile(`undefined: (Register\w*|mcpgen\w*|[Ee]licit\w*)$`)

// load loads the package in dir, with its previous mcpgen_gen.go replaced by
// an empty file of the same package.
func load(dir string) (*packages.Package, *token.FileSet, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	cfg := &packages.Config{Mode: loadMode, Dir: abs, Fset: fset, Tests: false}
	gen := filepath.Join(abs, GeneratedFile)
	if src, err := os.ReadFile(gen); err == nil {
		f, err := parser.ParseFile(token.NewFileSet(), gen, src, parser.PackageClauseOnly)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v: delete the file and run mcpgen again", GeneratedFile, err)
		}
		cfg.Overlay = map[string][]byte{gen: []byte("package " + f.Name.Name + "\n")}
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("load package in %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		return nil, nil, fmt.Errorf("load package in %s: found %d packages, want 1", dir, len(pkgs))
	}
	pkg := pkgs[0]
	var errs []error
	typeErrors := slices.ContainsFunc(pkg.Errors, func(e packages.Error) bool { return e.Kind == packages.TypeError })
	for _, e := range pkg.Errors {
		if onlyGeneratedSymbols(e.Msg) {
			continue
		}
		if typeErrors && e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
			continue // the compiler's run of what the type errors say again
		}
		errs = append(errs, errors.New(relativeError(e, abs)))
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("package in %s does not compile; fix it first:\n%w", dir, errors.Join(errs...))
	}
	if pkg.Types == nil || len(pkg.Syntax) == 0 {
		return nil, nil, fmt.Errorf("no Go files in %s", dir)
	}
	return pkg, fset, nil
}

// onlyGeneratedSymbols reports whether every line of a load error (the
// type checker's, or the go command's with a "# package" heading) is about a
// symbol that only the generated file declares.
func onlyGeneratedSymbols(msg string) bool {
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(msg), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if !generatedSymbol.MatchString(strings.TrimSpace(line)) {
			return false
		}
		n++
	}
	return n > 0
}

// relativeError writes a load error with its file named relative to dir.
func relativeError(e packages.Error, dir string) string {
	pos := e.Pos
	if rel, ok := strings.CutPrefix(pos, dir+string(filepath.Separator)); ok {
		pos = rel
	}
	if pos == "" || pos == "-" {
		return e.Msg
	}
	return pos + ": " + e.Msg
}

// CheckGenerated type-checks the package in dir with src standing for its
// mcpgen_gen.go, before mcpgen writes src there, and returns the errors the
// type checker finds in src, each as "mcpgen_gen.go:line:col: message".
// Parse has already refused a package whose own files do not compile, so an
// error here is a fault of the generator: mcpgen reports it and writes
// nothing rather than leave a file that breaks the build.
//
// The check runs go/types in process over the package's files and src,
// importing from the compiler's export data, so it costs one go list of
// the imports (whose export data the build cache holds) rather than a
// compilation of the package. A package that uses cgo is not checked: its
// files need the cgo tool first.
func CheckGenerated(dir string, src []byte) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	gen := filepath.Join(abs, GeneratedFile)
	bp, err := build.ImportDir(abs, 0)
	if err != nil && !isNoGo(err) {
		return fmt.Errorf("type-check the generated file: %w", err)
	}
	if len(bp.CgoFiles) > 0 {
		return nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		if name == GeneratedFile {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(abs, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("type-check the generated file: %w", err)
		}
		files = append(files, f)
	}
	genFile, err := parser.ParseFile(fset, gen, src, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("the generated %s does not parse: %w", GeneratedFile, err)
	}
	files = append(files, genFile)

	exports, err := exportFiles(abs, files)
	if err != nil {
		return fmt.Errorf("type-check the generated file: %w", err)
	}
	var errs []error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && te.Fset.Position(te.Pos).Filename == gen {
				pos := te.Fset.Position(te.Pos)
				errs = append(errs, fmt.Errorf("%s:%d:%d: %s", GeneratedFile, pos.Line, pos.Column, te.Msg))
			}
		},
	}
	conf.Check(bp.ImportPath, fset, files, nil) // the errors that matter reach Error
	if len(errs) > 0 {
		return fmt.Errorf("the generated %s does not compile:\n%w", GeneratedFile, errors.Join(errs...))
	}
	return nil
}

// exportFiles returns the compiler's export data file of every package the
// files import, directly or not, by import path.
func exportFiles(dir string, files []*ast.File) (map[string]string, error) {
	var paths []string
	for _, f := range files {
		for _, imp := range f.Imports {
			if path, err := strconv.Unquote(imp.Path.Value); err == nil && path != "unsafe" && !slices.Contains(paths, path) {
				paths = append(paths, path)
			}
		}
	}
	out := map[string]string{}
	if len(paths) == 0 {
		return out, nil
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedExportFile | packages.NeedImports | packages.NeedDeps, Dir: dir}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, err
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.ExportFile != "" {
			out[p.PkgPath] = p.ExportFile
		}
	})
	return out, nil
}

// isNoGo reports whether err only says that dir holds no buildable Go
// files, which leaves nothing for the generated file to clash with.
func isNoGo(err error) bool {
	var ng *build.NoGoError
	return errors.As(err, &ng)
}
