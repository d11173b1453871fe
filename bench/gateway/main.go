// Command gateway measures what mcpgen-gateway costs: tool calls through
// the gateway against the same upstream called directly, with the
// upstream over stdio and over Streamable HTTP, for a legacy (2025-11-25)
// session and a stateless 2026-07-28 client, with 1 and 16 concurrent
// clients. It prints, per row, p50 and p99 latency and calls a second
// each way, what the gateway adds and the throughput ratio, then the heap
// the gateway holds per downstream session against the upstream's own.
// Progress goes to stderr.
//
//	cd bench && go run ./gateway
//	go run ./gateway -duration 3s -rounds 5 -clients 1,4,16
//
// Two tools: echo, which answers at once, so that the gateway's cost in
// microseconds shows, and work, which takes 2 ms, as a tool that does
// something might, against which that cost should fade (the targets: at
// most 10% more p50 latency with one client, at least 0.9x the direct
// throughput with 16).
//
// The gateway runs in this process, serving HTTP on loopback, in front
// of an upstream that is this program started again (see upstreamEnv)
// with the tools under their own names (an empty prefix). Direct HTTP
// calls go to the same upstream process; direct stdio calls go through
// an mcpgen client session to a second process of the same program, the
// way the gateway itself reaches a stdio upstream, so the stdio rows'
// added cost includes the HTTP hop a client makes to the gateway. The
// callers are the same lean HTTP client both ways, each with its own
// connection (and its own session when legacy). Rows take turns with
// their direct and gateway runs in every round and report the median;
// the load runs on the same machine, so on few cores the figures are
// relative. The last column is the processor time a call costs this
// process through the gateway less what it costs directly: over HTTP,
// what the gateway spends per call; over stdio, that less what an mcpgen
// client spends on a call to a stdio server.
//
// Two more tables set the gateway against a bare hop in its place, in
// this process too. Over HTTP, a reverse proxy that copies bytes: what
// any HTTP intermediary costs on this machine. In the 2026-07-28 rows of
// both transports, a relay that hands each request to an mcpgen client
// session of the upstream: what an intermediary built on mcpgen's client
// costs, so that what the gateway costs beyond it is its engine and its
// governance. With few cores the load, the hop and the upstream share,
// 16 clients of the 2 ms tool keep the processors busy in waves, and
// throughput follows the processor time per call more than the tool's
// 2 ms.
//
// A last table has the stdio rows again with the gateway served over
// stdio (serve --stdio) as a process of its own, the way a client that
// starts its servers as processes runs it: the callers share one client
// session to it, as they share the direct one, so neither way has an
// HTTP hop. Its yardstick is a pipe in the gateway's place, a process
// that starts the upstream and copies bytes both ways.
//
//	go run ./gateway -only http/work/2026-07-28/16 -cpuprofile cpu.out
//
// runs one row (-only matches transport/tool/era/C) and profiles it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/gateway/heapfloor"
)

func main() {
	if mode := os.Getenv(upstreamEnv); mode != "" {
		if err := serveUpstream(mode); err != nil {
			fmt.Fprintln(os.Stderr, "upstream:", err)
			os.Exit(1)
		}
		return
	}
	duration := flag.Duration("duration", time.Second, "how long each run of a row lasts")
	rounds := flag.Int("rounds", 3, "runs of each row, each way; the table gives the median")
	clientsFlag := flag.String("clients", "1,16", "the numbers of concurrent clients, comma-separated")
	sessions := flag.Int("sessions", 2000, "downstream sessions opened to measure the memory of one (0: skip)")
	only := flag.String("only", "", "run only the rows whose name (transport/tool/era/C, e.g. http/work/2026-07-28/16) holds this")
	cpuprofile := flag.String("cpuprofile", "", "write this process's CPU profile (the callers' and the gateway's) to this file")
	memprofile := flag.String("memprofile", "", "write this process's allocation profile to this file at the end")
	tracefile := flag.String("trace", "", "write an execution trace of this process to this file")
	flag.Parse()
	var clients []int
	for f := range strings.SplitSeq(*clientsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "gateway: -clients: %q is not a positive number\n", f)
			os.Exit(2)
		}
		clients = append(clients, n)
	}

	// The gateway runs in this process as mcpgen-gateway runs in its own.
	undo, kept := heapfloor.Keep(os.Getenv)
	defer undo()
	collector := fmt.Sprintf("GOGC=%q GOMEMLIMIT=%q from the environment", os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
	if kept {
		collector = fmt.Sprintf("the heap floor of %d MiB that mcpgen-gateway keeps", heapfloor.Default>>20)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var stops []func()
	if *cpuprofile != "" {
		stops = append(stops, record(*cpuprofile, "cpuprofile", pprof.StartCPUProfile, pprof.StopCPUProfile))
	}
	if *tracefile != "" {
		stops = append(stops, record(*tracefile, "trace", trace.Start, trace.Stop))
	}
	finish := func() {
		for _, end := range stops {
			end()
		}
		if *memprofile != "" {
			writeHeapProfile(*memprofile)
		}
	}
	defer finish()
	if err := run(ctx, os.Stdout, clients, *only, *duration, max(*rounds, 1), *sessions, collector); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		stop()
		finish()
		os.Exit(1)
	}
}

