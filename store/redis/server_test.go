package redis

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// testServer is a redis-server the tests start on a free port, with
// persistence off and its files in a temporary directory.
type testServer struct {
	addr string
	dir  string
	cmd  *exec.Cmd
}

// shared is the server of every test that does not stop its own; tests
// keep apart by key prefix.
var shared *testServer

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		fmt.Fprintln(os.Stderr, "store/redis tests need a redis-server on PATH: install it (apt-get install redis-server, or `make redis`)")
		os.Exit(1)
	}
	// The outage test makes the client log every failed dial; the
	// test's own errors say what matters.
	goredis.SetLogger(quietLogger{})
	dir, err := os.MkdirTemp("", "mcpgen-redis-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared, err = startServer(dir, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	shared.stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startServer starts redis-server in dir on addr, or on a free port when
// addr is empty, and waits until it answers PING.
func startServer(dir, addr string) (*testServer, error) {
	if addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr = l.Addr().String()
		l.Close()
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server",
		"--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--logfile", "redis-"+port+".log",
	)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	s := &testServer{addr: addr, dir: dir, cmd: cmd}
	c := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("redis-server on %s does not answer: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills the server and waits for it to exit.
func (s *testServer) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// newClient returns a client of s with short timeouts, closed when t ends.
func (s *testServer) newClient(t testing.TB) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{
		Addr:         s.addr,
		DialTimeout:  300 * time.Millisecond,
		ReadTimeout:  300 * time.Millisecond,
		WriteTimeout: 300 * time.Millisecond,
		PoolSize:     64,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// testPrefix returns a key prefix of t's own on the shared server.
func testPrefix(t testing.TB) string {
	return "{test:" + t.Name() + ":" + strconv.FormatInt(time.Now().UnixNano(), 36) + "}:"
}

// quietLogger drops go-redis's log lines.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
