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
	poll := pipeOrSocket(os.Stdout)
	fd, err := dupCloseOnExec(1)
	if err != nil {
		return nil, fmt.Errorf("transport: duplicate stdout: %w", err)
	}
	if err := dupTo(2, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("transport: point stdout at stderr: %w", err)
	}
	// A pipe or a socket is written through the poller, as takeStdin
	// reads one: a client that stops reading holds up a goroutine, not a
	// thread, and Close ends the write. Nothing else of this process
	// writes to that open file now that descriptor 1 leads to stderr.
	if poll {
		syscall.SetNonblock(fd, true)
	}
	return os.NewFile(uintptr(fd), "/dev/stdout"), nil
}
