// Command cluster measures examples/everything behind nginx round-robin
// (cluster/up.sh) with 1, 2 and 3 replicas sharing one Redis, and with one
// replica keeping its state in memory: tool calls a second through nginx,
// and processor time (user and system, from /proc/PID/stat) per call, of
// the replicas together and of redis-server, for legacy sessions and for
// 2026-07-28 calls. It prints a Markdown table; progress goes to stderr.
//
//	cd bench && go run ./cluster
//	go run ./cluster -clients 16 -duration 10s
//
// Each row starts a cluster of its own and stops it (cluster/down.sh).
// Calls that fail are counted, not timed, and the processor time is
// divided among the calls that succeeded; a legacy client whose session
// cannot be opened stops. Through round-robin, a legacy session's calls
// fail on every replica but the one that opened it until the runtime
// serves a session on every replica. The load generator runs on the same
// machine, so with few cores the numbers are relative.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/internal/cluster"
)

// setup is one row's cluster and protocol era.
type setup struct {
	replicas int
	store    string // "redis" or "memory"
	era      string // "legacy" or "modern"
}

// setups are the rows, in order: in-memory state is coherent only within
// one replica, so it runs with one.
var setups = []setup{
	{1, "memory", "legacy"}, {1, "redis", "legacy"}, {2, "redis", "legacy"}, {3, "redis", "legacy"},
	{1, "memory", "modern"}, {1, "redis", "modern"}, {2, "redis", "modern"}, {3, "redis", "modern"},
}

// result is what one row measured.
type result struct {
	setup
	ok, failed  int64
	elapsed     time.Duration
	replicaCPU  time.Duration
	redisCPU    time.Duration
	firstFailed string
}

func main() {
	clients := flag.Int("clients", 8, "concurrent clients, each with its own legacy session")
	duration := flag.Duration("duration", 5*time.Second, "how long each row's calls run, after a warm-up of a second")
	scripts := flag.String("scripts", "", "the folder of cluster/up.sh (default: found above the working directory)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *scripts, *clients, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, scripts string, clients int, duration time.Duration) error {
	if scripts == "" {
		var err error
		if scripts, err = findScripts(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "mcpgen-bench-cluster")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// One build for every row.
	bin := filepath.Join(tmp, "everything")
	build := exec.CommandContext(ctx, "go", "build", "-C", filepath.Join(filepath.Dir(scripts), "examples"), "-o", bin, "./everything")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./examples/everything: %w\n%s", err, out)
	}

	var results []result
	for i, s := range setups {
		fmt.Fprintf(os.Stderr, "cluster: %d replica(s), %s store, %s calls\n", s.replicas, s.store, s.era)
		r, err := measure(ctx, scripts, filepath.Join(tmp, fmt.Sprint("row", i)), bin, s, clients, duration)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	printTable(os.Stdout, results, clients, duration)
	return nil
}

// findScripts returns the cluster folder of the repository holding the
// working directory.
func findScripts() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "cluster", "up.sh")); err == nil {
			return filepath.Join(dir, "cluster"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no cluster/up.sh above the working directory; give -scripts")
		}
		dir = parent
	}
}

// measure starts the row's cluster, warms it up, runs the clients for
// duration and stops the cluster.
func measure(ctx context.Context, scripts, dir, bin string, s setup, clients int, duration time.Duration) (res result, err error) {
	res.setup = s
	c, err := cluster.Up(ctx, scripts, dir, s.replicas, s.store, bin)
	if err != nil {
		return res, err
	}
	defer func() {
		if derr := c.Down(); err == nil {
			err = derr
		}
	}()
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}

	// Warm-up: a second of calls, not counted, so that connections, pools
	// and the replicas' heaps are in place.
	load(ctx, httpc, c.URL, s.era, clients, time.Second)
	before, err := cpu(c)
	if err != nil {
		return res, err
	}
	start := time.Now()
	st := load(ctx, httpc, c.URL, s.era, clients, duration)
	res.elapsed = time.Since(start)
	after, err := cpu(c)
	if err != nil {
		return res, err
	}
	res.ok, res.failed, res.firstFailed = st.ok.Load(), st.failed.Load(), st.firstFailed
	res.replicaCPU, res.redisCPU = after.replicas-before.replicas, after.redis-before.redis
	return res, nil
}

// cpuTimes is the processor time the replicas, together, and Redis used.
type cpuTimes struct{ replicas, redis time.Duration }

