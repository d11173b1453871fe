package modelpref

import (
	"math"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// catalogue is a host that runs Claude and Gemini models. Each model is
// best at exactly one thing, so that each priority has a clear winner.
var catalogue = []Model{
	{Name: "claude-3-5-sonnet-20241022", Family: "claude-sonnet", Cost: 0.4, Speed: 0.5, Intelligence: 0.8},
	{Name: "claude-3-haiku-20240307", Family: "claude-haiku", Cost: 0.9, Speed: 0.7, Intelligence: 0.4},
	{Name: "opus-4-20250514", Family: "claude-opus", Cost: 0.1, Speed: 0.2, Intelligence: 1.0},
	{Name: "gemini-1.5-flash", Family: "gemini-flash", Cost: 0.8, Speed: 1.0, Intelligence: 0.3},
	{Name: "gemini-1.5-pro", Family: "gemini-pro", Cost: 0.3, Speed: 0.4, Intelligence: 0.7},
	{Name: "local-llama", Cost: 1.0, Speed: 0.3, Intelligence: 0.2},
}

func hints(names ...string) []mcp.ModelHint {
	out := make([]mcp.ModelHint, len(names))
	for i, n := range names {
		out[i] = mcp.ModelHint{Name: n}
	}
	return out
}

func TestChoose(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		prefs     *mcp.ModelPreferences
		catalogue []Model // nil: the shared catalogue
		want      string  // "" when nothing can be chosen
	}{
		{name: "empty catalogue", prefs: &mcp.ModelPreferences{Hints: hints("claude")}, catalogue: []Model{}, want: ""},
		{name: "nil prefs: the first model", prefs: nil, want: "claude-3-5-sonnet-20241022"},
		{name: "no hints, no priorities: the first model", prefs: &mcp.ModelPreferences{}, want: "claude-3-5-sonnet-20241022"},

		// Hints.
		{name: "exact name", prefs: &mcp.ModelPreferences{Hints: hints("gemini-1.5-pro")}, want: "gemini-1.5-pro"},
		{name: "substring of a name, any case", prefs: &mcp.ModelPreferences{Hints: hints("HAIKU")}, want: "claude-3-haiku-20240307"},
		{name: "first hint wins over later ones", prefs: &mcp.ModelPreferences{Hints: hints("flash", "haiku")}, want: "gemini-1.5-flash"},
		{name: "first hint wins over the priorities", prefs: &mcp.ModelPreferences{Hints: hints("opus", "flash"), SpeedPriority: 1}, want: "opus-4-20250514"},
		{name: "unmatched hints are skipped", prefs: &mcp.ModelPreferences{Hints: hints("gpt-4o", "", "pro")}, want: "gemini-1.5-pro"},
		{name: "hint matching the family only", prefs: &mcp.ModelPreferences{Hints: hints("claude-opus")}, want: "opus-4-20250514"},
		{
			name:  "a missing model maps to its family",
			prefs: &mcp.ModelPreferences{Hints: hints("claude-3-opus-20240229")},
			want:  "opus-4-20250514",
		},
		{
			name:  "the spec's example: claude-3-sonnet, then claude",
			prefs: &mcp.ModelPreferences{Hints: hints("claude-3-sonnet", "claude"), CostPriority: 0.3, SpeedPriority: 0.8, IntelligencePriority: 0.5},
			want:  "claude-3-5-sonnet-20241022",
		},
		{
			name:  "a name match beats a family substitute",
			prefs: &mcp.ModelPreferences{Hints: hints("claude-haiku-next")},
			catalogue: []Model{
				{Name: "claude-haiku", Family: "claude-haiku"},
				{Name: "claude-haiku-next-1", Family: "claude-haiku"},
			},
			want: "claude-haiku-next-1",
		},
		{
			name:  "priorities decide among the models one hint matches",
			prefs: &mcp.ModelPreferences{Hints: hints("claude"), SpeedPriority: 1},
			want:  "claude-3-haiku-20240307",
		},
		{
			name:  "a family-only match is not mixed with name matches",
			prefs: &mcp.ModelPreferences{Hints: hints("claude"), IntelligencePriority: 1},
			// opus matches by family only; the sonnet and haiku names match.
			want: "claude-3-5-sonnet-20241022",
		},

		// Priorities, when no hint matches.
		{name: "no hint matches: cost decides", prefs: &mcp.ModelPreferences{Hints: hints("gpt-4o"), CostPriority: 1}, want: "local-llama"},
		{name: "speed dominates", prefs: &mcp.ModelPreferences{SpeedPriority: 1, CostPriority: 0.1}, want: "gemini-1.5-flash"},
		{name: "intelligence dominates", prefs: &mcp.ModelPreferences{IntelligencePriority: 1, SpeedPriority: 0.1}, want: "opus-4-20250514"},
		{name: "cost dominates", prefs: &mcp.ModelPreferences{CostPriority: 1, IntelligencePriority: 0.1}, want: "local-llama"},
		{name: "a balance of priorities", prefs: &mcp.ModelPreferences{CostPriority: 0.5, SpeedPriority: 0.5, IntelligencePriority: 0.5}, want: "gemini-1.5-flash"},

		// Ties.
		{
			name:  "equal scores: catalogue order",
			prefs: &mcp.ModelPreferences{SpeedPriority: 1},
			catalogue: []Model{
				{Name: "a", Speed: 0.5},
				{Name: "b", Speed: 0.5},
			},
			want: "a",
		},
		{
			name:  "scores equal up to rounding: catalogue order",
			prefs: &mcp.ModelPreferences{CostPriority: 1, SpeedPriority: 1},
			catalogue: []Model{
				{Name: "a", Cost: 0.3},
				{Name: "b", Cost: 0.1, Speed: 0.2}, // 0.1+0.2 > 0.3 in float64
			},
			want: "a",
		},
		{
			name:  "equal hint matches: catalogue order",
			prefs: &mcp.ModelPreferences{Hints: hints("gemini")},
			want:  "gemini-1.5-flash",
		},

		// Invalid numbers. Each case picks another model than the
		// unclamped arithmetic would.
		{
			// Unclamped, speed would outweigh everything and pick flash;
			// clamped to 1, sonnet and flash tie at 1.3.
			name:  "priority above 1 is clamped",
			prefs: &mcp.ModelPreferences{SpeedPriority: 7, IntelligencePriority: 1},
			want:  "claude-3-5-sonnet-20241022",
		},
		{
			// Unclamped, -5 would make the most expensive model win.
			name:  "negative priority counts as 0",
			prefs: &mcp.ModelPreferences{CostPriority: -5, SpeedPriority: 0.1},
			want:  "gemini-1.5-flash",
		},
		{
			// Unclamped, every score would be NaN and the first model win.
			name:  "NaN priority counts as 0",
			prefs: &mcp.ModelPreferences{CostPriority: nan, SpeedPriority: 0.1},
			want:  "gemini-1.5-flash",
		},
		{
			name:  "model scores outside 0..1 are clamped",
			prefs: &mcp.ModelPreferences{CostPriority: 1},
			catalogue: []Model{
				{Name: "nan", Cost: nan},
				{Name: "honest", Cost: 1},
				{Name: "inflated", Cost: 50},
			},
			want: "honest",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := tt.catalogue
			if cat == nil {
				cat = catalogue
			}
			got, ok := Choose(tt.prefs, cat)
			if tt.want == "" {
				if ok {
					t.Fatalf("Choose = %q, want none", got.Name)
				}
				return
			}
			if !ok || got.Name != tt.want {
				t.Fatalf("Choose = %q, %v; want %q", got.Name, ok, tt.want)
			}
		})
	}
}

// The result must not depend on anything but the arguments: the same call
// gives the same answer, and the catalogue is left as it was.
func TestChooseLeavesCatalogue(t *testing.T) {
	cat := append([]Model{}, catalogue...)
	prefs := &mcp.ModelPreferences{Hints: hints("claude"), SpeedPriority: 1}
	first, _ := Choose(prefs, cat)
	for range 10 {
		if got, _ := Choose(prefs, cat); got != first {
			t.Fatalf("Choose = %q, then %q", first.Name, got.Name)
		}
	}
	for i := range cat {
		if cat[i] != catalogue[i] {
			t.Fatalf("catalogue[%d] changed to %+v", i, cat[i])
		}
	}
}
