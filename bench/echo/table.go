package echo

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes results as a table of medians: calls/s in each stdio
// and HTTP mode with its ratio to the floor, the server's CPU per call in
// each mode, its peak RSS over stdio and over HTTP, and the in-process cost
// of one round trip.
func WriteTable(w io.Writer, cfg Config, results []Result) error {
	var floor *Result
	for i := range results {
		if results[i].Server == Floor {
			floor = &results[i]
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var head []string
	head = append(head, "server")
	for _, win := range cfg.Windows {
		head = append(head, fmt.Sprintf("W=%d calls/s", win), "×floor")
	}
	for _, c := range cfg.HTTPClients {
		head = append(head, fmt.Sprintf("HTTP C=%d calls/s", c), "×floor")
	}
	for _, win := range cfg.Windows {
		head = append(head, fmt.Sprintf("W=%d CPU µs/call", win))
	}
	for _, c := range cfg.HTTPClients {
		head = append(head, fmt.Sprintf("HTTP C=%d CPU µs/call", c))
	}
	head = append(head, "stdio RSS MiB")
	if len(cfg.HTTPClients) > 0 {
		head = append(head, "HTTP RSS MiB")
	}
	if cfg.InProcess {
		head = append(head, "in-proc ns/op", "allocs/op", "B/op")
	}
	row(tw, head)
	for _, r := range results {
		cells := []string{r.Server}
		for k, sr := range r.Stdio {
			rate := Median(sr.CallsPerSec)
			ratio := "-"
			if floor != nil && k < len(floor.Stdio) {
				ratio = fmt.Sprintf("%.2f", rate/Median(floor.Stdio[k].CallsPerSec))
			}
			cells = append(cells, si(rate), ratio)
		}
		for k, hr := range r.HTTP {
			rate := Median(hr.CallsPerSec)
			ratio := "-"
			if floor != nil && k < len(floor.HTTP) {
				ratio = fmt.Sprintf("%.2f", rate/Median(floor.HTTP[k].CallsPerSec))
			}
			cells = append(cells, si(rate), ratio)
		}
		for _, sr := range r.Stdio {
			cells = append(cells, fmt.Sprintf("%.1f", micros(Median(sr.CPUPerCall))))
		}
		for _, hr := range r.HTTP {
			cells = append(cells, fmt.Sprintf("%.1f", micros(Median(hr.CPUPerCall))))
		}
		cells = append(cells, fmt.Sprintf("%.1f", float64(r.PeakRSS)/(1<<20)))
		if len(cfg.HTTPClients) > 0 {
			cells = append(cells, fmt.Sprintf("%.1f", float64(r.HTTPPeakRSS)/(1<<20)))
		}
		if cfg.InProcess {
			if ir := r.InProcess; ir != nil {
				cells = append(cells,
					fmt.Sprintf("%.0f", Median(ir.NsPerOp)),
					fmt.Sprintf("%.0f", Median(ir.AllocsPerOp)),
					fmt.Sprintf("%.0f", Median(ir.BytesPerOp)))
			} else {
				cells = append(cells, "-", "-", "-")
			}
		}
		row(tw, cells)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nMedians of %d rounds of %v per server and mode, servers interleaved.\n"+
		"W is the number of tools/call requests in flight over one stdio connection.\n"+
		"C is the number of concurrent MCP sessions over Streamable HTTP in JSON-response mode,\n"+
		"each with one call in flight over its own keep-alive loopback connection.\n"+
		"CPU is the server process's utime+stime (/proc, 10 ms ticks) over the calls it served.\n"+
		"In-process: one call at a time over net.Pipe; allocs and bytes count the whole process,\n"+
		"the shared raw client included (it allocates nothing per call, so they are the server's).\n",
		cfg.Rounds, cfg.Duration)
	return err
}

func row(w io.Writer, cells []string) {
	fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
}

// si formats a rate with a k suffix above a thousand.
func si(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%.1fk", x/1000)
	}
	return fmt.Sprintf("%.0f", x)
}