func cpu(c *cluster.Cluster) (cpuTimes, error) {
	var t cpuTimes
	for i := range c.Replicas {
		pid, err := c.Pid(i + 1)
		if err != nil {
			return t, err
		}
		d, err := cluster.CPUTime(pid)
		if err != nil {
			return t, err
		}
		t.replicas += d
	}
	if c.RedisAddr != "" {
		pid, err := c.RedisPid()
		if err != nil {
			return t, err
		}
		d, err := cluster.CPUTime(pid)
		if err != nil {
			return t, err
		}
		t.redis = d
	}
	return t, nil
}

// stats counts the calls of one load run.
type stats struct {
	ok, failed  atomic.Int64
	mu          sync.Mutex
	firstFailed string
}

func (st *stats) fail(why string) {
	st.failed.Add(1)
	st.mu.Lock()
	if st.firstFailed == "" {
		st.firstFailed = why
	}
	st.mu.Unlock()
}

// load runs clients concurrent clients calling test_simple_text through
// url for d: each legacy client in a session of its own, opened first.
func load(ctx context.Context, httpc *http.Client, url, era string, clients int, d time.Duration) *stats {
	st := &stats{}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			var sid string
			if era == "legacy" {
				var err error
				if sid, err = initialize(ctx, httpc, url); err != nil {
					st.fail(err.Error())
					return
				}
			}
			for id := 1; ctx.Err() == nil; id++ {
				err := callTool(ctx, httpc, url, era, sid, id)
				switch {
				case ctx.Err() != nil:
					// The run ended mid-call: neither counted nor failed.
				case err != nil:
					st.fail(err.Error())
				default:
					st.ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return st
}

const legacyVersion = "2025-11-25"

// initialize opens a legacy session and returns its id.
func initialize(ctx context.Context, httpc *http.Client, url string) (string, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"bench-cluster","version":"1"}}}`
	resp, data, err := post(ctx, httpc, url, body, nil)
	if err != nil {
		return "", err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: HTTP %d, session %q: %.200s", resp.StatusCode, sid, data)
	}
	hdr := []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion}
	if resp, data, err = post(ctx, httpc, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: HTTP %d: %.200s", resp.StatusCode, data)
	}
	return sid, nil
}

// callTool calls test_simple_text and checks that a result came back.
func callTool(ctx context.Context, httpc *http.Client, url, era, sid string, id int) error {
	var body string
	var hdr []string
	if era == "legacy" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, id)
		hdr = []string{"Mcp-Session-Id", sid, "MCP-Protocol-Version", legacyVersion}
	} else {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-cluster","version":"1"}},"name":"test_simple_text","arguments":{}}}`, id)
		hdr = []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "test_simple_text"}
	}
	resp, data, err := post(ctx, httpc, url, body, hdr)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(data, []byte(`"result"`)) {
		return fmt.Errorf("tools/call: HTTP %d: %.200s", resp.StatusCode, bytes.TrimSpace(data))
	}
	return nil
}

// post sends body with the headers given in pairs and reads the whole
// answer, JSON or SSE.
func post(ctx context.Context, httpc *http.Client, url, body string, hdr []string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// printTable writes the results as a Markdown table.
func printTable(w io.Writer, results []result, clients int, d time.Duration) {
	fmt.Fprintf(w, "%d clients, %v a row, test_simple_text through nginx round-robin\n\n", clients, d)
	fmt.Fprintln(w, "| replicas | store | era | calls/s | failed | replica CPU/ok call | Redis CPU/ok call | first failure |")
	fmt.Fprintln(w, "|---:|---|---|---:|---:|---:|---:|---|")
	for _, r := range results {
		perCall := func(t time.Duration) string {
			if r.ok == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f µs", float64(t.Microseconds())/float64(r.ok))
		}
		redis := perCall(r.redisCPU)
		if r.store == "memory" {
			redis = "-"
		}
		var first []byte
		if r.firstFailed != "" {
			why := []rune(r.firstFailed)
			if len(why) > 100 {
				why = append(why[:100], '…')
			}
			first, _ = json.Marshal(string(why))
		}
		fmt.Fprintf(w, "| %d | %s | %s | %.0f | %d | %s | %s | %s |\n", r.replicas, r.store, r.era,
			float64(r.ok)/r.elapsed.Seconds(), r.failed, perCall(r.replicaCPU), redis, first)
	}
}
