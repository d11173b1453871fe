// Command hostile builds the hostile-client servers of bench/hostile/servers
// (one on mcpgen, one on the official Go SDK), plays every case of package
// hostile against each, and prints a Markdown table with one row per
// finding and one column per server. Progress goes to stderr.
//
//	cd bench && go run ./hostile/cmd/hostile
//	go run ./hostile/cmd/hostile -cases 1,10 -server mine=/path/to/server
//
// A server given with -server must take the flags of
// bench/hostile/servers/internal/cli and serve the same tools. Every server
// process runs in a process group of its own and is killed on the way out.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/bench/hostile"
)

func main() {
	builtin := flag.String("servers", strings.Join(hostile.Builtin, ","), "the servers of bench/hostile/servers to build and run, comma-separated")
	var extra []string
	flag.Func("server", "an extra server `NAME=PATH` (a program taking the same flags); repeatable", func(v string) error {
		if name, path, ok := strings.Cut(v, "="); !ok || name == "" || path == "" {
			return fmt.Errorf("want NAME=PATH, got %q", v)
		}
		extra = append(extra, v)
		return nil
	})
	only := flag.String("cases", "", "the cases to run, comma-separated numbers (default all)")
	watch := flag.Duration("watch", hostile.DefaultWatch, "how long case 6 waits for held connections to be closed")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, *builtin, extra, *only, *watch)
	hostile.KillAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, builtin string, extra []string, only string, watch time.Duration) error {
	raiseFileLimit()
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var servers []hostile.Server
	for name := range strings.SplitSeq(builtin, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !slices.Contains(hostile.Builtin, name) {
			return fmt.Errorf("-servers: no server %q in bench/hostile/servers (have %s)", name, strings.Join(hostile.Builtin, ", "))
		}
		s, err := hostile.Build(ctx, dir, name)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	for _, e := range extra {
		name, path, _ := strings.Cut(e, "=")
		servers = append(servers, hostile.Server{Name: name, Bin: path})
	}
	cases := hostile.Cases(hostile.Options{Watch: watch})
	if only != "" {
		want := strings.Split(only, ",")
		cases = slices.DeleteFunc(cases, func(c hostile.Case) bool { return !slices.Contains(want, c.ID) })
		if len(cases) == 0 {
			return fmt.Errorf("-cases %q: no such case (they are numbered 1 to 11)", only)
		}
	}
	fmt.Printf("hostile clients, %s, %s %s/%s, %d CPUs, mcpgen %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), commit())
	t := hostile.Run(ctx, cases, servers, os.Stderr)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return t.Write(os.Stdout)
}

// commit names the git commit the working tree is at, marked when the
// tree has changes.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "(unknown commit)"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+changes"
	}
	return c
}

// raiseFileLimit lifts the soft limit on open files to the hard one:
// case 6 holds two thousand connections at once.
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
