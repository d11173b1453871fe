package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

func TestPipe(t *testing.T) {
	a, b := NewPipe()
	ctx := context.Background()
	frame := []byte(`{"x":1}`)
	if err := a.Write(ctx, frame); err != nil {
		t.Fatal(err)
	}
	got, err := b.Read(ctx)
	if err != nil || &got[0] != &frame[0] {
		t.Errorf("Read = %s, %v; want the written slice itself", got, err)
	}
	if err := b.Write(ctx, []byte("back")); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Read(ctx); err != nil || string(got) != "back" {
		t.Errorf("Read = %s, %v", got, err)
	}

	// ctx ends a waiting Read, and a Write into a full pipe.
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := a.Read(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read on an empty pipe = %v, want DeadlineExceeded", err)
	}
	for range pipeBuffer {
		if err := a.Write(ctx, []byte("fill")); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Write(short, []byte("one too many")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write on a full pipe = %v, want DeadlineExceeded", err)
	}

	// Closing one end closes both; buffered frames are still read.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a.Close()
	for range pipeBuffer {
		if got, err := b.Read(ctx); err != nil || string(got) != "fill" {
			t.Fatalf("Read after Close = %s, %v; want a buffered frame", got, err)
		}
	}
	if _, err := b.Read(ctx); err != io.EOF {
		t.Errorf("Read after Close and drain = %v, want io.EOF", err)
	}
	if err := b.Write(ctx, []byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write after Close = %v", err)
	}
}

func TestStreamRead(t *testing.T) {
	big := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name string
		in   string
		max  int
		want []string // frames, or "error: ..." for a non-fatal error
	}{
		{"lines", "{\"a\":1}\n[2]\n", 0, []string{`{"a":1}`, `[2]`}},
		{"crlf", "{\"a\":1}\r\n[2]\r\n", 0, []string{`{"a":1}`, `[2]`}},
		{"empty lines", "\n\r\n  \n{}\n\n\n[]\n\n", 0, []string{`{}`, `[]`}},
		{"no final newline", "{}\n[1]", 0, []string{`{}`, `[1]`}},
		{"nothing", "", 0, nil},
		{"blank only", "\n \n", 0, nil},
		{"1 MiB", big + "\n{}\n", 0, []string{big, `{}`}},
		{"at the limit", "12345\n1234\n", 5, []string{"12345", "1234"}},
		{"at the limit with crlf", "12345\r\n", 5, []string{"12345"}},
		{"over the limit", "123456\n{}\n", 5, []string{"error: MaxMessageSize of 5 bytes", "{}"}},
		{"far over the limit", strings.Repeat("y", 300<<10) + "\n{}\n" + strings.Repeat("z", 200<<10), 100 << 10,
			[]string{"error: MaxMessageSize of 102400 bytes", "{}", "error: MaxMessageSize of 102400 bytes"}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			if oneByte && len(tt.in) > 1<<16 {
				continue // too slow a byte at a time under -race; the bufio paths are the same
			}
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			s := NewStream(r, io.Discard, StreamOptions{MaxMessageSize: tt.max})
			var got []string
			for {
				f, err := s.Read(context.Background())
				if err == io.EOF {
					break
				}
				switch {
				case errors.Is(err, jsonrpc.ErrMessageTooLarge):
					got = append(got, "error: "+err.Error())
				case err != nil:
					t.Fatalf("%s: Read: %v", tt.name, err)
				default:
					got = append(got, string(f))
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("%s (one byte %v): read %d frames, want %d: %.80q", tt.name, oneByte, len(got), len(tt.want), got)
				continue
			}
			for i := range got {
				if w := tt.want[i]; got[i] != w && !(strings.HasPrefix(w, "error: ") && strings.Contains(got[i], w[len("error: "):])) {
					t.Errorf("%s (one byte %v): frame %d = %.80q, want %.80q", tt.name, oneByte, i, got[i], w)
				}
			}
			s.Close()
		}
	}
}

func TestStreamReadErrors(t *testing.T) {
	boom := errors.New("boom")
	s := NewStream(io.MultiReader(strings.NewReader("{}\n"), iotest.ErrReader(boom)), io.Discard, StreamOptions{})
	ctx := context.Background()
	if f, err := s.Read(ctx); err != nil || string(f) != "{}" {
		t.Fatalf("Read = %s, %v", f, err)
	}
	for range 2 { // the error sticks
		if _, err := s.Read(ctx); !errors.Is(err, boom) {
			t.Errorf("Read = %v, want boom", err)
		}
	}

	// ctx ends a Read that waits; the frame read meanwhile is not lost.
	r, w := io.Pipe()
	s = NewStream(r, io.Discard, StreamOptions{})
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := s.Read(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read = %v, want DeadlineExceeded", err)
	}
	go w.Write([]byte("[1]\n"))
	if f, err := s.Read(ctx); err != nil || string(f) != "[1]" {
		t.Errorf("Read after a timeout = %s, %v", f, err)
	}
	// Close ends a waiting Read, closes the reader, and stops the goroutine.
	go func() {
		time.Sleep(10 * time.Millisecond)
		s.Close()
	}()
	if _, err := s.Read(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Read during Close = %v, want ErrClosed", err)
	}
	if _, err := w.Write([]byte("x\n")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the reader was not closed: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestStreamWrite(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, StreamOptions{})
	ctx := context.Background()
	frame := []byte(`{"a":"b\nc"}`)
	if err := s.Write(ctx, frame); err != nil {
		t.Fatal(err)
	}
	frame[2] = 'X' // Write copied it
	if err := s.Write(ctx, []byte("[1]")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "{\"a\":\"b\\nc\"}\n[1]\n" {
		t.Errorf("wrote %q", got)
	}
	if err := s.Write(ctx, []byte("{\n}")); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("Write with a raw newline = %v", err)
	}
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Write(dead, []byte("{}")); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a dead ctx = %v", err)
	}
	s.Close()
	if err := s.Write(ctx, []byte("{}")); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v", err)
	}
	if got := out.String(); got != "{\"a\":\"b\\nc\"}\n[1]\n" {
		t.Errorf("wrote %q after the failures", got)
	}

	fail := NewStream(strings.NewReader(""), errWriter{}, StreamOptions{})
	if err := fail.Write(ctx, []byte("{}")); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("Write to a failing writer = %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("no space") }

// closeCounter counts Close calls.
type closeCounter struct {
	io.Reader
	io.Writer
	n *int
}

func (c *closeCounter) Close() error { *c.n++; return nil }

func TestStreamClosesOnce(t *testing.T) {
	n := 0
	rw := &closeCounter{strings.NewReader(""), io.Discard, &n}
	NewStream(rw, rw, StreamOptions{}).Close()
	if n != 1 {
		t.Errorf("a reader-writer was closed %d times, want 1", n)
	}
	n = 0
	NewStream(&closeCounter{strings.NewReader(""), nil, &n}, &closeCounter{nil, io.Discard, &n}, StreamOptions{}).Close()
	if n != 2 {
		t.Errorf("a reader and a writer were closed %d times, want 2", n)
	}
}

const stdioChildEnv = "MCPGEN_TRANSPORT_STDIO_CHILD"

// TestStdioProtectsStdout runs a child process that takes Stdio and then
// prints to stdout as careless handler code would: the parent must see
// only protocol frames on the child's stdout, and the rest on its stderr.
func TestStdioProtectsStdout(t *testing.T) {
	if mode := os.Getenv(stdioChildEnv); mode != "" {
		stdioChild(mode)
		return
	}
	for _, mode := range []string{"protect", "keep"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStdioProtectsStdout$")
		cmd.Env = append(os.Environ(), stdioChildEnv+"="+mode)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: child: %v\nstderr:\n%s", mode, err, stderr.String())
		}
		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		if mode == "keep" {
			// Without protection the garbage lands among the frames.
			if !strings.Contains(stdout.String(), "garbage from fmt.Println") {
				t.Errorf("keep: stdout %q lacks the garbage", stdout.String())
			}
			continue
		}
		want := []string{`{"jsonrpc":"2.0","id":1,"result":"echo ping"}`, `{"jsonrpc":"2.0","method":"bye"}`}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("child stdout:\n%s\nwant only the frames:\n%s", stdout.String(), strings.Join(want, "\n"))
		}
		for _, g := range []string{"garbage from fmt.Println", "garbage from os.Stdout", "garbage from a subprocess"} {
			if !strings.Contains(stderr.String(), g) {
				t.Errorf("child stderr lacks %q:\n%s", g, stderr.String())
			}
		}
		// A second Stdio is refused.
		if !strings.Contains(stderr.String(), "second Stdio: transport: Stdio called more than once") {
			t.Errorf("child stderr lacks the second Stdio's error:\n%s", stderr.String())
		}
	}
}

