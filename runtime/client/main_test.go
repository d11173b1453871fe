package client_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// childEnv names the environment variable that makes the test binary act
// as one of the child processes below instead of running the tests.
const childEnv = "MCPGEN_CLIENT_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	// Built with -race, each child would sleep a second on exit (the
	// race detector's atexit_sleep_ms), which the tests of Close wait
	// out. The children inherit this.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

// child runs the test binary as a server process for CommandTransport:
//
//	echo      writes each line of stdin back to stdout; exits 0 at EOF
//	exit3     like echo, but exits with status 3
//	stubborn  ignores both the end of stdin and SIGTERM
//	lingering ignores the end of stdin only
//	mcp       the fake MCP server over stdio
func child(mode string) int {
	fmt.Fprintln(os.Stderr, "child", mode, "started")
	switch mode {
	case "echo", "exit3":
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			os.Stdout.Write(append(in.Bytes(), '\n'))
		}
		if mode == "exit3" {
			return 3
		}
		return 0
	case "stubborn", "lingering":
		if mode == "stubborn" {
			signal.Ignore(syscall.SIGTERM)
		}
		fmt.Println(`{"ready":true}`)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
		}
		for {
			time.Sleep(time.Hour)
		}
	case "mcp":
		st, err := transport.Stdio(transport.StdioOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f := newFake(st, "")
		if err := f.conn.Run(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f.conn.Wait()
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}
