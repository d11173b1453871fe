package transport

import (
	"errors"
	"os"
	"sync/atomic"
)

// StdioOptions tune the Stream that Stdio returns. The zero StdioOptions
// are ready to use.
type StdioOptions struct {
	// MaxMessageSize is as in StreamOptions.
	MaxMessageSize int

	// KeepStdout turns off the protection of protocol output: file
	// descriptor 1 stays the process's stdout, shared by the protocol and
	// anything else that writes there.
	KeepStdout bool
}

// stdioTaken is set by the first call to Stdio.
var stdioTaken atomic.Bool

// Stdio returns a Stream over the process's stdin and stdout, for a server
// that its client started as a subprocess.
//
// On that stdout, anything but protocol messages breaks the client. So,
// unless opts.KeepStdout, Stdio keeps the real stdout for the Stream alone
// (on a duplicated file descriptor) and points file descriptor 1 at
// stderr: afterwards fmt.Println, os.Stdout, log output configured for
// stdout, and child processes that inherit fd 1, in handler code or
// anywhere else, all write to stderr, where clients expect logs. On Unix
// the variable os.Stdout is left as it is, since its descriptor now leads
// to stderr; elsewhere, where descriptors cannot be moved, os.Stdout is
// set to os.Stderr, which covers Go code only.
//
// When stdin is a pipe or a socket, as it is for a server its client
// started, the Stream reads it through Go's network poller rather than
// with a thread blocked in the kernel, and Close ends a read under way;
// os.Stdin itself then reads in non-blocking mode and should not be read.
//
// A process has one stdin and stdout, so Stdio may be called only once;
// later calls fail. Closing the Stream closes stdin and the protocol's
// stdout.
func Stdio(opts StdioOptions) (*Stream, error) {
	if stdioTaken.Swap(true) {
		return nil, errors.New("transport: Stdio called more than once")
	}
	out := os.Stdout
	if !opts.KeepStdout {
		var err error
		if out, err = takeStdout(); err != nil {
			return nil, err
		}
	}
	return NewStream(takeStdin(), out, StreamOptions{MaxMessageSize: opts.MaxMessageSize}), nil
}
