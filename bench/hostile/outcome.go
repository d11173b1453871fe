package hostile

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// batch tallies the outcomes of many calls sent at once.
type batch struct {
	mu     sync.Mutex
	n      int // calls sent
	start  time.Time
	ok     int
	errs   int
	first  error     // the first error other than the deadline
	last   time.Time // when the last outcome came
	closed int       // calls the server's end of the stream ended before
	done   chan struct{}
}

// newBatch starts tallying n calls sent from now on.
func newBatch(n int) *batch { return &batch{n: n, start: time.Now(), done: make(chan struct{})} }

// add records one outcome; err nil is a result.
func (b *batch) add(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case err == nil:
		b.ok++
	case err == context.DeadlineExceeded || err == context.Canceled:
		return
	case err == errClosed || err == errStreamEnded:
		b.closed++
	default:
		b.errs++
		if b.first == nil {
			b.first = err
		}
	}
	b.last = time.Now()
	if b.ok+b.errs+b.closed == b.n {
		close(b.done)
	}
}

// wait waits for every outcome or for ctx to end.
func (b *batch) wait(ctx context.Context) {
	select {
	case <-b.done:
	case <-ctx.Done():
	}
}

// String reports the tally: results, errors, and the time taken, or
// "stuck" when some calls had no outcome by the deadline.
func (b *batch) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := fmt.Sprintf("%d of %d results", b.ok, b.n)
	if b.errs > 0 {
		s += fmt.Sprintf(", %d errors (%s)", b.errs, clip(b.first.Error(), 50))
	}
	if b.closed > 0 {
		s += fmt.Sprintf(", %d cut off", b.closed)
	}
	select {
	case <-b.done:
		return s + " in " + secs(b.last.Sub(b.start))
	default:
		return s + fmt.Sprintf(": stuck (%s later)", secs(time.Since(b.start)))
	}
}

// counts are the slow tool's counters, as the count tool reports them.
type counts struct {
	started, running, completed int
}

// parseCounts reads the count tool's text.
func parseCounts(m *message) (counts, error) {
	var c counts
	_, err := fmt.Sscanf(m.text(), "started=%d running=%d completed=%d", &c.started, &c.running, &c.completed)
	if err != nil {
		return c, fmt.Errorf("count tool answered %q: %w", m.text(), err)
	}
	return c, nil
}

// awaitRunning polls count until n slow handlers run, for up to d.
func awaitRunning(ctx context.Context, count func(context.Context) (counts, error), n int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		c, err := count(ctx)
		if err != nil {
			return fmt.Errorf("waiting for %d slow handlers: %w", n, err)
		}
		if c.running >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d slow handlers: %d running after %s", n, c.running, secs(d))
		case <-time.After(20 * time.Millisecond):
		}
	}
}
