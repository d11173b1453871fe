package hostile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// live holds the processes started and not yet reaped, for KillAll.
var live = struct {
	sync.Mutex
	procs map[*proc]struct{}
}{procs: make(map[*proc]struct{})}

// KillAll kills every server process the harness started that is still
// running, each with its process group. Command hostile calls it on its
// way out, whatever the way.
func KillAll() {
	live.Lock()
	procs := make([]*proc, 0, len(live.procs))
	for p := range live.procs {
		procs = append(procs, p)
	}
	live.Unlock()
	for _, p := range procs {
		p.kill()
	}
}

// proc is one server process, in a process group of its own.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *lines
	exited chan struct{} // closed once the process is reaped
	start  time.Time
	end    time.Time // when exited closed
}

// startProc starts argv[0] with the rest as arguments. With fdLimit
// above zero the program runs under `ulimit -n fdLimit`, by way of sh.
func startProc(argv []string, fdLimit int) (*proc, error) {
	if fdLimit > 0 {
		argv = append([]string{"sh", "-c", "ulimit -n " + strconv.Itoa(fdLimit) + ` && exec "$0" "$@"`}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithHarness(cmd.SysProcAttr)
	p := &proc{cmd: cmd, stderr: &lines{}, exited: make(chan struct{})}
	// Pipes of our own rather than cmd's: Wait closes those, losing what
	// the process wrote just before it exited.
	var child [3]*os.File
	var errs [3]error
	var stderr *os.File
	child[0], p.stdin, errs[0] = os.Pipe()
	p.stdout, child[1], errs[1] = os.Pipe()
	stderr, child[2], errs[2] = os.Pipe()
	defer func() {
		for _, f := range child {
			if f != nil {
				f.Close()
			}
		}
	}()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	live.Lock()
	defer live.Unlock()
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		p.stdin.Close()
		p.stdout.Close()
		stderr.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	live.procs[p] = struct{}{}
	go func() {
		defer stderr.Close()
		p.stderr.collect(stderr)
	}()
	go func() {
		cmd.Wait()
		p.end = time.Now()
		live.Lock()
		delete(live.procs, p)
		live.Unlock()
		close(p.exited)
	}()
	return p, nil
}

// kill kills the process group, waits for the process to be reaped and
// closes the harness's ends of its stdin and stdout. A case defers it
// once it has read what it needs.
func (p *proc) kill() {
	select {
	case <-p.exited: // the pid may be another's by now
	default:
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
	p.stdin.Close()
	p.stdout.Close()
}

// signal sends sig to the server process alone.
func (p *proc) signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// waitExit waits up to d for the process to exit, reporting whether it
// did.
func (p *proc) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// memory reads the process's peak and current resident set sizes, in
// bytes, from /proc.
func (p *proc) memory() (peak, current int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		switch key {
		case "VmHWM":
			peak = kb << 10
		case "VmRSS":
			current = kb << 10
		}
	}
	if peak == 0 {
		return 0, 0, errors.New("no VmHWM in /proc status")
	}
	return peak, current, nil
}

// lines keeps the last lines a process wrote to stderr.
type lines struct {
	mu   sync.Mutex
	last []string
}

// maxLines bounds what lines keeps.
const maxLines = 200

func (l *lines) collect(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l.mu.Lock()
		if len(l.last) == maxLines {
			l.last = l.last[1:]
		}
		l.last = append(l.last, sc.Text())
		l.mu.Unlock()
	}
}

// lastWith returns the last line starting with prefix, or "".
func (l *lines) lastWith(prefix string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.last) - 1; i >= 0; i-- {
		if strings.HasPrefix(l.last[i], prefix) {
			return l.last[i]
		}
	}
	return ""
}

// String returns the last lines, for error messages.
func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.last)
	return strings.Join(l.last[max(0, n-3):], " | ")
}
