package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/internal/hint"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/parser/gosrc"
)

// Create makes the project o in dir. dir must not exist or be empty unless
// force is set, in which case the project's files replace those of the same
// name and every other file stays. logf, when not nil, hears each step.
//
// The project is built in a temporary directory beside dir: its files are
// written, `go mod tidy` completes go.mod and go.sum, and mcpgen_gen.go is
// generated; only then does it move into dir.
func Create(ctx context.Context, dir string, o Options, force bool, logf func(format string, args ...any)) error {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	files, err := Render(o)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	existing, err := os.ReadDir(abs)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		if fi, serr := os.Stat(abs); serr == nil && !fi.IsDir() {
			return hint.Errorf("choose another name, or remove the file", "%s exists and is not a directory", dir)
		}
		return err
	case exists && len(existing) > 0 && !force:
		return hint.Errorf("choose an empty or new directory, or pass --force to write the project's files over it", "%s is not empty", dir)
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".mcpgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := writeFiles(tmp, files); err != nil {
		return err
	}
	logf("go mod tidy")
	if err := tidy(ctx, tmp); err != nil {
		return err
	}
	logf("generating %s", gosrc.GeneratedFile)
	if err := generate(tmp); err != nil {
		return err
	}
	if !exists || len(existing) == 0 {
		if exists {
			if err := os.Remove(abs); err != nil {
				return err
			}
		}
		return os.Rename(tmp, abs)
	}
	return moveInto(tmp, abs)
}

// writeFiles writes files under dir in a stable order.
func writeFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tidy runs go mod tidy in dir, which resolves the project's dependencies
// through mcpgen's and records their checksums in go.sum.
func tidy(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i] + " ..."
		}
		if msg == "" {
			msg = err.Error()
		}
		return hint.Errorf("go mod tidy needs the Go toolchain and the modules (network, GOPROXY, or the module cache); offline, pass --replace DIR with an mcpgen checkout",
			"go mod tidy in the new project failed: %s", msg)
	}
	return nil
}

// generate writes mcpgen_gen.go for the project's package, as
// `go generate` would.
func generate(dir string) error {
	src, _, err := pipeline.Handlers(dir)
	if err != nil {
		return fmt.Errorf("generate the project's %s: %w", gosrc.GeneratedFile, err)
	}
	_, err = gen.WriteHandlers(dir, src)
	return err
}

// moveInto moves every file under from to the same path under to,
// replacing files that are there.
func moveInto(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dest := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dest, 0o755)
		}
		return os.Rename(path, dest)
	})
}
