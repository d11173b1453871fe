//go:build unix

package streamable

import "syscall"

// fdLimit returns the process's limit on open file descriptors, or 0
// when it cannot be read.
func fdLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
