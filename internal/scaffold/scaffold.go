// Package scaffold creates a new MCP server project for mcpgen init: it
// renders the embedded templates (package templates), writes them into a
// temporary directory beside the target, completes go.mod and go.sum with
// go mod tidy, generates mcpgen_gen.go in-process, and only then moves the
// project into place. A failure at any step leaves the target as it was.
package scaffold

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"golang.org/x/mod/module"

	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/templates"
)

// ModulePath is mcpgen's module, the one a new project requires.
const ModulePath = "github.com/mcpgen/mcpgen"

// GoVersion is the go directive of a new project. It must not be older than
// the go directive of mcpgen's own go.mod, which the project requires.
const GoVersion = "1.26.0"

// PlaceholderVersion is the version a project requires when a replace
// directive supplies mcpgen from a local checkout.
const PlaceholderVersion = "v0.0.0-00010101000000-000000000000"

// Transports are the values of --transport.
var Transports = []string{"stdio", "http", "both"}

// Options describe the project to create.
type Options struct {
	// Name is the project's directory name, binary name and server name.
	Name string
	// Module is the module path; empty means Name.
	Module string
	// Transport is "stdio", "http" or "both"; empty means "both".
	Transport string
	// Version is the mcpgen version to require; empty means
	// PlaceholderVersion, which needs Replace.
	Version string
	// Replace, when set, is the absolute directory of an mcpgen checkout
	// that a replace directive points at.
	Replace string
}

// Data is what the templates are executed with.
type Data struct {
	Name, Module, GoVersion, MCPGenVersion, Replace string
	// Stdio and HTTP say which transports main.go serves.
	Stdio, HTTP bool
}

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// CheckName reports whether name can name a project: its directory, its
// binary and its server.
func CheckName(name string) error {
	const h = "a project name starts with a letter and holds letters, digits, '-' and '_' (e.g. weather-server)"
	switch {
	case name == "":
		return hint.Errorf(h, "no project name given")
	case len(name) > 64:
		return hint.Errorf(h, "project name %q is longer than 64 characters", name)
	case !nameRE.MatchString(name):
		return hint.Errorf(h, "project name %q is not a valid name", name)
	}
	return nil
}

// CheckModule reports whether path can be the module path of a project.
func CheckModule(path string) error {
	if err := module.CheckImportPath(path); err != nil {
		return hint.Errorf("a module path is slash-separated, like example.com/weather or github.com/you/weather", "module path %q is not valid: %v", path, trimModuleErr(err))
	}
	return nil
}

// trimModuleErr drops the path that module errors repeat at their start.
func trimModuleErr(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "malformed") {
		return rest
	}
	return msg
}

// data checks o and returns the template data.
func (o Options) data() (Data, error) {
	if err := CheckName(o.Name); err != nil {
		return Data{}, err
	}
	d := Data{Name: o.Name, Module: o.Module, GoVersion: GoVersion, MCPGenVersion: o.Version, Replace: o.Replace}
	if d.Module == "" {
		d.Module = o.Name
	}
	if err := CheckModule(d.Module); err != nil {
		return Data{}, err
	}
	switch o.Transport {
	case "", "both":
		d.Stdio, d.HTTP = true, true
	case "stdio":
		d.Stdio = true
	case "http":
		d.HTTP = true
	default:
		return Data{}, hint.Errorf("--transport takes "+strings.Join(Transports, ", "), "unknown transport %q", o.Transport)
	}
	if d.MCPGenVersion == "" {
		if d.Replace == "" {
			return Data{}, hint.Errorf("pass --replace DIR with the directory of an mcpgen checkout", "no mcpgen version to require: this mcpgen was built without one")
		}
		d.MCPGenVersion = PlaceholderVersion
	}
	if err := module.Check(ModulePath, d.MCPGenVersion); err != nil {
		return Data{}, fmt.Errorf("cannot require mcpgen: %w", err)
	}
	return d, nil
}

// Render executes the templates for o and returns the project's files by
// slash-separated path, mcpgen_gen.go and go.sum excepted.
func Render(o Options) (map[string][]byte, error) {
	d, err := o.data()
	if err != nil {
		return nil, err
	}
	root, err := fs.Sub(templates.Project, "project")
	if err != nil {
		return nil, err
	}
	var names []string
	err = fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".tmpl") {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	files := map[string][]byte{}
	for _, name := range names {
		src, err := fs.ReadFile(root, name)
		if err != nil {
			return nil, err
		}
		t, err := template.New(path.Base(name)).Delims("[[", "]]").Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, d); err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		files[strings.TrimSuffix(name, ".tmpl")] = buf.Bytes()
	}
	return files, nil
}
