// Package testutil holds helpers that mcpgen's tests share across
// packages.
package testutil

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// goroutineWait is how long WaitGoroutines lets goroutines take to end. It
// is generous on purpose: it bounds a wait for work that is already
// stopping, on a loaded machine under -race, and costs nothing when the
// goroutines are gone sooner. It is not a timing assertion. A variable so
// that this package's own tests can fail fast.
var goroutineWait = 20 * time.Second

// Baseline is the set of goroutines running at some moment of a test.
type Baseline struct {
	n   int
	ids map[string]bool
}

// Goroutines records the goroutines running now, for a later
// WaitGoroutines to compare against.
func Goroutines() Baseline {
	b := Baseline{ids: map[string]bool{}}
	for _, g := range stacks() {
		b.ids[goroutineID(g)] = true
	}
	b.n = runtime.NumGoroutine()
	return b
}

// WaitGoroutines waits until no more goroutines run than at b, polling.
// If they have not come back down by a generous deadline it fails t, with
// the stacks of the goroutines that were not running at b.
//
// It compares counts, not identities, so a goroutine of b that ends makes
// room for one started since: it finds leaks, not every stray goroutine.
func WaitGoroutines(t testing.TB, b Baseline) {
	t.Helper()
	deadline := time.Now().Add(goroutineWait)
	for {
		n := runtime.NumGoroutine()
		if n <= b.n {
			return
		}
		if time.Now().After(deadline) {
			var extra [][]byte
			for _, g := range stacks() {
				if !b.ids[goroutineID(g)] {
					extra = append(extra, g)
				}
			}
			t.Errorf("%d goroutines still running after %v, %d at the baseline; the ones started since:\n\n%s",
				n, goroutineWait, b.n, bytes.Join(extra, []byte("\n\n")))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// NoLeak records the goroutines running now and, when the test ends,
// waits for the count to come back down to it (see WaitGoroutines). Call
// it before starting anything the test's other cleanups stop: cleanups run
// last-registered first, so the check runs after them.
func NoLeak(t testing.TB) {
	t.Helper()
	b := Goroutines()
	t.Cleanup(func() { WaitGoroutines(t, b) })
}

// stacks returns the stack of every goroutine, one entry each.
func stacks() [][]byte {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Split(bytes.TrimSpace(buf[:n]), []byte("\n\n"))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineID returns the number in a stack's "goroutine N [state]:"
// header, or "" when the header is not of that form.
func goroutineID(stack []byte) string {
	rest, ok := bytes.CutPrefix(stack, []byte("goroutine "))
	if !ok {
		return ""
	}
	id, _, _ := bytes.Cut(rest, []byte(" "))
	if _, err := strconv.Atoi(string(id)); err != nil {
		return ""
	}
	return string(id)
}
