// Command compare runs the echo benchmark and prints its comparison table.
// Run it from the bench module:
//
//	go run ./echo/cmd/compare
//	go run ./echo/cmd/compare -rounds 3 -d 500ms -servers floor,mcpgo
//	go run ./echo/cmd/compare -idle 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/bench/echo"
)

func main() {
	var cfg echo.Config
	flag.IntVar(&cfg.Rounds, "rounds", 7, "measurements per server and mode; the table shows medians")
	flag.DurationVar(&cfg.Duration, "d", time.Second, "length of one measurement")
	flag.DurationVar(&cfg.Warmup, "warmup", 300*time.Millisecond, "warm-up per server and mode")
	flag.BoolVar(&cfg.InProcess, "inproc", true, "measure the in-process mode over net.Pipe")
	windows := flag.String("windows", "1,32", "comma-separated requests in flight for the stdio modes")
	clients := flag.String("http", "1,16", "comma-separated concurrent sessions for the HTTP modes (\"\" for none)")
	idle := flag.Int("idle", 0, "also open this many idle mcpgen HTTP sessions in process and report their memory")
	servers := flag.String("servers", "", "comma-separated servers to compare (default all)")
	quiet := flag.Bool("q", false, "print only the table, no progress")
	flag.Parse()

	if err := run(&cfg, *windows, *clients, *servers, *idle, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(cfg *echo.Config, windows, clients, servers string, idle int, quiet bool) error {
	var err error
	if cfg.Windows, err = counts(windows); err != nil {
		return fmt.Errorf("-windows: %w", err)
	}
	if cfg.HTTPClients, err = counts(clients); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	cfg.Servers = echo.Servers
	if servers != "" {
		cfg.Servers = nil
		names := strings.Split(servers, ",")
		for _, s := range echo.Servers {
			if slices.Contains(names, s.Name) {
				cfg.Servers = append(cfg.Servers, s)
			}
		}
		if len(cfg.Servers) != len(names) {
			return fmt.Errorf("-servers: unknown server in %q", servers)
		}
	}
	if !quiet {
		cfg.Progress = os.Stderr
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	dir, err := os.MkdirTemp("", "echo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if !quiet {
		fmt.Fprintln(os.Stderr, "building servers...")
	}
	if cfg.Bins, err = echo.Build(ctx, dir, cfg.Servers); err != nil {
		return err
	}
	start := time.Now()
	results, err := echo.Compare(ctx, *cfg)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(os.Stderr, "measured in %v\n\n", time.Since(start).Round(time.Second))
	}
	if err := echo.WriteTable(io.Writer(os.Stdout), *cfg, results); err != nil {
		return err
	}
	if idle > 0 {
		if !quiet {
			fmt.Fprintf(os.Stderr, "opening %d idle sessions...\n", idle)
		}
		r, err := echo.IdleSessions(ctx, idle, 8)
		if err != nil {
			return err
		}
		fmt.Println()
		return echo.WriteIdle(os.Stdout, r)
	}
	return nil
}

// counts parses a comma-separated list of positive integers; "" is none.
func counts(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad count %q", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}
