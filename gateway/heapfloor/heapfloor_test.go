package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		name        string
		floor, live uint64
		base, want  int
	}{
		{"before the first cycle, the minimum goal is the floor", 32 * mib, 0, 100, 800},
		{"a tiny heap is held by the minimum goal", 32 * mib, 1 * mib, 100, 800},
		{"goal = live × (1 + p/100) = floor", 32 * mib, 8 * mib, 100, 300},
		{"from half the floor on, GOGC alone", 32 * mib, 16 * mib, 100, 100},
		{"a large heap keeps GOGC", 32 * mib, 1024 * mib, 100, 100},
		{"a higher GOGC is never lowered", 32 * mib, 8 * mib, 500, 500},
	} {
		if got := percentFor(c.floor, c.live, c.base); got != c.want {
			t.Errorf("%s: percentFor(%d MiB, %d MiB, %d) = %d, want %d", c.name, c.floor/mib, c.live/mib, c.base, got, c.want)
		}
	}
}

// gcPercent is the GOGC in force, read without changing it.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

var sink []byte

// churn allocates n bytes of garbage and returns the collections that
// ran meanwhile.
func churn(n int) uint64 {
	before := cycles()
	for range n / (64 << 10) {
		sink = make([]byte, 64<<10)
	}
	sink = nil
	return cycles() - before
}

// waitPercent waits for the keeper's hook, which runs after a cycle on
// the runtime's cleanup goroutine, to leave GOGC at want.
func waitPercent(t *testing.T, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); gcPercent() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC = %d, want %d", gcPercent(), want)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestFloorSpacesCycles(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	without := churn(256 * mib)

	undo := Set(64 * mib)
	runtime.GC()
	with := churn(256 * mib)
	undo()

	t.Logf("cycles while allocating 256 MiB: %d with GOGC=100, %d with a 64 MiB floor", without, with)
	if with*4 > without {
		t.Errorf("a 64 MiB floor left %d cycles, against %d without it: want a quarter or fewer", with, without)
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC after undo = %d, want 100 back", p)
	}
}

func TestFloorGivesWayToALargeHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	undo := Set(64 * mib)
	defer undo()
	waitPercent(t, 1600) // a small heap: the minimum goal is the floor

	live := make([][]byte, 48)
	for i := range live {
		live[i] = make([]byte, mib)
	}
	waitPercent(t, 100) // 48 MiB live: GOGC's own goal is above the floor
	runtime.KeepAlive(live)

	live = nil
	waitPercent(t, 1600)
}

func TestSetLeavesGCAloneWhenItWouldNotHelp(t *testing.T) {
	for _, c := range []struct {
		name    string
		gogc    int
		floor   uint64
		percent int
	}{
		{"collector off", -1, 64 * mib, -1},
		{"floor under GOGC's minimum goal", 400, 8 * mib, 400},
	} {
		old := debug.SetGCPercent(c.gogc)
		undo := Set(c.floor)
		runtime.GC()
		got := debug.SetGCPercent(old)
		undo()
		if got != c.percent {
			t.Errorf("%s: GOGC = %d after Set(%d MiB), want %d untouched", c.name, got, c.floor/mib, c.percent)
		}
	}
}

func TestUndoTwice(t *testing.T) {
	undo := Set(64 * mib)
	undo()
	debug.SetGCPercent(250)
	defer debug.SetGCPercent(100)
	undo()
	if p := gcPercent(); p != 250 {
		t.Errorf("a second undo set GOGC to %d, want 250 left as it was", p)
	}
}

// TestKeep: the floor is kept only when the environment leaves the
// collector's settings to the process.
func TestKeep(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		env  map[string]string
		kept bool
	}{
		{map[string]string{}, true},
		{map[string]string{"GOGC": "200"}, false},
		{map[string]string{"GOMEMLIMIT": "512MiB"}, false},
	} {
		undo, kept := Keep(func(k string) string { return c.env[k] })
		if kept != c.kept {
			t.Errorf("env %v: kept = %v, want %v", c.env, kept, c.kept)
		}
		if kept {
			waitPercent(t, Default*100/minHeap)
		} else if runtime.GC(); gcPercent() != 100 {
			t.Errorf("env %v: GOGC = %d, want it left at 100", c.env, gcPercent())
		}
		undo()
		if p := gcPercent(); p != 100 {
			t.Fatalf("env %v: GOGC after undo = %d, want 100", c.env, p)
		}
	}
}
