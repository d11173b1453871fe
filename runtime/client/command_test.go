//go:build unix

package client_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/internal/testutil"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// childCmd returns a command that runs the test binary as the child mode.
func childCmd(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// start starts a child through CommandTransport.
func start(t *testing.T, mode string, opts *client.CommandOptions) *client.Process {
	t.Helper()
	p, err := client.CommandTransport(childCmd(mode), opts)
	if err != nil {
		t.Fatalf("CommandTransport: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// read reads one frame, failing the test if none comes in time.
func read(t *testing.T, p *client.Process) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	frame, err := p.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return string(frame)
}

func TestCommandTransportCleanExit(t *testing.T) {
	before := testutil.Goroutines()
	var stderr bytes.Buffer
	p := start(t, "echo", &client.CommandOptions{Stderr: &stderr, GracePeriod: 10 * time.Second})
	if err := p.Write(context.Background(), []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if got := read(t, p); got != `{"jsonrpc":"2.0","method":"x"}` {
		t.Errorf("echo = %s", got)
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v, want nil for a clean exit", err)
	}
	if d := time.Since(start); d >= 10*time.Second {
		t.Errorf("Close took %v: the child was not let go on closing stdin", d)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v, want nil", err)
	}
	if !strings.Contains(stderr.String(), "child echo started") {
		t.Errorf("stderr = %q, want the child's log line", stderr.String())
	}
	if _, err := p.Read(context.Background()); err == nil {
		t.Error("Read after Close succeeded")
	}
	testutil.WaitGoroutines(t, before)
}

func TestCommandTransportExitStatus(t *testing.T) {
	p := start(t, "exit3", &client.CommandOptions{Stderr: &bytes.Buffer{}})
	err := p.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Close = %v, want exit status 3", err)
	}
	if err := p.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("Wait = %v, want exit status 3", err)
	}
}

func TestCommandTransportShutdownLadder(t *testing.T) {
	const grace = 200 * time.Millisecond
	tests := []struct {
		mode   string
		signal syscall.Signal
		min    time.Duration // the waits the ladder must have gone through
	}{
		{"lingering", syscall.SIGTERM, grace},
		{"stubborn", syscall.SIGKILL, 2 * grace},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			before := testutil.Goroutines()
			p := start(t, tt.mode, &client.CommandOptions{Stderr: &bytes.Buffer{}, GracePeriod: grace})
			read(t, p) // the child is ready: its signal handling is set up
			start := time.Now()
			err := p.Close()
			d := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("Close = %v, want an *exec.ExitError", err)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tt.signal {
				t.Errorf("the child ended with %v, want %v", err, tt.signal)
			}
			if d < tt.min || d > tt.min+5*time.Second {
				t.Errorf("Close took %v, want a little over %v", d, tt.min)
			}
			select {
			case <-p.Exited():
			default:
				t.Error("Close returned before the child was reaped")
			}
			if !errors.Is(p.Wait(), err) {
				t.Errorf("Wait = %v, want Close's %v", p.Wait(), err)
			}
			testutil.WaitGoroutines(t, before)
		})
	}
}

func TestCommandTransportRefusesPresetStdio(t *testing.T) {
	cmd := childCmd("echo")
	cmd.Stdout = &bytes.Buffer{}
	if _, err := client.CommandTransport(cmd, nil); err == nil {
		t.Error("CommandTransport accepted a cmd with Stdout set")
	}
}

func TestCommandTransportSession(t *testing.T) {
	before := testutil.Goroutines()
	p, err := client.CommandTransport(childCmd("mcp"), &client.CommandOptions{Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Fatalf("CommandTransport: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	sess, err := c.Connect(ctx, p)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var names []string
	for tool, err := range sess.AllTools(ctx) {
		if err != nil {
			t.Fatalf("AllTools: %v", err)
		}
		names = append(names, tool.Name)
	}
	if want := slices.Concat(toolPages...); !slices.Equal(names, want) {
		t.Errorf("AllTools = %v, want %v", names, want)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("Close = %v, want nil: the server exits cleanly when its stdin closes", err)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("server exit: %v", err)
	}
	testutil.WaitGoroutines(t, before)
}
