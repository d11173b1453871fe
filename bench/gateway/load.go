package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// sample is what one load run measured.
type sample struct {
	calls    int
	elapsed  time.Duration
	p50, p99 time.Duration
	// cpu is the processor time this process used during the run: the
	// callers', and the gateway's when the calls went through it.
	cpu time.Duration
}

// cpuPerCall is the processor time of this process per call.
func (s sample) cpuPerCall() time.Duration {
	if s.calls == 0 {
		return 0
	}
	return s.cpu / time.Duration(s.calls)
}

// perSec is the run's completed calls a second.
func (s sample) perSec() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.calls) / s.elapsed.Seconds()
}

// load runs every caller on a goroutine of its own, one call after
// another, until d has passed (d > 0) or n calls were made in all (n > 0),
// timing each call. The first failed call ends the run with its error.
func load(ctx context.Context, callers []caller, d time.Duration, n int64) (sample, error) {
	if len(callers) == 0 {
		return sample{}, errNoCallers
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		mu       sync.Mutex
		firstErr error
		lat      = make([][]time.Duration, len(callers))
		wg       sync.WaitGroup
	)
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(d)
	for i, c := range callers {
		lat[i] = make([]time.Duration, 0, 1024)
		wg.Go(func() {
			for ctx.Err() == nil {
				if n > 0 && next.Add(1) > n {
					return
				}
				t0 := time.Now()
				if d > 0 && t0.After(deadline) {
					return
				}
				if err := c.call(ctx); err != nil {
					mu.Lock()
					if firstErr == nil && ctx.Err() == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	s := sample{elapsed: time.Since(start), cpu: processCPU() - cpu0}
	if firstErr != nil {
		return s, firstErr
	}
	if err := ctx.Err(); err != nil {
		return s, err // the caller's ctx ended
	}
	all := slices.Concat(lat...)
	s.calls = len(all)
	if s.calls == 0 {
		return s, fmt.Errorf("no call completed in %v", s.elapsed)
	}
	slices.Sort(all)
	s.p50, s.p99 = quantile(all, 0.50), quantile(all, 0.99)
	return s, nil
}

// quantile returns the q-quantile of sorted xs, by nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// heapInUse returns the live heap, after two collections so that
// finalizers and freed spans have settled.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
