package hostile

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/bench/hostile/servers/mcpgen/tools"
)

// serverEnv, set in the environment, makes the test binary the mcpgen
// server instead, so the tests need not build one.
const serverEnv = "HOSTILE_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		tools.Main()
	}
	os.Exit(m.Run())
}

// TestCheapCases runs two cheap cases on the mcpgen server, the pipelined start on stdio and the HTTP+SSE identity check, so
// that the harness keeps building and running as the runtime changes. It
// checks that the cases ran, not what they found: the findings are what
// command hostile reports.
func TestCheapCases(t *testing.T) {
	t.Cleanup(KillAll)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(serverEnv, "mcpgen")
	s := Server{Name: "mcpgen", Bin: bin}
	rows := append(PipelinedStart(t.Context(), s), LegacyIdentity(t.Context(), s)...)
	if len(rows) != 4 {
		t.Fatalf("got %d rows, want 3 of the pipelined start and 1 of identity: %v", len(rows), rows)
	}
	for _, r := range rows {
		if strings.HasPrefix(r.Value, "error") || r.Value == "" {
			t.Errorf("%s: %q", r.Label, r.Value)
		}
	}
	if got := rows[0].Value; got != "5× ok" {
		t.Errorf("%s: %q, want every initialize answered", rows[0].Label, got)
	}
}

func TestTableWrite(t *testing.T) {
	tb := NewTable([]string{"a", "b"})
	tb.Add("a", []Row{{"1. x", "one"}, {"1. y", "two|three"}})
	tb.Add("b", []Row{{"1. x", "uno"}})
	var out strings.Builder
	if err := tb.Write(&out); err != nil {
		t.Fatal(err)
	}
	want := `| case | a          | b   |
|------|------------|-----|
| 1. x | one        | uno |
| 1. y | two\|three | -   |
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
