// Package cli is the command line the hostile-client servers share, so
// that the harness starts each of them the same way: exactly one of
// -stdio, -http ADDR (Streamable HTTP at /mcp) and -sse ADDR (the
// 2024-11-05 HTTP+SSE transport at /sse, behind bearer tokens).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// The paths the HTTP transports are served at.
const (
	HTTPPath = "/mcp"
	SSEPath  = "/sse"
)

// Users maps the bearer tokens the -sse mode accepts to the user each
// identifies. Anything else is refused with 401.
var Users = map[string]string{"token-alice": "alice", "token-bob": "bob"}

// Mode is what the command line asked for.
type Mode struct {
	Stdio bool
	HTTP  string // the address of -http, or ""
	SSE   string // the address of -sse, or ""
}

// Parse reads the command line of the program called name and exits
// with a usage message when it does not ask for exactly one transport.
func Parse(name string) Mode {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	var m Mode
	fs.BoolVar(&m.Stdio, "stdio", false, "serve one client on stdin and stdout")
	fs.StringVar(&m.HTTP, "http", "", "serve Streamable HTTP at http://`ADDR`"+HTTPPath)
	fs.StringVar(&m.SSE, "sse", "", "serve HTTP+SSE at http://`ADDR`"+SSEPath+", for the bearer tokens of cli.Users")
	fs.Parse(os.Args[1:])
	n := 0
	for _, set := range []bool{m.Stdio, m.HTTP != "", m.SSE != ""} {
		if set {
			n++
		}
	}
	if n != 1 || fs.NArg() != 0 {
		Exit(name, errors.New("give exactly one of -stdio, -http ADDR and -sse ADDR"))
	}
	return m
}

// Context returns a context that ends on SIGINT or SIGTERM, the way a
// server program is told to shut down.
func Context() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Exit reports err on stderr and exits with status 1; a nil err exits 0.
func Exit(name string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}