// record starts writing a CPU profile or an execution trace (what, the
// flag's name) to file with start, and returns what stops it and closes
// the file.
func record(file, what string, start func(io.Writer) error, stop func()) func() {
	f, err := os.Create(file)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: -%s: %v\n", what, err)
		os.Exit(1)
	}
	return func() {
		stop()
		_ = f.Close()
	}
}

// writeHeapProfile writes the allocations made since the start to file.
func writeHeapProfile(file string) {
	f, err := os.Create(file)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gateway: -memprofile:", err)
	}
}

// row is one line of the table: a transport, tool, era and client count,
// measured both ways.
type row struct {
	transport, tool string
	era             era
	clients         int
	direct, gateway []sample // a sample per round
	proxy           []sample // through a reverse proxy (viaProxy), over HTTP
	relay           []sample // through a relay to an mcpgen client session (viaRelay), 2026-07-28
	gatewayStdio    []sample // through the gateway served over stdio (viaGatewayStdio), over stdio
	pipe            []sample // through a process copying bytes (viaPipe), over stdio
}

func run(ctx context.Context, w io.Writer, clients []int, only string, d time.Duration, rounds, sessions int, collector string) error {
	var rows []*row
	for _, tr := range transports {
		if !wanted(only, tr, clients) {
			continue
		}
		r, err := newRig(ctx, tr)
		if err != nil {
			return fmt.Errorf("%s upstream: %w", tr, err)
		}
		for _, tool := range []string{toolEcho, toolWork} {
			for _, e := range eras {
				for _, c := range clients {
					x := &row{transport: tr, tool: tool, era: e, clients: c}
					if !strings.Contains(x.name(), only) {
						continue
					}
					fmt.Fprintf(os.Stderr, "gateway: %s upstream, %s, %s, %d client(s)\n", tr, tool, e, c)
					if err := measureRow(ctx, r, x, d, rounds); err != nil {
						_ = r.close()
						return fmt.Errorf("%s upstream, %s, %s, %d clients: %w", tr, tool, e, c, err)
					}
					rows = append(rows, x)
				}
			}
		}
		if err := r.close(); err != nil {
			return err
		}
	}
	printRows(w, rows, d, rounds, collector)
	if sessions == 0 {
		return nil
	}

	fmt.Fprintf(os.Stderr, "gateway: memory of %d sessions\n", sessions)
	mem, err := measureMemory(ctx, sessions)
	if err != nil {
		return err
	}
	printMemory(w, mem, sessions)
	return nil
}

// name is how -only picks the row.
func (x *row) name() string {
	return fmt.Sprintf("%s/%s/%s/%d", x.transport, x.tool, x.era, x.clients)
}

// wanted reports whether -only picks a row of transport.
func wanted(only, transport string, clients []int) bool {
	for _, tool := range []string{toolEcho, toolWork} {
		for _, e := range eras {
			for _, c := range clients {
				x := row{transport: transport, tool: tool, era: e, clients: c}
				if strings.Contains(x.name(), only) {
					return true
				}
			}
		}
	}
	return false
}

