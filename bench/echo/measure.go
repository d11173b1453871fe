package echo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"time"
)

// Config says what [Compare] measures and for how long.
type Config struct {
	// Entries are the rows to compare: each a server, with a binary in
	// Bins, and the era its client speaks.
	Entries []Entry
	// Bins maps server names to binaries built by [Build].
	Bins map[string]string
	// Windows are the numbers of requests in flight of the stdio modes.
	Windows []int
	// HTTPClients are the numbers of concurrent clients of the HTTP
	// modes, each with its own keep-alive connection.
	HTTPClients []int
	// InProcess adds the in-process mode over net.Pipe.
	InProcess bool
	// Rounds is how many times each entry is measured in each mode. The
	// entries take turns within a round, so drift on a shared machine hits
	// all of them alike; tables report the median.
	Rounds int
	// Duration is the length of one measurement.
	Duration time.Duration
	// Warmup is how long each server runs before its first measurement in
	// a mode.
	Warmup time.Duration
	// Progress, if not nil, receives a line per measurement.
	Progress io.Writer
}

// Result is what Compare measured of one entry. Each slice holds one
// sample per round.
type Result struct {
	Entry Entry
	// Stdio holds a result per window of Config.Windows, in order.
	Stdio []StdioResult
	// PeakRSS is the largest VmHWM of the entry's stdio processes, in
	// bytes.
	PeakRSS int64
	// HTTP holds a result per count of Config.HTTPClients, in order.
	HTTP []HTTPResult
	// HTTPPeakRSS is the largest VmHWM of the entry's HTTP processes.
	HTTPPeakRSS int64
	// InProcess is nil unless measured.
	InProcess *InProcessResult
}

// StdioResult is one stdio mode of one server.
type StdioResult struct {
	Window int
	// CallsPerSec is completed tools/call round trips per second.
	CallsPerSec []float64
	// CPUPerCall is the server's user+system CPU time per call.
	CPUPerCall []time.Duration
}

// HTTPResult is one HTTP mode of one server.
type HTTPResult struct {
	// Clients is the number of concurrent clients, each with one call in
	// flight over its own keep-alive connection.
	Clients int
	// CallsPerSec is completed tools/call round trips per second.
	CallsPerSec []float64
	// CPUPerCall is the server's user+system CPU time per call.
	CPUPerCall []time.Duration
}

// InProcessResult is the in-process mode of one server: one request in
// flight over net.Pipe, client and server in this process.
type InProcessResult struct {
	NsPerOp     []float64
	AllocsPerOp []float64
	BytesPerOp  []float64
}

// Compare measures every entry in every mode, interleaving the entries
// within each round.
func Compare(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Rounds < 1 || cfg.Duration <= 0 {
		return nil, errors.New("compare: need at least one round of positive duration")
	}
	results := make([]Result, len(cfg.Entries))
	for i, e := range cfg.Entries {
		results[i].Entry = e
	}
	for _, w := range cfg.Windows {
		if err := compareStdio(ctx, cfg, w, results); err != nil {
			return nil, err
		}
	}
	for _, c := range cfg.HTTPClients {
		if err := compareHTTP(ctx, cfg, c, results); err != nil {
			return nil, err
		}
	}
	if cfg.InProcess {
		if err := compareInProcess(ctx, cfg, results); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// rotate returns the order entries take turns in round r, shifted by one
// each round so that no entry always follows the same one.
func rotate(n, r int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + r) % n
	}
	return order
}

func compareStdio(ctx context.Context, cfg Config, window int, results []Result) (err error) {
	procs := make([]*Process, len(cfg.Entries))
	defer func() {
		for _, p := range procs {
			if p != nil {
				err = errors.Join(err, p.Close())
			}
		}
	}()
	for i, e := range cfg.Entries {
		bin, ok := cfg.Bins[e.Name]
		if !ok {
			return fmt.Errorf("compare: no binary for %s", e.Name)
		}
		p, err := Start(bin, e.Era)
		if err != nil {
			return err
		}
		procs[i] = p
		if e.Era == Legacy {
			if _, err := p.Initialize(); err != nil {
				return fmt.Errorf("%s: %w; stderr: %s", e, err, p.Stderr())
			}
		}
		if cfg.Warmup > 0 {
			if _, err := p.Echo(0, window, time.Now().Add(cfg.Warmup)); err != nil {
				return fmt.Errorf("%s: warm up: %w", e, err)
			}
		}
		results[i].Stdio = append(results[i].Stdio, StdioResult{Window: window})
	}
	for r := range cfg.Rounds {
		for _, i := range rotate(len(procs), r) {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := procs[i]
			cpu0, err := p.CPU()
			if err != nil {
				return err
			}
			start := time.Now()
			n, err := p.Echo(0, window, start.Add(cfg.Duration))
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w; stderr: %s", cfg.Entries[i], err, p.Stderr())
			}
			cpu1, err := p.CPU()
			if err != nil {
				return err
			}
			sr := &results[i].Stdio[len(results[i].Stdio)-1]
			rate := float64(n) / elapsed.Seconds()
			sr.CallsPerSec = append(sr.CallsPerSec, rate)
			sr.CPUPerCall = append(sr.CPUPerCall, (cpu1-cpu0)/time.Duration(n))
			progress(cfg, "stdio W=%d round %d %-17s %9.0f calls/s %7.1f µs CPU/call",
				window, r+1, cfg.Entries[i], rate, micros((cpu1-cpu0)/time.Duration(n)))
		}
	}
	for i, p := range procs {
		rss, err := p.PeakRSS()
		if err != nil {
			return err
		}
		results[i].PeakRSS = max(results[i].PeakRSS, rss)
	}
	return nil
}

