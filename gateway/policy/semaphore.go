package policy

import (
	"context"
	"fmt"
)

// Semaphore bounds the calls in flight to one upstream. A nil *Semaphore
// bounds nothing.
type Semaphore struct {
	upstream string
	slots    chan struct{}
}

// NewSemaphore returns a Semaphore of n slots, nil when n is zero or less.
func NewSemaphore(upstream string, n int) *Semaphore {
	if n <= 0 {
		return nil
	}
	return &Semaphore{upstream: upstream, slots: make(chan struct{}, n)}
}

// Acquire waits for a slot until ctx is done (give ctx the upstream's
// timeout), and returns the function that frees it.
func (s *Semaphore) Acquire(ctx context.Context) (release func(), err error) {
	if s == nil {
		return func() {}, nil
	}
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("upstream %s: all %d call slots busy: %w", s.upstream, cap(s.slots), ctx.Err())
	}
}
