// Command compare runs the echo benchmark and prints its comparison table:
// every server in each era, legacy sessions and 2026-07-28, interleaved.
// Run it from the bench module:
//
//	go run ./echo/cmd/compare
//	go run ./echo/cmd/compare -rounds 3 -d 500ms -servers floor,mcpgo
//	go run ./echo/cmd/compare -eras legacy
//	go run ./echo/cmd/compare -idle 10000
//	go run ./echo/cmd/compare -rounds 0 -clients 2000
//	go run ./echo/cmd/compare -rounds 0 -starts 200
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
	flag.IntVar(&cfg.Rounds, "rounds", 7, "measurements per row and mode; the table shows medians (0: no table)")
	flag.DurationVar(&cfg.Duration, "d", time.Second, "length of one measurement")
	flag.DurationVar(&cfg.Warmup, "warmup", 300*time.Millisecond, "warm-up per server and mode")
	flag.BoolVar(&cfg.InProcess, "inproc", true, "measure the in-process mode over net.Pipe")
	windows := flag.String("windows", "1,32", "comma-separated requests in flight for the stdio modes")
	clients := flag.String("http", "1,16", "comma-separated concurrent sessions for the HTTP modes (\"\" for none)")
	idle := flag.Int("idle", 0, "also open this many idle mcpgen HTTP sessions in process and report their memory")
	comers := flag.Int("clients", 0, "also have this many clients of each row come, call and leave over HTTP in process, and report what each server still holds")
	starts := flag.Int("starts", 0, "also spawn each server's program this many times and report the time to its answer to initialize")
	servers := flag.String("servers", "", "comma-separated servers to compare (default all)")
	eras := flag.String("eras", "legacy,"+echo.ModernVersion, "comma-separated eras each server is measured in")
	quiet := flag.Bool("q", false, "print only the tables, no progress")
	flag.Parse()

	opts := options{windows: *windows, clients: *clients, servers: *servers, eras: *eras, idle: *idle, comers: *comers, starts: *starts, quiet: *quiet}
	if err := run(&cfg, opts); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// options are the command's flags that run turns into a Config and the
// extra measurements.
type options struct {
	windows, clients, servers, eras string
	idle, comers, starts            int
	quiet                           bool
}

func run(cfg *echo.Config, o options) error {
	var err error
	if cfg.Windows, err = counts(o.windows); err != nil {
		return fmt.Errorf("-windows: %w", err)
	}
	if cfg.HTTPClients, err = counts(o.clients); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	servers := echo.Servers
	if o.servers != "" {
		servers = nil
		names := strings.Split(o.servers, ",")
		for _, s := range echo.Servers {
			if slices.Contains(names, s.Name) {
				servers = append(servers, s)
			}
		}
		if len(servers) != len(names) {
			return fmt.Errorf("-servers: unknown server in %q", o.servers)
		}
	}
	var eras []echo.Era
	for _, name := range strings.Split(o.eras, ",") {
		e, err := echo.ParseEra(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("-eras: %w", err)
		}
		eras = append(eras, e)
	}
	cfg.Entries = echo.Entries(servers, eras)
	if !o.quiet {
		cfg.Progress = os.Stderr
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if cfg.Rounds > 0 {
		if err := compare(ctx, cfg, servers, o.quiet); err != nil {
			return err
		}
	}
	if o.starts > 0 {
		if err := startTimes(ctx, servers, o.starts, o.quiet); err != nil {
			return err
		}
	}
	if o.comers > 0 {
		if !o.quiet {
			fmt.Fprintf(os.Stderr, "%d clients coming and going per row...\n", o.comers)
		}
		var results []echo.ClientsResult
		for _, e := range cfg.Entries {
			r, err := echo.Clients(ctx, e, o.comers, 3, 8)
			if err != nil {
				return fmt.Errorf("%s: clients: %w", e, err)
			}
			results = append(results, r)
		}
		fmt.Println()
		if err := echo.WriteClients(os.Stdout, results); err != nil {
			return err
		}
	}
	if o.idle > 0 {
		if !o.quiet {
			fmt.Fprintf(os.Stderr, "opening %d idle sessions...\n", o.idle)
		}
		r, err := echo.IdleSessions(ctx, o.idle, 8)
		if err != nil {
			return err
		}
		fmt.Println()
		return echo.WriteIdle(os.Stdout, r)
	}
	return nil
}

// compare builds the servers' programs, measures cfg's entries and prints
// the table.
func compare(ctx context.Context, cfg *echo.Config, servers []echo.Server, quiet bool) error {
	dir, err := os.MkdirTemp("", "echo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if !quiet {
		fmt.Fprintln(os.Stderr, "building servers...")
	}
	if cfg.Bins, err = echo.Build(ctx, dir, servers); err != nil {
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
	return echo.WriteTable(io.Writer(os.Stdout), *cfg, results)
}

// startTimes builds the servers' programs, spawns each n times and
// prints the start times.
func startTimes(ctx context.Context, servers []echo.Server, n int, quiet bool) error {
	dir, err := os.MkdirTemp("", "echo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, err := echo.Build(ctx, dir, servers)
	if err != nil {
		return err
	}
	var progress io.Writer
	if !quiet {
		fmt.Fprintf(os.Stderr, "spawning each server %d times...\n", n)
		progress = os.Stderr
	}
	results, err := echo.Starts(ctx, bins, servers, n, progress)
	if err != nil {
		return err
	}
	fmt.Println()
	return echo.WriteStarts(os.Stdout, results)
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
