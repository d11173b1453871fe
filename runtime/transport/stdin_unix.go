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
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return os.Stdin
	}
	f, err := pollable(os.Stdin)
	if err != nil {
		return os.Stdin
	}
	return &stdin{f}
}

// pollable returns a close-on-exec duplicate of f's descriptor in
// non-blocking mode, as a file read through the poller. The mode is the
// open file's, so it holds for f's descriptor as well.
func pollable(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	syscall.ForkLock.RLock() // no fork may inherit fd before it is close-on-exec
	err = rc.Control(func(s uintptr) {
		if fd, derr = syscall.Dup(int(s)); derr == nil {
			syscall.CloseOnExec(fd)
		}
	})
	syscall.ForkLock.RUnlock()
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
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
