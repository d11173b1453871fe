package hostile

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Options adjust the cases.
type Options struct {
	// Watch is how long case 6 waits for a server to close the
	// connections it holds open. Zero means DefaultWatch.
	Watch time.Duration
}

// DefaultWatch is Options.Watch left zero: long enough for the usual
// read and idle timeouts of an HTTP server, short enough to keep the
// whole run within minutes.
const DefaultWatch = 75 * time.Second

// Cases returns the cases in their order, numbered as the table shows
// them.
func Cases(o Options) []Case {
	watch := o.Watch
	if watch <= 0 {
		watch = DefaultWatch
	}
	return []Case{
		{"1", SamplingStdio, 45 * time.Second},
		{"2", SamplingHTTP, 40 * time.Second},
		{"3", CancelStorm, 60 * time.Second},
		{"4", NonReadingBoth, 120 * time.Second},
		{"5", CaseVariantCancel, 30 * time.Second},
		{"6", SlowConns(watch), watch + 60*time.Second},
		{"7", LegacyIdentity, 20 * time.Second},
		{"8", Shutdown, 50 * time.Second},
		{"9", SessionCap, 100 * time.Second},
		{"10", PipelinedStart, 40 * time.Second},
		{"11", StartTime, 60 * time.Second},
	}
}

// Shutdown is case 8: SIGTERM with calls in flight, on stdio and then on
// HTTP.
func Shutdown(ctx context.Context, s Server) []Row {
	return append(ShutdownStdio(ctx, s), ShutdownHTTP(ctx, s)...)
}

// NonReadingBoth is case 4: a client that stops reading, on stdio and
// then on HTTP.
func NonReadingBoth(ctx context.Context, s Server) []Row {
	return append(NonReading(ctx, s), NonReadingHTTP(ctx, s)...)
}

// Run runs every case against every server, one at a time, writing a
// line to progress as each run ends, and returns the table.
func Run(ctx context.Context, cases []Case, servers []Server, progress io.Writer) *Table {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	t := NewTable(names)
	for _, c := range cases {
		for _, s := range servers {
			start := time.Now()
			t.Add(s.Name, runOne(ctx, c, s))
			fmt.Fprintf(progress, "case %s on %s: %s\n", c.ID, s.Name, secs(time.Since(start)))
		}
	}
	return t
}

// runOne runs c against s under c.Limit. A run that does not return
// within a few seconds past its limit is reported as stuck, and its
// server processes are killed, so that the next run starts clean.
func runOne(parent context.Context, c Case, s Server) []Row {
	ctx, cancel := context.WithTimeout(parent, c.Limit)
	defer cancel()
	done := make(chan []Row, 1)
	go func() { done <- c.Run(ctx, s) }()
	select {
	case rows := <-done:
		return rows
	case <-parent.Done():
		KillAll()
		return nil
	case <-time.After(c.Limit + 5*time.Second):
		KillAll()
		return []Row{{fmt.Sprintf("%s. (the whole case)", c.ID), fmt.Sprintf("stuck: no report in %s", secs(c.Limit))}}
	}
}
