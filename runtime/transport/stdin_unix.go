//go:build unix

package transport

import (
	"io"
	"os"
	"syscall"
)

// takeStdin returns the process's stdin for Stdio's Stream. A pipe or a
// socket, as a client that starts its server leaves there, is read on a
// duplicate descriptor in non-blocking mode, which Go's network poller
// serves: a read waits without holding a thread in the kernel, its
// goroutine runs again as soon as a message arrives, and Close ends a
// read under way at once. A terminal or a file is read as it is, since
// the mode belongs to the open file and a terminal's is shared with the
// shell that started the process.
func takeStdin() io.ReadCloser {
	if !pipeOrSocket(os.Stdin) {
		return os.Stdin
	}
	fd, err := dupCloseOnExec(0)
	if err != nil {
		return os.Stdin
	}
	// The mode is the open file's, so it holds for descriptor 0 as well.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return os.Stdin
	}
	return &stdin{os.NewFile(uintptr(fd), "/dev/stdin")}
}

// stdin is the poller's duplicate of stdin. Closing it closes stdin too,
// put back in blocking mode first for whatever else reads that pipe.
type stdin struct{ *os.File }

func (s *stdin) Close() error {
	err := s.File.Close() // wakes a read under way
	if rc, rerr := os.Stdin.SyscallConn(); rerr == nil {
		rc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
	}
	if cerr := os.Stdin.Close(); err == nil {
		err = cerr
	}
	return err
}
