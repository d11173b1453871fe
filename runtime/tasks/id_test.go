package tasks

import (
	"strings"
	"testing"
)

func TestIDs(t *testing.T) {
	const n = 4096
	s, _ := newTestStore(t, Options{MaxTasks: n, MaxPerOwner: n})
	ids := make([]string, n)
	seen := make(map[string]bool, n)
	for i := range ids {
		id := mustCreate(t, s, "alice", CreateParams{}).ID
		if seen[id] {
			t.Fatalf("id %s issued twice", id)
		}
		seen[id] = true
		ids[i] = id
	}

	// 26 base32 characters: 130 bits, far past guessing.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	for _, id := range ids {
		if len(id) != 26 || strings.Trim(id, alphabet) != "" {
			t.Fatalf("id %q is not 26 base32 characters", id)
		}
	}
	// Every position is uniformly random: over 4096 ids each of the 32
	// symbols turns up in each position (missing one by chance has a
	// probability near 26*32*(31/32)^4096, below 1e-50).
	for pos := range 26 {
		symbols := make(map[byte]bool)
		for _, id := range ids {
			symbols[id[pos]] = true
		}
		if len(symbols) != len(alphabet) {
			t.Errorf("position %d shows %d of 32 symbols: not uniformly random", pos, len(symbols))
		}
	}
	// Not sequential: consecutive ids share no more of a prefix than
	// chance gives (8 characters: 1e-12 a pair, 4e-9 a run).
	for i := 1; i < n; i++ {
		a, b := ids[i-1], ids[i]
		common := 0
		for common < len(a) && a[common] == b[common] {
			common++
		}
		if common >= 8 {
			t.Errorf("ids %s and %s share a %d-character prefix", a, b, common)
		}
	}
}
