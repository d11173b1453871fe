package hostile

import "syscall"

// dieWithHarness has the kernel kill a server process if the harness
// dies without killing it first.
func dieWithHarness(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