func compareHTTP(ctx context.Context, cfg Config, clients int, results []Result) (err error) {
	procs := make([]*HTTPProcess, len(cfg.Entries))
	loads := make([]*HTTPLoad, len(cfg.Entries))
	defer func() {
		for i, p := range procs {
			if loads[i] != nil {
				err = errors.Join(err, loads[i].Close())
			}
			if p != nil {
				err = errors.Join(err, p.Close())
			}
		}
	}()
	for i, e := range cfg.Entries {
		bin, ok := cfg.Bins[e.Name]
		if !ok {
			return fmt.Errorf("compare: no binary for %s", e.Name)
		}
		p, err := StartHTTP(bin, e.httpArgs()...)
		if err != nil {
			return err
		}
		procs[i] = p
		if loads[i], err = NewHTTPLoad(p.URL, clients, e.Era); err != nil {
			return fmt.Errorf("%s: %w; output: %s", e, err, p.Stderr())
		}
		if cfg.Warmup > 0 {
			if _, err := loads[i].Echo(0, time.Now().Add(cfg.Warmup)); err != nil {
				return fmt.Errorf("%s: warm up: %w", e, err)
			}
		}
		results[i].HTTP = append(results[i].HTTP, HTTPResult{Clients: clients})
	}
	for r := range cfg.Rounds {
		for _, i := range rotate(len(procs), r) {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := procs[i]
			cpu0, err := p.CPU()
			if err != nil {
				return err
			}
			start := time.Now()
			n, err := loads[i].Echo(0, start.Add(cfg.Duration))
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w; output: %s", cfg.Entries[i], err, p.Stderr())
			}
			cpu1, err := p.CPU()
			if err != nil {
				return err
			}
			hr := &results[i].HTTP[len(results[i].HTTP)-1]
			rate := float64(n) / elapsed.Seconds()
			hr.CallsPerSec = append(hr.CallsPerSec, rate)
			hr.CPUPerCall = append(hr.CPUPerCall, (cpu1-cpu0)/time.Duration(n))
			progress(cfg, "http C=%d round %d %-17s %9.0f calls/s %7.1f µs CPU/call",
				clients, r+1, cfg.Entries[i], rate, micros((cpu1-cpu0)/time.Duration(n)))
		}
	}
	for i, p := range procs {
		rss, err := p.PeakRSS()
		if err != nil {
			return err
		}
		results[i].HTTPPeakRSS = max(results[i].HTTPPeakRSS, rss)
	}
	return nil
}

func compareInProcess(ctx context.Context, cfg Config, results []Result) error {
	for i, e := range cfg.Entries {
		if e.Serve != nil {
			results[i].InProcess = &InProcessResult{}
		}
	}
	for r := range cfg.Rounds {
		for _, i := range rotate(len(cfg.Entries), r) {
			e := cfg.Entries[i]
			if e.Serve == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			ns, allocs, bytes, err := inProcess(ctx, e, cfg.Warmup, cfg.Duration)
			if err != nil {
				return fmt.Errorf("%s: in process: %w", e, err)
			}
			ir := results[i].InProcess
			ir.NsPerOp = append(ir.NsPerOp, ns)
			ir.AllocsPerOp = append(ir.AllocsPerOp, allocs)
			ir.BytesPerOp = append(ir.BytesPerOp, bytes)
			progress(cfg, "in-process round %d %-17s %9.0f ns/op %6.1f allocs/op %7.0f B/op",
				r+1, e, ns, allocs, bytes)
		}
	}
	return nil
}

// inProcess runs e's server in this process over net.Pipe and measures
// tools/call round trips one at a time, as testing.B with ReportAllocs
// would: the allocation counts are the whole process's, the client's
// included.
func inProcess(ctx context.Context, e Entry, warmup, d time.Duration) (ns, allocs, bytes float64, err error) {
	c, err := Pipe(ctx, e.Server, e.Era)
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	if e.Era == Legacy {
		if _, err := c.Initialize(); err != nil {
			return 0, 0, 0, err
		}
	}
	if warmup > 0 {
		if _, err := c.Echo(0, 1, time.Now().Add(warmup)); err != nil {
			return 0, 0, 0, fmt.Errorf("warm up: %w", err)
		}
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	n, err := c.Echo(0, 1, start.Add(d))
	elapsed := time.Since(start)
	runtime.ReadMemStats(&m1)
	if err != nil {
		return 0, 0, 0, err
	}
	ns = float64(elapsed.Nanoseconds()) / float64(n)
	allocs = float64(m1.Mallocs-m0.Mallocs) / float64(n)
	bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
	return ns, allocs, bytes, nil
}

// PipeClient is a client connected over net.Pipe to a server running in
// this process.
type PipeClient struct {
	*Client
	conn net.Conn
	done chan error
}

// Pipe starts s in this process over net.Pipe, with a client of era; a
// legacy client is not yet initialized. Close the client to stop the
// server.
func Pipe(ctx context.Context, s Server, era Era) (*PipeClient, error) {
	if s.Serve == nil {
		return nil, fmt.Errorf("%s has no in-process form", s.Name)
	}
	conn, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, srv) }()
	return &PipeClient{Client: NewEraClient(conn, conn, era), conn: conn, done: done}, nil
}

// Close closes the client's end of the pipe and waits for the server to
// return, reporting its error.
func (c *PipeClient) Close() error {
	c.conn.Close()
	select {
	case err := <-c.done:
		return err
	case <-time.After(5 * time.Second):
		return errors.New("server did not return after its peer closed the pipe")
	}
}

// Median returns the median of xs, or 0 when there are none.
func Median[T float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func progress(cfg Config, format string, args ...any) {
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, format+"\n", args...)
	}
}
