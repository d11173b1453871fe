package echo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Build compiles each server's program into dir, named after the server,
// and returns the binaries' paths by server name. It must run inside the
// bench module, which is where go build finds the servers' packages.
func Build(ctx context.Context, dir string, servers []Server) (map[string]string, error) {
	bins := make(map[string]string, len(servers))
	for _, s := range servers {
		if _, ok := bins[s.Name]; ok {
			continue
		}
		bin := filepath.Join(dir, s.Name)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, s.Pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %w\n%s", s.Pkg, err, out)
		}
		bins[s.Name] = bin
	}
	return bins, nil
}

// proc is a running server program: what /proc says of it, and what it
// wrote to stderr.
type proc struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
}

// Process is a server program running with -stdio, driven by its Client.
type Process struct {
	*Client
	proc
	stdin io.Closer
}

// Start runs bin -stdio, with a client of era. A legacy client is not yet
// initialized.
func Start(bin string, era Era) (*Process, error) {
	cmd := exec.Command(bin, "-stdio")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	return &Process{Client: NewEraClient(stdout, stdin, era), proc: proc{cmd, stderr}, stdin: stdin}, nil
}

// Pid returns the server's process id.
func (p *proc) Pid() int { return p.cmd.Process.Pid }

// Stderr returns the tail of what the server wrote to stderr.
func (p *proc) Stderr() string { return p.stderr.String() }

// clockTick is the unit of utime and stime in /proc/<pid>/stat, USER_HZ,
// which Linux fixes at 100 for user space on every architecture.
const clockTick = 10 * time.Millisecond

// CPU returns the user plus system CPU time the server has used so far.
func (p *proc) CPU() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid()))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is parenthesised and may hold spaces, so
	// fields are counted from the last ')'; utime and stime are fields 14
	// and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", p.Pid())
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", p.Pid())
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", p.Pid(), err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// PeakRSS returns the server's peak resident set size in bytes (VmHWM).
func (p *proc) PeakRSS() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/status: VmHWM: %w", p.Pid(), err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", p.Pid())
}

// Close closes the server's stdin and waits for it to exit, killing it if
// it has not after five seconds. It reports a non-zero exit.
func (p *Process) Close() error {
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w; stderr: %s", p.cmd.Path, err, p.Stderr())
		}
		return nil
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s: did not exit after stdin closed; killed", p.cmd.Path)
	}
}

// HTTPProcess is a server program running with -http on a loopback port.
type HTTPProcess struct {
	proc
	// URL is the server's MCP endpoint.
	URL    string
	exited chan struct{} // closed once the program has exited
	err    error         // how it exited, once exited is closed
}

// StartHTTP runs bin -http 127.0.0.1:PORT, followed by args, on a free
// port and waits until it accepts connections.
func StartHTTP(bin string, args ...string) (*HTTPProcess, error) {
	// The port is free when the listener closes; the server takes it next,
	// unless another program is quicker, which the readiness check reports.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(bin, append([]string{"-http", addr}, args...)...)
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &HTTPProcess{proc: proc{cmd, stderr}, URL: "http://" + addr + "/mcp", exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s -http %s exited: %v; output: %s", bin, addr, p.err, p.Stderr())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			<-p.exited
			return nil, fmt.Errorf("%s -http %s: not listening after 10s; output: %s", bin, addr, p.Stderr())
		}
	}
}

// Close stops the server with SIGTERM and waits for it to exit, killing it
// if it has not after five seconds. It reports a non-zero exit.
func (p *HTTPProcess) Close() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			return fmt.Errorf("%s: %w; output: %s", p.cmd.Path, p.err, p.Stderr())
		}
		return nil
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s: did not exit after SIGTERM; killed", p.cmd.Path)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
