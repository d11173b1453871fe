package client

import "testing"

// TestToolBookCountsOutputs: the count that lets a result skip the
// outputSchema lookup follows tools listed again with or without one.
func TestToolBookCountsOutputs(t *testing.T) {
	var b toolBook
	check := func(want int32) {
		t.Helper()
		if got := b.outputs.Load(); got != want {
			t.Fatalf("outputs = %d, want %d", got, want)
		}
	}
	validate := func([]byte) error { return nil }
	b.put("a", &toolInfo{output: validate})
	b.put("b", &toolInfo{})
	check(1)
	b.put("a", &toolInfo{output: validate}) // listed again, still with one
	check(1)
	b.put("b", &toolInfo{output: validate})
	check(2)
	b.put("a", &toolInfo{}) // its outputSchema is gone
	check(1)
}
