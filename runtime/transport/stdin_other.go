//go:build !unix

package transport

import (
	"io"
	"os"
)

// takeStdin returns the process's stdin for Stdio's Stream, as it is.
func takeStdin() io.ReadCloser { return os.Stdin }