// stdioChild is the child side of TestStdioProtectsStdout.
func stdioChild(mode string) {
	s, err := Stdio(StdioOptions{KeepStdout: mode == "keep"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Stdio:", err)
		os.Exit(2)
	}
	if _, err := Stdio(StdioOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "second Stdio:", err)
	}
	ctx := context.Background()
	fmt.Println("garbage from fmt.Println")
	f, err := s.Read(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Read:", err)
		os.Exit(2)
	}
	m, err := jsonrpc.DecodeMessage(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "decode:", err)
		os.Exit(2)
	}
	os.Stdout.WriteString("garbage from os.Stdout\n")
	if err := s.Write(ctx, jsonrpc.AppendResult(nil, m.ID, []byte(`"echo `+m.Method+`"`))); err != nil {
		fmt.Fprintln(os.Stderr, "Write:", err)
		os.Exit(2)
	}
	sh := exec.Command("sh", "-c", "echo garbage from a subprocess")
	sh.Stdout = os.Stdout
	sh.Run()
	w := bufio.NewWriter(os.Stdout)
	w.WriteString("more garbage\n")
	w.Flush()
	s.Write(ctx, jsonrpc.AppendNotification(nil, "bye", nil))
	s.Close()
	os.Exit(0) // leave the test framework's own output out of it
}

// A message skipped for its size comes with its start, for the Conn to
// find the call it answers: short of the bufio buffer or far beyond it.
func TestStreamTooLargeKeepsHead(t *testing.T) {
	for _, c := range []struct{ max, size int }{{100, 300}, {100 << 10, 300 << 10}} {
		line := `{"jsonrpc":"2.0","id":7,"result":"` + strings.Repeat("x", c.size) + `"}`
		s := NewStream(strings.NewReader(line+"\n{}\n"), io.Discard, StreamOptions{MaxMessageSize: c.max})
		_, err := s.Read(context.Background())
		var tl *jsonrpc.TooLargeError
		if !errors.As(err, &tl) || !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
			t.Fatalf("max %d: Read = %v, want a TooLargeError", c.max, err)
		}
		if len(tl.Head) != min(len(line), jsonrpc.TooLargeHead) || !strings.HasPrefix(line, string(tl.Head)) {
			t.Errorf("max %d: head %.60q (%d bytes), want the line's first %d", c.max, tl.Head, len(tl.Head), jsonrpc.TooLargeHead)
		}
		if f, err := s.Read(context.Background()); err != nil || string(f) != "{}" {
			t.Errorf("max %d: then %q, %v", c.max, f, err)
		}
		s.Close()
	}
}
