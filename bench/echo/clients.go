package echo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"text/tabwriter"
	"time"
)

// ClientsResult is what [Clients] measured: what clients that came, made
// their calls and went away left behind in a server. Bytes and goroutines
// are of the whole process, after garbage collection, relative to the
// baseline taken before the first client came.
type ClientsResult struct {
	Entry Entry
	// Clients is how many clients came and went, Concurrency how many at
	// a time, and Calls how many echo calls each made.
	Clients, Concurrency, Calls int
	// HeapPerClient and StackPerClient are the heap bytes and goroutine
	// stack bytes in use per client once they had all gone.
	HeapPerClient, StackPerClient float64
	// GoroutinesPerClient is the goroutines left per client.
	GoroutinesPerClient float64
	// Sessions is how many sessions the handler still counts as running,
	// or -1 when it does not say.
	Sessions int
	// Elapsed is how long the clients took, all of them.
	Elapsed time.Duration
}

// Clients serves e's Streamable HTTP handler ([Entry.Handler]) in this
// process on a loopback httptest server, and has n distinct clients,
// concurrency at a time, come and go: each opens its own connection, makes
// calls echo calls in e's era (a legacy client initializes first; a
// 2026-07-28 one names itself client-N in its clientInfo) and goes away by
// closing its connection, without DELETE, as a client that crashes or
// simply finishes does. It then measures what the server still holds.
//
// A server that keeps nothing per client is back at the baseline; one that
// keeps legacy sessions holds them until they expire or are deleted.
func Clients(ctx context.Context, e Entry, n, calls, concurrency int) (res ClientsResult, err error) {
	if n < 1 || calls < 1 || concurrency < 1 {
		return res, errors.New("clients: need at least one client, one call and one worker")
	}
	h, err := e.Handler()
	if err != nil {
		return res, err
	}
	if c, ok := h.(interface{ Close() error }); ok {
		defer func() { err = errors.Join(err, c.Close()) }()
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux) // listens on 127.0.0.1
	defer ts.Close()
	url := ts.URL + "/mcp"

	client := func(i int) error {
		hc := NewHTTPClient(1)
		defer hc.CloseIdleConnections()
		s, err := NewEraHTTPSession(hc, url, e.Era, fmt.Sprintf("client-%d", i))
		if err != nil {
			return err
		}
		if e.Era == Legacy {
			if _, err := s.Initialize(); err != nil {
				return fmt.Errorf("client %d: %w", i, err)
			}
		}
		for range calls {
			if err := s.Echo(); err != nil {
				return fmt.Errorf("client %d: %w", i, err)
			}
		}
		return nil
	}
	// Warm up: pools, the server's first-use state, and the code paths,
	// with clients that count in the baseline.
	for i := range concurrency {
		if err := client(-1 - i); err != nil {
			return res, fmt.Errorf("warm up: %w", err)
		}
	}
	base, err := settle(ctx, nil, -1)
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := each(ctx, concurrency, n, func(_, i int) error { return client(i) }); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	// The server's connection goroutines end as it sees each client's
	// close: wait for the goroutines to come back to the baseline, or to
	// stop falling.
	after, err := settle(ctx, nil, base.goroutines)
	if err != nil {
		return res, err
	}
	res.Entry, res.Clients, res.Concurrency, res.Calls = e, n, concurrency, calls
	res.HeapPerClient = float64(int64(after.heap)-int64(base.heap)) / float64(n)
	res.StackPerClient = float64(int64(after.stack)-int64(base.stack)) / float64(n)
	res.GoroutinesPerClient = float64(after.goroutines-base.goroutines) / float64(n)
	res.Sessions = -1
	if sc, ok := h.(interface{ SessionCount() int }); ok {
		res.Sessions = sc.SessionCount()
	}
	return res, nil
}

// WriteClients writes what Clients measured, a row per entry.
func WriteClients(w io.Writer, results []ClientsResult) error {
	if len(results) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, []string{"after the clients left", "heap B/client", "stack B/client", "goroutines/client", "sessions running"})
	for _, r := range results {
		sessions := "-"
		if r.Sessions >= 0 {
			sessions = fmt.Sprint(r.Sessions)
		}
		row(tw, []string{r.Entry.String(),
			fmt.Sprintf("%.0f", r.HeapPerClient), fmt.Sprintf("%.0f", r.StackPerClient),
			fmt.Sprintf("%.2f", r.GoroutinesPerClient), sessions})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r := results[0]
	_, err := fmt.Fprintf(w, "\n%d clients per row, %d at a time, each on its own connection (in process, loopback,\n"+
		"JSON responses), made %d echo calls and closed the connection without DELETE; legacy clients\n"+
		"initialized first, %s clients each named themselves in clientInfo. Whole-process heap and\n"+
		"stacks after GC, relative to before the first client; \"-\": the handler does not count sessions.\n",
		r.Clients, r.Concurrency, r.Calls, ModernVersion)
	return err
}
