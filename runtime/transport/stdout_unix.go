//go:build unix

package transport

import (
	"fmt"
	"os"
	"syscall"
)

// takeStdout moves the process's stdout to a new file descriptor, returned
// as a file, and makes descriptor 1 a duplicate of stderr.
func takeStdout() (*os.File, error) {
	syscall.ForkLock.RLock() // no fork may inherit fd before it is close-on-exec
	fd, err := syscall.Dup(1)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("transport: duplicate stdout: %w", err)
	}
	if err := dupTo(2, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("transport: point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/stdout"), nil
}
