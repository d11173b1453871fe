package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteHandlers makes dir/mcpgen_gen.go hold src, writing a temporary file
// and renaming it so that a failure never leaves half a file behind. A nil
// src removes a previous mcpgen_gen.go instead; removed reports whether
// there was one. A file of that name that mcpgen did not write is left
// alone and reported.
func WriteHandlers(dir string, src []byte) (removed bool, err error) {
	path := filepath.Join(dir, HandlersFile)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = nil
	case err != nil:
		return false, err
	case !bytes.HasPrefix(old, []byte("// "+Header+"\n")):
		return false, fmt.Errorf("%s exists and was not written by mcpgen: rename it", path)
	}
	if src == nil {
		if old == nil {
			return false, nil
		}
		return true, os.Remove(path)
	}
	if bytes.Equal(old, src) {
		return false, nil
	}
	tmp, err := os.CreateTemp(dir, ".mcpgen_gen-*.go.tmp")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(src); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return false, err
	}
	return false, os.Rename(tmp.Name(), path)
}
