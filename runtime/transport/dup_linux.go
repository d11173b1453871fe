package transport

import "syscall"

// dupTo makes newfd a duplicate of oldfd. Linux on arm64 and riscv64 has no
// dup2, so dup3 it is.
func dupTo(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
