package echo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// StartResult is how long one server's program took to start: a sample
// per spawn, each from just before the process is started to the arrival
// of its answer to initialize, the first thing a client waits for.
type StartResult struct {
	Server string
	Times  []time.Duration
}

// Starts spawns each server's program n times with -stdio, the servers
// taking turns so that drift on a shared machine hits all of them alike,
// and times each spawn's first answer. Each process is closed before the
// next one starts. progress, if not nil, receives a line per round.
func Starts(ctx context.Context, bins map[string]string, servers []Server, n int, progress io.Writer) ([]StartResult, error) {
	results := make([]StartResult, len(servers))
	for i, s := range servers {
		if _, ok := bins[s.Name]; !ok {
			return nil, fmt.Errorf("starts: no binary for %s", s.Name)
		}
		results[i].Server = s.Name
	}
	for r := range n {
		for _, i := range rotate(len(servers), r) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := StartOnce(bins[servers[i].Name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", servers[i].Name, err)
			}
			results[i].Times = append(results[i].Times, d)
		}
		if progress != nil && (r+1)%10 == 0 {
			fmt.Fprintf(progress, "starts: %d of %d rounds\n", r+1, n)
		}
	}
	return results, nil
}

// StartOnce runs bin -stdio, sends initialize, and returns the time from
// just before the start of the process to the arrival of the answer. It
// then closes the process.
func StartOnce(bin string) (time.Duration, error) {
	t0 := time.Now()
	p, err := Start(bin, Legacy)
	if err != nil {
		return 0, err
	}
	_, err = p.Call("initialize", initializeParams)
	d := time.Since(t0)
	if err != nil {
		err = fmt.Errorf("initialize: %w; stderr: %s", err, p.Stderr())
	}
	return d, errors.Join(err, p.Close())
}

// Quantile returns the q-quantile of xs (0 ≤ q ≤ 1) by the nearest-rank
// method, or 0 when there are none.
func Quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// WriteStarts writes the start times as a table: median and 90th
// percentile per server, and the medians' ratios to the floor's and to
// go-sdk's (gosdk), where those were measured.
func WriteStarts(w io.Writer, results []StartResult) error {
	medians := map[string]time.Duration{}
	for _, r := range results {
		medians[r.Server] = Median(r.Times)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, []string{"server", "start ms (median)", "p90", "×floor", "×gosdk"})
	for _, r := range results {
		m := medians[r.Server]
		row(tw, []string{r.Server, ms(m), ms(Quantile(r.Times, 0.9)),
			ratio(float64(m), float64(medians[Floor])), ratio(float64(m), float64(medians["gosdk"]))})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	n := 0
	if len(results) > 0 {
		n = len(results[0].Times)
	}
	_, err := fmt.Fprintf(w, "\n%d spawns per server, servers taking turns: from just before the process starts\n"+
		"(-stdio) to the answer to initialize, the first message a client waits for.\n", n)
	return err
}
