package hostile

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Server is a server under test: a program taking the flags of
// bench/hostile/servers/internal/cli.
type Server struct {
	Name string
	Bin  string // the program's path
}

// Builtin names the servers of bench/hostile/servers, by the name Build
// takes.
var Builtin = []string{"mcpgen", "gosdk"}

// Build compiles the server of bench/hostile/servers/NAME into dir. It
// runs the go command in the current directory, which must lie inside
// the bench module.
func Build(ctx context.Context, dir, name string) (Server, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/mcpgen/mcpgen/bench/hostile/servers/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Server{}, fmt.Errorf("build %s: %w\n%s", name, err, out)
	}
	return Server{Name: name, Bin: bin}, nil
}

// stdio starts the server on stdio, with a peer on its stdin and stdout.
func (s Server) stdio() (*proc, *peer, error) {
	p, err := startProc([]string{s.Bin, "-stdio"}, 0)
	if err != nil {
		return nil, nil, err
	}
	return p, newPeer(p.stdout, p.stdin), nil
}

// listen starts the server with flag (-http or -sse) on a free loopback
// port, under `ulimit -n fdLimit` when fdLimit is above zero, and
// returns it once the port takes connections.
func (s Server) listen(flag string, fdLimit int) (*proc, string, error) {
	addr, err := freePort()
	if err != nil {
		return nil, "", err
	}
	p, err := startProc([]string{s.Bin, flag, addr}, fdLimit)
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p, addr, nil
		}
		select {
		case <-p.exited:
			return nil, "", fmt.Errorf("%s %s exited at start: %s", s.Name, flag, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, "", errors.New("no listener after 10 s")
		}
	}
}

// http starts the server on Streamable HTTP and returns the endpoint's
// URL.
func (s Server) http(fdLimit int) (*proc, string, error) {
	p, addr, err := s.listen("-http", fdLimit)
	if err != nil {
		return nil, "", err
	}
	return p, "http://" + addr + "/mcp", nil
}

// freePort returns a loopback address no one listens on, just now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}
