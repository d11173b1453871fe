package hostile

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Row is one line of what a case reports about one server.
type Row struct {
	Label, Value string
}

// Case is one hostile behaviour, run against one server at a time.
type Case struct {
	// ID is the case's number, as -cases names it.
	ID string
	// Run plays the client against s and reports what happened. It
	// returns when it is done or ctx ends, and kills what it started.
	Run func(ctx context.Context, s Server) []Row
	// Limit is the deadline of one Run, a guard above the deadlines of
	// its own phases.
	Limit time.Duration
}

// failed is the report of a case that could not run its client at all.
func failed(label string, err error) []Row {
	return []Row{{label, "error: " + clip(err.Error(), 80)}}
}

// Table collects the rows of every case and server.
type Table struct {
	servers []string
	labels  []string // in the order first seen
	cells   map[[2]string]string
}

// NewTable returns a table with one column per server.
func NewTable(servers []string) *Table {
	return &Table{servers: servers, cells: make(map[[2]string]string)}
}

// Add records the rows of one run of a case on server.
func (t *Table) Add(server string, rows []Row) {
	for _, r := range rows {
		k := [2]string{r.Label, server}
		if _, seen := t.cells[k]; !seen {
			if !t.hasLabel(r.Label) {
				t.labels = append(t.labels, r.Label)
			}
		}
		t.cells[k] = r.Value
	}
}

func (t *Table) hasLabel(l string) bool {
	for _, x := range t.labels {
		if x == l {
			return true
		}
	}
	return false
}

// Write writes the table as Markdown, a cell a server never reported
// shown as "-" and any "|" escaped.
func (t *Table) Write(w io.Writer) error {
	header := append([]string{"case"}, t.servers...)
	rows := [][]string{header}
	for _, l := range t.labels {
		row := []string{strings.ReplaceAll(l, "|", `\|`)}
		for _, s := range t.servers {
			v, ok := t.cells[[2]string{l, s}]
			if !ok {
				v = "-"
			}
			v = strings.ReplaceAll(v, "|", `\|`)
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	width := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for n, r := range rows {
		for i, c := range r {
			fmt.Fprintf(&b, "| %-*s ", width[i], c)
		}
		b.WriteString("|\n")
		if n == 0 {
			for i := range r {
				b.WriteString("|" + strings.Repeat("-", width[i]+2))
			}
			b.WriteString("|\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clip shortens s to n bytes, marking the cut, and keeps it on one
// line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + "…"
	}
	return s
}

// secs formats d in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// millis formats d in milliseconds.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// mb formats a byte count in megabytes.
func mb(n int64) string { return fmt.Sprintf("%d MB", n>>20) }
