package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// DefaultGracePeriod is how long Process.Close waits for the server to
// exit at each step of its shutdown when CommandOptions.GracePeriod is
// zero.
const DefaultGracePeriod = 2 * time.Second

// CommandOptions tune CommandTransport. The zero CommandOptions are ready
// to use.
type CommandOptions struct {
	// Stderr receives the server's stderr, where it writes its logs, when
	// cmd.Stderr is nil. Nil means the parent's stderr.
	Stderr io.Writer

	// GracePeriod is how long Close waits for the server to exit after
	// closing its stdin, and again after SIGTERM, before the next step.
	// Zero or less means DefaultGracePeriod.
	GracePeriod time.Duration

	// MaxMessageSize bounds an incoming message, as in
	// transport.StreamOptions.
	MaxMessageSize int
}

// Process is the transport to a server running as a subprocess, speaking
// newline-delimited JSON-RPC on its stdin and stdout.
type Process struct {
	cmd    *exec.Cmd
	stream *transport.Stream
	stdout *os.File // our end of the server's stdout
	grace  time.Duration

	exited  chan struct{} // closed once the process has exited and been reaped
	exitErr error         // what cmd.Wait returned; read after exited

	closeOnce sync.Once
	closeErr  error
}

// CommandTransport starts cmd as an MCP server and returns the transport
// over its stdin and stdout. cmd must not have Stdin or Stdout set. The
// process's stderr goes to cmd.Stderr when set, else to opts.Stderr, else
// to the parent's stderr. opts may be nil.
//
// Closing the transport shuts the server down as the MCP specification
// asks: it closes the server's stdin, waits up to the grace period for
// the server to exit, then sends SIGTERM, waits again, and finally sends
// SIGKILL; it reaps the process before it returns.
func CommandTransport(cmd *exec.Cmd, opts *CommandOptions) (*Process, error) {
	var o CommandOptions
	if opts != nil {
		o = *opts
	}
	if o.GracePeriod <= 0 {
		o.GracePeriod = DefaultGracePeriod
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("client: CommandTransport: cmd.Stdin and cmd.Stdout must be nil")
	}
	if cmd.Stderr == nil {
		cmd.Stderr = o.Stderr
		if cmd.Stderr == nil {
			cmd.Stderr = os.Stderr
		}
	}
	if _, ok := cmd.Stderr.(*os.File); !ok && cmd.WaitDelay == 0 {
		// Copying stderr would otherwise wait for every process that
		// inherited it, the server's own children included.
		cmd.WaitDelay = o.GracePeriod
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("client: CommandTransport: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("client: CommandTransport: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the child has its own copies now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("client: CommandTransport: %w", err)
	}
	p := &Process{
		cmd: cmd,
		// The Stream closes stdin only: stdout stays open until the
		// process has gone, so that a server flushing its last words is
		// not killed by SIGPIPE.
		stream: transport.NewStream(struct{ io.Reader }{outR}, inW, transport.StreamOptions{MaxMessageSize: o.MaxMessageSize}),
		stdout: outR,
		grace:  o.GracePeriod,
		exited: make(chan struct{}),
	}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Read returns the next message from the server's stdout.
func (p *Process) Read(ctx context.Context) ([]byte, error) { return p.stream.Read(ctx) }

// Write sends a message to the server's stdin.
func (p *Process) Write(ctx context.Context, frame []byte) error { return p.stream.Write(ctx, frame) }

// Close shuts the server down, as CommandTransport describes, and returns
// its exit error as Wait does. Later calls return nil.
func (p *Process) Close() error {
	err := error(nil)
	p.closeOnce.Do(func() {
		p.stream.Close()
		p.closeErr = p.stop()
		p.stdout.Close()
		err = p.closeErr
	})
	return err
}

// stop waits for the process to exit, hurrying it along step by step.
func (p *Process) stop() error {
	if p.waitExit(p.grace) {
		return p.exitErr
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil && p.waitExit(p.grace) {
		return p.exitErr
	}
	p.cmd.Process.Kill()
	<-p.exited
	return p.exitErr
}

// waitExit reports whether the process exits within d.
func (p *Process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// Wait waits for the server process to exit, on its own or through Close,
// and returns its exit error: nil for a zero exit status, an
// *exec.ExitError otherwise (whose state tells which signal ended it).
func (p *Process) Wait() error {
	<-p.exited
	return p.exitErr
}

// Exited returns a channel that is closed once the server process has
// exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Pid returns the process id of the server.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// ServerKey names the server by its command line and working directory,
// for the Client to remember the era it speaks (ServerKeyer).
func (p *Process) ServerKey() string {
	return "cmd:" + p.cmd.Dir + "\x00" + strings.Join(p.cmd.Args, "\x00")
}
