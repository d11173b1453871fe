// Package heapfloor keeps Go's garbage collector from running while the
// heap is small, for a process that allocates fast and keeps little, as a
// gateway does: each call allocates tens of kilobytes that are garbage
// once it is answered, while the live heap stays at a few megabytes. With
// the runtime's defaults a cycle then starts every 4 MiB allocated, some
// fifty times a second at a few thousand calls a second, and each cycle
// takes processor time from the calls in flight.
//
// Set raises the heap goal to a floor while the live heap is small and
// gives the goal back to GOGC as the live heap grows towards the floor,
// so that a process with a large heap uses no more memory than GOGC
// allows it. It retunes the collector after every cycle, from the
// runtime's own cleanup machinery: it starts no goroutine.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the floor mcpgen-gateway keeps unless GOGC or GOMEMLIMIT is
// set in its environment: 32 MiB.
const Default = 32 << 20

// Keep is Set(Default) for a process whose environment leaves the
// collector's settings to it: when GOGC or GOMEMLIMIT is set, whoever set
// it has chosen how the collector runs, and Keep does nothing and reports
// false.
func Keep(getenv func(string) string) (undo func(), kept bool) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}, false
	}
	return Set(Default), true
}

// minHeap is the runtime's heap goal for a small live heap at GOGC=100;
// it scales with GOGC (runtime/mgcpacer.go, defaultHeapMinimum).
const minHeap = 4 << 20

// keeper retunes GOGC after each collection.
type keeper struct {
	floor uint64
	base  int // GOGC when Set was called

	mu      sync.Mutex
	stopped bool
	percent int // what keeper last set
	sample  [1]metrics.Sample
}

// Set keeps the collector's heap goal at floor bytes or more while GOGC
// would set it lower, and returns a function that stops doing so and
// restores GOGC. It does nothing when the collector is off (GOGC=off), or
// when floor is no more than the goal GOGC already gives a small heap.
// GOMEMLIMIT still bounds the heap: near the limit the collector runs
// whatever the goal.
func Set(floor uint64) (undo func()) {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base <= 0 || floor <= minHeap*uint64(base)/100 {
		return func() {}
	}
	k := &keeper{floor: floor, base: base, percent: base}
	k.sample[0].Name = "/gc/heap/live:bytes"
	k.adjust()
	k.arm()
	return k.stop
}

// sentinel is allocated for each cycle and freed by it; its cleanup is
// the keeper's hook. It holds pointers so that the runtime does not
// place it in a block shared with other small objects, whose cleanups
// may never run.
type sentinel struct{ _, _ *byte }

// arm has adjust run after the next collection, and arm again.
func (k *keeper) arm() {
	runtime.AddCleanup(new(sentinel), func(k *keeper) {
		if k.adjust() {
			k.arm()
		}
	}, k)
}

// adjust sets GOGC for the live heap the last cycle left: as high as it
// takes for the goal to reach the floor, but not so high that the
// runtime's minimum goal, which grows with GOGC, passes the floor. It
// reports false once the keeper is stopped.
func (k *keeper) adjust() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return false
	}
	metrics.Read(k.sample[:])
	var live uint64
	if k.sample[0].Value.Kind() == metrics.KindUint64 {
		live = k.sample[0].Value.Uint64()
	}
	p := percentFor(k.floor, live, k.base)
	if p != k.percent {
		debug.SetGCPercent(p)
		k.percent = p
	}
	return true
}

// percentFor is the GOGC that makes the heap goal of a live heap reach
// floor, within [base, the GOGC whose minimum goal is the floor].
func percentFor(floor, live uint64, base int) int {
	most := int(floor * 100 / minHeap)
	if live == 0 {
		return max(most, base)
	}
	p := int(floor*100/live) - 100
	return max(min(p, most), base)
}

// stop restores GOGC; the hook armed last finds the keeper stopped and
// does not arm again.
func (k *keeper) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return
	}
	k.stopped = true
	debug.SetGCPercent(k.base)
}