// measureRow runs x's callers each way, warmed up, taking turns.
func measureRow(ctx context.Context, r *rig, x *row, d time.Duration, rounds int) error {
	callers := map[string][]caller{}
	for _, via := range ways(r.transport, x.era) {
		cs, done, err := r.callers(ctx, via, x.era, x.tool, x.clients)
		if err != nil {
			return fmt.Errorf("%s: %w", via, err)
		}
		defer done()
		callers[via] = cs
		if _, err := load(ctx, cs, min(d/4, 250*time.Millisecond), 0); err != nil {
			return fmt.Errorf("%s: warm-up: %w", via, err)
		}
	}
	for range rounds {
		for _, via := range ways(r.transport, x.era) {
			s, err := load(ctx, callers[via], d, 0)
			if err != nil {
				return fmt.Errorf("%s: %w", via, err)
			}
			switch via {
			case viaDirect:
				x.direct = append(x.direct, s)
			case viaGateway:
				x.gateway = append(x.gateway, s)
			case viaProxy:
				x.proxy = append(x.proxy, s)
			case viaRelay:
				x.relay = append(x.relay, s)
			case viaGatewayStdio:
				x.gatewayStdio = append(x.gatewayStdio, s)
			case viaPipe:
				x.pipe = append(x.pipe, s)
			}
		}
	}
	return nil
}

// memRow is the heap per downstream client of one era, direct and
// through the gateway.
type memRow struct {
	era             era
	direct, gateway float64
}

// measureMemory measures sessionMemory for each era against the
// upstream's handler served in this process and against the gateway (in
// front of an HTTP upstream process).
func measureMemory(ctx context.Context, n int) ([]memRow, error) {
	ds, err := startDirectServer()
	if err != nil {
		return nil, err
	}
	defer ds.close()
	r, err := newRig(ctx, overHTTP)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var rows []memRow
	for _, e := range eras {
		m := memRow{era: e}
		if m.direct, err = sessionMemory(ctx, r.hc, ds.url, e, n); err != nil {
			return nil, fmt.Errorf("direct, %s: %w", e, err)
		}
		if m.gateway, err = sessionMemory(ctx, r.hc, r.gwURL, e, n); err != nil {
			return nil, fmt.Errorf("gateway, %s: %w", e, err)
		}
		rows = append(rows, m)
	}
	return rows, nil
}

// median returns the sample whose f is the median of the samples' f.
func median(ss []sample, f func(sample) float64) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func cpuMicros(s sample) float64 { return float64(s.cpuPerCall()) / 1e3 }

func micros(s sample, q float64) float64 {
	if q == 0.5 {
		return float64(s.p50) / 1e3
	}
	return float64(s.p99) / 1e3
}

// printRows writes the latency and throughput tables in Markdown: the
// gateway against the upstream directly, then against a reverse proxy
// (viaProxy) and a relay (viaRelay) in its place, then served over stdio
// against a process copying bytes in its place (viaPipe), for the rows
// that have them. collector says how this process's garbage collector
// was set.
func printRows(w io.Writer, rows []*row, d time.Duration, rounds int, collector string) {
	fmt.Fprintf(w, "Tool calls through mcpgen-gateway against the upstream directly: median of %d runs of %v each way; latencies in µs; the collector of the callers' and the gateway's process runs with %s\n\n", rounds, d, collector)
	printAgainstDirect(w, rows, func(x *row) []sample { return x.gateway }, true)
	printAgainstHop(w, rows, "proxy", func(x *row) []sample { return x.proxy }, func(x *row) []sample { return x.gateway }, true,
		"The HTTP rows again with a reverse proxy in the gateway's place, copying bytes: what any HTTP intermediary costs here, against what the gateway costs")
	printAgainstHop(w, rows, "relay", func(x *row) []sample { return x.relay }, func(x *row) []sample { return x.gateway }, true,
		"The 2026-07-28 rows again with a relay in the gateway's place: a bare HTTP handler handing each request to an mcpgen client session of the upstream. What an intermediary built on mcpgen's client costs before it does anything of its own; what the gateway costs beyond it is its engine and governance")
	printAgainstHop(w, rows, "pipe", func(x *row) []sample { return x.pipe }, func(x *row) []sample { return x.gatewayStdio }, false,
		"The stdio rows with the gateway served over stdio (mcpgen-gateway serve --stdio), a process of its own in front of the upstream process, as a client that starts its servers as processes would run it, against a pipe in its place: a process that starts the upstream and copies bytes both ways. The callers share one session each way; both hops spend their processor time in their own process, so it has no column here")
}

