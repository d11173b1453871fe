// Package tally holds what the hostile-client servers' tools have in
// common whatever the SDK: counting the slow tool's handlers, so a
// client can ask how many ran to the end, and the progress-spamming
// loop, which reports how far it got on stderr, the one channel a
// client that stopped reading stdout cannot block.
package tally

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Slow counts the handlers of the slow tool.
type Slow struct {
	started, running, completed atomic.Int64
}

// Sleep waits d or until ctx ends, counting the call as completed only
// when it waited the whole d.
func (s *Slow) Sleep(ctx context.Context, d time.Duration) error {
	s.started.Add(1)
	s.running.Add(1)
	defer s.running.Add(-1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		s.completed.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// String gives the counts as the count tool answers them; the harness
// parses this form.
func (s *Slow) String() string {
	return fmt.Sprintf("started=%d running=%d completed=%d", s.started.Load(), s.running.Load(), s.completed.Load())
}

// SpamEvery is how many notifications pass between two stderr reports.
const SpamEvery = 1000

// Spam calls send n times with a message of size bytes, reporting on
// stderr every SpamEvery sends ("spam SENT heap=BYTES"), and at the end
// ("spam done SENT" or "spam error SENT: ERR").
func Spam(n, size int, send func(i int, message string) error) error {
	msg := strings.Repeat("x", size)
	for i := range n {
		if i%SpamEvery == 0 {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Fprintf(os.Stderr, "spam %d heap=%d\n", i, m.HeapAlloc)
		}
		if err := send(i, msg); err != nil {
			fmt.Fprintf(os.Stderr, "spam error %d: %v\n", i, err)
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "spam done %d\n", n)
	return nil
}
