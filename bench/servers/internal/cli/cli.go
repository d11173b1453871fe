// Package cli is the command line shared by the echo benchmark servers: each
// server is a program taking exactly one of -stdio or -http ADDR, and this
// package turns those flags into a call of the server's own Serve or HTTP
// handler. -stateless, with -http, serves the server's Stateless handler
// instead, for a library that serves 2026-07-28 over HTTP only when told
// to keep no sessions.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Server is what a benchmark server program hands to [Main].
type Server struct {
	// Name is the program name used in messages.
	Name string
	// Serve speaks newline-delimited JSON-RPC over rwc until the peer closes
	// it or ctx is done.
	Serve func(ctx context.Context, rwc io.ReadWriteCloser) error
	// HTTP returns the Streamable HTTP handler mounted at /mcp. Nil means
	// the server has no HTTP mode yet.
	HTTP func() (http.Handler, error)
	// Stateless returns the handler -stateless mounts at /mcp instead of
	// HTTP's. Nil means the program has no -stateless: its HTTP handler
	// serves both eras.
	Stateless func() (http.Handler, error)
}

// Main parses the command line, runs s, and exits.
func Main(s Server) {
	fs := flag.NewFlagSet(s.Name, flag.ExitOnError)
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout")
	addr := fs.String("http", "", "serve MCP over Streamable HTTP at http://`ADDR`/mcp (loopback only)")
	stateless := fs.Bool("stateless", false, "with -http, serve the library's stateless handler, which keeps no sessions")
	fs.Parse(os.Args[1:])

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	switch {
	case fs.NArg() != 0:
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	case *stdio && *addr != "":
		err = errors.New("give only one of -stdio and -http")
	case *stateless && *addr == "":
		err = errors.New("-stateless goes with -http")
	case *stateless && s.Stateless == nil:
		err = errors.New("-stateless: this server has no stateless handler; its -http handler serves both eras")
	case *stdio:
		err = s.Serve(ctx, Stdio())
	case *stateless:
		err = serveHTTP(ctx, s.Stateless, *addr)
	case *addr != "":
		err = serveHTTP(ctx, s.HTTP, *addr)
	default:
		err = errors.New("give one of -stdio or -http ADDR")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", s.Name, err)
		os.Exit(1)
	}
}

// Stdio returns the process's stdin and stdout as one stream. Closing it
// closes both; later calls of Close do nothing, since some libraries close
// their reader and writer separately.
func Stdio() io.ReadWriteCloser {
	return &stdio{close: sync.OnceValue(func() error {
		return errors.Join(os.Stdin.Close(), os.Stdout.Close())
	})}
}

type stdio struct{ close func() error }

func (*stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (*stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (s *stdio) Close() error              { return s.close() }

// CheckLoopback reports an error unless addr names a loopback host, so a
// benchmark server is never reachable from another machine.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("http address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("http address %q: host must be loopback (127.0.0.1, ::1 or localhost)", addr)
}

// serveHTTP serves the handler newHandler returns at http://addr/mcp
// until ctx is done.
func serveHTTP(ctx context.Context, newHandler func() (http.Handler, error), addr string) error {
	if newHandler == nil {
		return errors.New("-http is not implemented for this server yet; use -stdio")
	}
	if err := CheckLoopback(addr); err != nil {
		return err
	}
	h, err := newHandler()
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}