// printAgainstHop writes, under caption, the table of the rows that have
// samples through a hop, what the hop adds against what the gateway
// (gw) adds, with their processor time per call when cpu says this
// process spent it.
func printAgainstHop(w io.Writer, rows []*row, name string, hop, gw func(*row) []sample, cpu bool, caption string) {
	if !slices.ContainsFunc(rows, func(x *row) bool { return len(hop(x)) > 0 && len(gw(x)) > 0 }) {
		return
	}
	head, rule := "", ""
	if cpu {
		head, rule = fmt.Sprintf(" %s CPU/call | gateway CPU/call |", name), "---:|---:|"
	}
	fmt.Fprintln(w, caption)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| upstream | tool | era | C | added p50 %[1]s | added p50 gateway | added p99 %[1]s | added p99 gateway | ratio %[1]s | ratio gateway |%[2]s\n", name, head)
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"+rule)
	for _, x := range rows {
		if len(hop(x)) == 0 || len(gw(x)) == 0 {
			continue
		}
		p, g := compare(x.direct, hop(x)), compare(x.direct, gw(x))
		cpuCols := ""
		if cpu {
			cpuCols = fmt.Sprintf(" %.0f | %.0f |", p.cpu, g.cpu)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %+.0f (%+.0f%%) | %+.0f (%+.0f%%) | %+.0f | %+.0f | %.2fx | %.2fx |%s\n",
			x.transport, x.tool, x.era, x.clients, p.p50v-p.p50d, 100*(p.p50v-p.p50d)/p.p50d, g.p50v-g.p50d, 100*(g.p50v-g.p50d)/g.p50d,
			p.p99v-p.p99d, g.p99v-g.p99d, p.tpv/p.tpd, g.tpv/g.tpd, cpuCols)
	}
	fmt.Fprintln(w)
}

// printAgainstDirect writes the table of the rows that have samples the
// way via picks, against their direct samples, with the gateway's
// processor time per call when cpu says this process spent it.
func printAgainstDirect(w io.Writer, rows []*row, via func(*row) []sample, cpu bool) {
	head, rule, cpuCol := "", "", ""
	if cpu {
		head, rule = " gateway CPU/call |", "---:|"
	}
	fmt.Fprintln(w, "| upstream | tool | era | C | p50 direct | p50 gateway | added p50 | p99 direct | p99 gateway | added p99 | calls/s direct | calls/s gateway | ratio |"+head)
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"+rule)
	for _, x := range rows {
		if len(via(x)) == 0 {
			continue
		}
		g := compare(x.direct, via(x))
		if cpu {
			cpuCol = fmt.Sprintf(" %.0f |", g.cpu)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.0f | %.0f | %+.0f (%+.0f%%) | %.0f | %.0f | %+.0f | %.0f | %.0f | %.2fx |%s\n",
			x.transport, x.tool, x.era, x.clients, g.p50d, g.p50v, g.p50v-g.p50d, 100*(g.p50v-g.p50d)/g.p50d, g.p99d, g.p99v, g.p99v-g.p99d, g.tpd, g.tpv, g.tpv/g.tpd, cpuCol)
	}
	fmt.Fprintln(w)
}

// comparison is the medians of a row's direct runs and of its runs
// another way (via).
type comparison struct {
	p50d, p50v, p99d, p99v float64 // µs
	tpd, tpv               float64 // calls a second
	cpu                    float64 // µs of this process's processor time per call, via less direct
}

func compare(direct, via []sample) comparison {
	return comparison{
		p50d: median(direct, func(s sample) float64 { return micros(s, 0.5) }),
		p50v: median(via, func(s sample) float64 { return micros(s, 0.5) }),
		p99d: median(direct, func(s sample) float64 { return micros(s, 0.99) }),
		p99v: median(via, func(s sample) float64 { return micros(s, 0.99) }),
		tpd:  median(direct, sample.perSec),
		tpv:  median(via, sample.perSec),
		cpu:  median(via, cpuMicros) - median(direct, cpuMicros),
	}
}

// printMemory writes the memory table in Markdown.
func printMemory(w io.Writer, rows []memRow, n int) {
	fmt.Fprintf(w, "Heap held per downstream client, %d clients: legacy sessions left open; 2026-07-28 clients that made one call each\n\n", n)
	fmt.Fprintln(w, "| era | upstream directly | through the gateway |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, m := range rows {
		fmt.Fprintf(w, "| %s | %.0f B | %.0f B |\n", m.era, m.direct, m.gateway)
	}
}
