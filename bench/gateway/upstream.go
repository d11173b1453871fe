package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/bench/servers/mcpgen/echo"
	"github.com/mcpgen/mcpgen/gateway"
	"github.com/mcpgen/mcpgen/gateway/heapfloor"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// upstreamEnv, when set in the environment, makes this program (or its
// test binary) the upstream server instead: "stdio" serves over stdin and
// stdout, "http" serves Streamable HTTP on a loopback port it prints as
// the first line of stdout. The benchmark starts itself this way, so no
// second binary has to be built.
const upstreamEnv = "MCPGEN_BENCH_GATEWAY_UPSTREAM"

// workTime is how long the work tool works before it answers: a stand-in
// for a tool that does something, against which the gateway's cost
// should vanish.
const workTime = 2 * time.Millisecond

// The upstream's two tools.
const (
	toolEcho = "echo"
	toolWork = "work"
)

// newUpstream returns the upstream server: the echo benchmark's echo
// tool, and work, which sleeps workTime and answers "done".
func newUpstream() (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "bench-gateway-upstream", Version: "1.0.0"}, nil)
	if err := echo.AddTool(s); err != nil {
		return nil, err
	}
	err := s.AddTool(mcp.Tool{Name: toolWork, Description: "Works for 2 ms, then says done."}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		t := time.NewTimer(workTime)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	return s, err
}

// upstreamHandler is the upstream's Streamable HTTP handler, with the
// options the gateway serves its own clients with, so that a client sees
// the same kind of endpoint either way.
func upstreamHandler() (http.Handler, error) {
	s, err := newUpstream()
	if err != nil {
		return nil, err
	}
	return streamable.NewHandler(s, nil), nil
}

// serveUpstream is the body of the upstream process, until stdin or its
// listener closes or it is signalled.
func serveUpstream(mode string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch mode {
	case "stdio":
		s, err := newUpstream()
		if err != nil {
			return err
		}
		return s.ServeStdio(ctx)
	case "http":
		h, err := upstreamHandler()
		if err != nil {
			return err
		}
		ln, err := streamable.Listen("127.0.0.1:0")
		if err != nil {
			return err
		}
		fmt.Println(ln.Addr().String())
		// The parent holds our stdin open for as long as it wants us.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
		err = streamable.Serve(ctx, ln, h, nil)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	case "gateway":
		return serveGatewayStdio(ctx)
	case "pipe":
		return servePipe()
	}
	return fmt.Errorf("%s=%q: want stdio, http, gateway or pipe", upstreamEnv, mode)
}

// gatewayConfigEnv holds the configuration of the gateway that this
// program serves over stdio when upstreamEnv is "gateway".
const gatewayConfigEnv = "MCPGEN_BENCH_GATEWAY_CONFIG"

// serveGatewayStdio is what mcpgen-gateway serve --stdio does: the
// gateway of the configuration in gatewayConfigEnv serves its default
// virtual server to the client on stdin and stdout, until it closes them.
func serveGatewayStdio(ctx context.Context) error {
	undo, _ := heapfloor.Keep(os.Getenv)
	defer undo()
	cfg, err := gateway.ParseConfig("bench-gateway.yaml", []byte(os.Getenv(gatewayConfigEnv)))
	if err != nil {
		return err
	}
	g, err := gateway.New(cfg, nil)
	if err != nil {
		return err
	}
	if err := g.Start(ctx); err != nil {
		return err
	}
	defer g.Close()
	err = g.ServeStdio(ctx, "default")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// servePipe is a bare stdio hop: it starts a stdio upstream process and
// copies bytes from its stdin to the upstream's and from the upstream's
// stdout to its own, until stdin closes and the upstream has finished.
func servePipe() error {
	argv, env, err := upstreamCommand("stdio")
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	up, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	down, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(os.Stdout, down)
	}()
	_, _ = io.Copy(up, os.Stdin)
	_ = up.Close()
	<-copied // Wait closes down: the upstream's last answers first
	return cmd.Wait()
}

// upstreamCommand is the argv and environment of an upstream process
// speaking mode.
func upstreamCommand(mode string) (argv []string, env string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	return []string{exe}, upstreamEnv + "=" + mode, nil
}

// httpUpstream is an upstream process serving Streamable HTTP.
type httpUpstream struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

// startHTTPUpstream starts an upstream process and waits for its address.
func startHTTPUpstream() (*httpUpstream, error) {
	argv, env, err := upstreamCommand("http")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	u := &httpUpstream{cmd: cmd, stdin: stdin}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-addr:
		if a == "" {
			_ = u.close()
			return nil, errors.New("the HTTP upstream exited before it listened")
		}
		u.url = "http://" + a + "/mcp"
	case <-time.After(30 * time.Second):
		_ = u.close()
		return nil, errors.New("the HTTP upstream did not listen within 30s")
	}
	return u, nil
}

// close ends the process: closing its stdin asks it to stop, and a kill
// follows if it has not within five seconds.
func (u *httpUpstream) close() error {
	_ = u.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- u.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		_ = u.cmd.Process.Kill()
		return <-done
	}
}
