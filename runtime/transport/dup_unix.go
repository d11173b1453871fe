//go:build unix && !linux

package transport

import "syscall"

// dupTo makes newfd a duplicate of oldfd.
func dupTo(oldfd, newfd int) error { return syscall.Dup2(oldfd, newfd) }
