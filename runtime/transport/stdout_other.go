//go:build !unix

package transport

import "os"

// takeStdout keeps the process's stdout for the protocol and points the
// variable os.Stdout at stderr; descriptors stay where they are.
func takeStdout() (*os.File, error) {
	out := os.Stdout
	os.Stdout = os.Stderr
	return out, nil
}
