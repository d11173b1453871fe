package testutil

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps its failure instead of failing.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

// parkedLeak is a function name the failure must show the stack of.
func parkedLeak(stop chan struct{}) { <-stop }

func TestWaitGoroutinesReturnsOnceTheyEnd(t *testing.T) {
	b := Goroutines()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { parkedLeak(stop); close(done) }()
	close(stop)
	r := &recorder{TB: t}
	WaitGoroutines(r, b)
	if r.failed != "" {
		t.Errorf("WaitGoroutines failed: %s", r.failed)
	}
	<-done
}

func TestWaitGoroutinesShowsTheExtraOnes(t *testing.T) {
	defer func(d time.Duration) { goroutineWait = d }(goroutineWait)
	goroutineWait = 100 * time.Millisecond
	b := Goroutines()
	stop := make(chan struct{})
	// Several, since the goroutine of a test that just ended may still be
	// counted in b and make room for one.
	for range 5 {
		go parkedLeak(stop)
	}
	defer close(stop)
	r := &recorder{TB: t}
	WaitGoroutines(r, b)
	if !strings.Contains(r.failed, "testutil.parkedLeak") {
		t.Errorf("failure does not show the leaked goroutine:\n%s", r.failed)
	}
	if strings.Contains(r.failed, "TestWaitGoroutinesShowsTheExtraOnes(") {
		t.Errorf("failure shows the test's own goroutine, which was at the baseline:\n%s", r.failed)
	}
}

func TestGoroutineID(t *testing.T) {
	tests := []struct{ name, stack, want string }{
		{"running", "goroutine 7 [running]:\nmain.main()", "7"},
		{"waiting", "goroutine 123 [chan receive, 2 minutes]:\n", "123"},
		{"not a header", "created by main.main", ""},
		{"no number", "goroutine x [running]:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := goroutineID([]byte(tt.stack)); got != tt.want {
				t.Errorf("goroutineID(%q) = %q, want %q", tt.stack, got, tt.want)
			}
		})
	}
}
