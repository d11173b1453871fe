//go:build unix

package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pollChildEnv makes the test binary the child of TestStdioCloseEndsRead
// ("read") or TestStdioCloseEndsWrite ("write").
const pollChildEnv = "MCPGEN_TRANSPORT_POLL_CHILD"

// TestStdioCloseEndsRead: over a pipe that its client keeps open and
// silent, a Stdio server's Close ends the read under way on stdin, rather
// than leaving a thread blocked in the kernel until the client writes;
// messages before it still arrive whole.
func TestStdioCloseEndsRead(t *testing.T) {
	if os.Getenv(pollChildEnv) == "read" {
		readChild()
		return
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	if got := childSays(t, "TestStdioCloseEndsRead", "read", ping); got != "read ping; Close ended the next read" {
		t.Errorf("child said %q", got)
	}
}

// childSays runs test again in a child process, in mode: with one end of
// a pipe as its stdin ("read", after send) or its stdout ("write"), the
// other end held open here and neither written nor read until the child
// has gone. It returns what the child wrote to stderr.
func childSays(t *testing.T, test, mode, send string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), pollChildEnv+"="+mode)
	mine, theirs := w, r
	if mode == "write" {
		mine, theirs = r, w
		cmd.Stdout = w
	} else {
		cmd.Stdin = r
	}
	defer mine.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	fmt.Fprint(mine, send)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\nstderr:\n%s", err, stderr.String())
	}
	return strings.TrimSpace(stderr.String())
}

// readChild is the child side of TestStdioCloseEndsRead.
func readChild() {
	s, err := Stdio(StdioOptions{KeepStdout: true})
	if err != nil {
		childFails("Stdio: %v", err)
	}
	f, err := s.Read(context.Background())
	if err != nil || !bytes.Contains(f, []byte(`"ping"`)) {
		childFails("first Read: %q, %v", f, err)
	}
	// The reading goroutine reads one frame ahead: it is inside stdin's
	// Read now, and nothing comes.
	if err := s.Close(); err != nil {
		childFails("Close: %v", err)
	}
	select {
	case _, ok := <-s.frames:
		if ok {
			childFails("a frame after Close")
		}
	case <-time.After(10 * time.Second):
		childFails("the read under way outlived Close")
	}
	fmt.Fprintln(os.Stderr, "read ping; Close ended the next read") // Close closed stdout
	os.Exit(0)
}

// TestStdioCloseEndsWrite: when the client stops reading, a Stdio
// server's Write waits for room in the pipe, and Close ends that wait.
func TestStdioCloseEndsWrite(t *testing.T) {
	if os.Getenv(pollChildEnv) == "write" {
		writeChild()
		return
	}
	if got := childSays(t, "TestStdioCloseEndsWrite", "write", ""); got != "Close ended the write" {
		t.Errorf("child said %q", got)
	}
}

// writeChild is the child side of TestStdioCloseEndsWrite: it writes
// until the pipe is full, then closes.
func writeChild() {
	s, err := Stdio(StdioOptions{})
	if err != nil {
		childFails("Stdio: %v", err)
	}
	frame := []byte(`"` + strings.Repeat("x", 1022) + `"`)
	var written atomic.Int64
	ended := make(chan error, 1)
	go func() {
		for {
			if err := s.Write(context.Background(), frame); err != nil {
				ended <- err
				return
			}
			written.Add(int64(len(frame) + 1))
		}
	}()
	// The pipe fills up (64 KiB, unless its owner sized it otherwise) and
	// the next write waits: here, once a while has gone by without one.
	for last, still := int64(-1), 0; still < 50; {
		select {
		case err := <-ended:
			childFails("Write before Close: %v", err)
		case <-time.After(2 * time.Millisecond):
		}
		if n := written.Load(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	if err := s.Close(); err != nil {
		childFails("Close: %v", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, ErrClosed) && !errors.Is(err, os.ErrClosed) {
			childFails("Write after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		childFails("the write under way outlived Close")
	}
	fmt.Fprintln(os.Stderr, "Close ended the write")
	os.Exit(0)
}

func childFails(format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(2)
}
