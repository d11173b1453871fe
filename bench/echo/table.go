package echo

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes results as a table of medians: calls/s in each stdio
// and HTTP mode with its ratio to the floor of the same era, the server's
// CPU per call in each mode, its peak RSS over stdio and over HTTP, and the
// in-process cost of one round trip. When servers were measured in both
// eras, a second table gives the ratios of their 2026-07-28 costs to their
// legacy ones.
func WriteTable(w io.Writer, cfg Config, results []Result) error {
	floors := map[Era]*Result{}
	for i := range results {
		if results[i].Entry.Name == Floor {
			floors[results[i].Entry.Era] = &results[i]
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
		floor := floors[r.Entry.Era]
		cells := []string{r.Entry.String()}
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
	if err := writeEraRatios(w, cfg, results); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nMedians of %d rounds of %v per entry and mode, entries interleaved.\n"+
		"W is the number of tools/call requests in flight over one stdio connection.\n"+
		"C is the number of concurrent clients over Streamable HTTP in JSON-response mode,\n"+
		"each with one call in flight over its own keep-alive loopback connection.\n"+
		"CPU is the server process's utime+stime (/proc, 10 ms ticks) over the calls it served.\n"+
		"In-process: one call at a time over net.Pipe; allocs and bytes count the whole process,\n"+
		"the shared raw client included (it allocates nothing per call, so they are the server's).\n",
		cfg.Rounds, cfg.Duration)
	if err != nil {
		return err
	}
	modern := false
	for _, e := range cfg.Entries {
		modern = modern || e.Era == Modern
		if e.Era == Modern && e.Stateless != nil && len(cfg.HTTPClients) > 0 && err == nil {
			_, err = fmt.Fprintf(w, "%s over HTTP is its library's stateless handler (-stateless): its HTTP handler serves only the legacy era.\n", e)
		}
	}
	if modern && err == nil {
		_, err = fmt.Fprintf(w, "Rows without a version are legacy sessions (initialize, %s); %s rows send no initialize,\n"+
			"their _meta in every request, and over HTTP MCP-Protocol-Version, Mcp-Method and Mcp-Name;\n"+
			"every %s result is checked for resultType \"complete\" and the server's identity.\n",
			ProtocolVersion, ModernVersion, ModernVersion)
	}
	return err
}

// writeEraRatios writes, for each server measured in both eras, the ratio
// of its 2026-07-28 median to its legacy one: server CPU per call in each
// mode, and the in-process time and allocations. It writes nothing when no
// server was measured in both.
func writeEraRatios(w io.Writer, cfg Config, results []Result) error {
	legacy := map[string]*Result{}
	for i := range results {
		if results[i].Entry.Era == Legacy {
			legacy[results[i].Entry.Name] = &results[i]
		}
	}
	head := []string{ModernVersion + " ÷ legacy"}
	for _, win := range cfg.Windows {
		head = append(head, fmt.Sprintf("W=%d CPU/call", win))
	}
	for _, c := range cfg.HTTPClients {
		head = append(head, fmt.Sprintf("HTTP C=%d CPU/call", c))
	}
	if cfg.InProcess {
		head = append(head, "in-proc ns/op", "allocs/op")
	}
	var rows [][]string
	for _, r := range results {
		l := legacy[r.Entry.Name]
		if r.Entry.Era != Modern || l == nil {
			continue
		}
		cells := []string{r.Entry.Name}
		for k, sr := range r.Stdio {
			cells = append(cells, ratio(float64(Median(sr.CPUPerCall)), float64(Median(l.Stdio[k].CPUPerCall))))
		}
		for k, hr := range r.HTTP {
			cells = append(cells, ratio(float64(Median(hr.CPUPerCall)), float64(Median(l.HTTP[k].CPUPerCall))))
		}
		if cfg.InProcess {
			if r.InProcess != nil && l.InProcess != nil {
				cells = append(cells,
					ratio(Median(r.InProcess.NsPerOp), Median(l.InProcess.NsPerOp)),
					ratio(Median(r.InProcess.AllocsPerOp), Median(l.InProcess.AllocsPerOp)))
			} else {
				cells = append(cells, "-", "-")
			}
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, head)
	for _, cells := range rows {
		row(tw, cells)
	}
	return tw.Flush()
}

// ratio formats x/y with two decimals, or "-" when y is zero.
func ratio(x, y float64) string {
	if y == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x/y)
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
