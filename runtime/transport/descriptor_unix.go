//go:build unix

package transport

import (
	"os"
	"syscall"
)

// dupCloseOnExec duplicates fd as a descriptor that no child process
// inherits.
func dupCloseOnExec(fd int) (int, error) {
	syscall.ForkLock.RLock() // no fork may inherit the copy before it is close-on-exec
	defer syscall.ForkLock.RUnlock()
	dup, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(dup)
	}
	return dup, err
}

// pipeOrSocket reports whether f is a pipe or a socket, which Go's poller
// can serve once in non-blocking mode.
func pipeOrSocket(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}
