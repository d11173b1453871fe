// Package shared locates the folder of official MCP schemas and example
// messages. The folder is not part of the repository: it sits beside the
// repository root as ../shared, or wherever the MCPGEN_SHARED environment
// variable points.
//
// Its layout is
//
//	schema/<version>/schema.json
//	examples/<version>/<Definition>/*.json
package shared

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvVar names the environment variable that overrides where the shared
// folder is. An empty value counts as unset.
const EnvVar = "MCPGEN_SHARED"

// ModulePath is the module whose root the shared folder sits beside.
const ModulePath = "github.com/mcpgen/mcpgen"

// Versions lists the MCP schema versions mcpgen supports, oldest first.
var Versions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Dir returns the shared folder: $MCPGEN_SHARED when set, otherwise
// <module root>/../shared, where the module root is the nearest directory at
// or above the working directory whose go.mod declares [ModulePath].
func Dir() (string, error) {
	if env := os.Getenv(EnvVar); env != "" {
		dir, err := filepath.Abs(env)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, env, err)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, env, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s=%s: not a directory", EnvVar, env)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("%s is not set and the working directory is unknown: %w", EnvVar, err)
	}
	return dirFrom(wd)
}

// dirFrom finds the shared folder beside the module root at or above start.
func dirFrom(start string) (string, error) {
	root, err := moduleRoot(start)
	if err != nil {
		return "", fmt.Errorf("%s is not set and %w", EnvVar, err)
	}
	dir := filepath.Join(root, "..", "shared")
	if fi, err := os.Stat(filepath.Join(dir, "schema")); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not set and %s has no schema folder: set %s to the folder holding schema/<version>/schema.json", EnvVar, dir, EnvVar)
	}
	return dir, nil
}

// moduleRoot walks up from start to the directory whose go.mod declares
// [ModulePath]. Nested modules (bench/ has its own go.mod) are passed over.
func moduleRoot(start string) (string, error) {
	for dir := start; ; {
		path, err := modulePath(filepath.Join(dir, "go.mod"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if path == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod declaring module %s was found at or above %s", ModulePath, start)
		}
		dir = parent
	}
}

// modulePath returns the path in the module directive of the go.mod file at
// name, or "" when the file declares none.
func modulePath(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		path := strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(path); err == nil {
			path = unq
		}
		return path, nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return "", nil
}

// SchemaPath returns the path of schema/<version>/schema.json in the shared
// folder, or an error when that file does not exist.
func SchemaPath(version string) (string, error) {
	if err := checkVersion(version); err != nil {
		return "", err
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "schema", version, "schema.json")
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("schema for version %s: %w", version, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("schema for version %s: %s is a directory", version, path)
	}
	return path, nil
}

// ExamplesDir returns the folder examples/<version> in the shared folder, or
// an error when the shared folder has no examples for that version.
func ExamplesDir(version string) (string, error) {
	if err := checkVersion(version); err != nil {
		return "", err
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "examples", version)
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("examples for version %s: %w", version, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("examples for version %s: %s is not a directory", version, path)
	}
	return path, nil
}

// checkVersion rejects version strings that would name a path outside the
// version's own folder. Unknown but well-formed versions are allowed, so a
// newly published schema can be read before it joins [Versions].
func checkVersion(version string) error {
	if version == "" || version == "." || version == ".." || strings.ContainsAny(version, `/\`) {
		return fmt.Errorf("bad schema version %q", version)
	}
	return nil
}
