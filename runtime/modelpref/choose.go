// Package modelpref picks the model a host uses for a sampling request,
// from the request's modelPreferences and a catalogue of the models the
// host can actually run. It follows the sampling page of the
// specification: hints are tried in the server's order and decide when
// one matches, and the cost, speed and intelligence priorities weigh the
// candidates otherwise, or among the models one hint matched equally.
//
// Preferences are advisory, so Choose picks a model whenever the
// catalogue has one; a host that wants to refuse a request does so on its
// own grounds.
package modelpref

import (
	"math"
	"strings"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Model is one entry of the host's catalogue.
//
// Cost, Speed and Intelligence are scores from 0 to 1 relative to the
// rest of the catalogue, oriented so that higher is always better: 1 is
// the cheapest, the fastest, the most capable. (The orientation matches
// the priorities, where a higher costPriority prefers cheaper models.)
// Scores outside 0..1 are clamped, and NaN counts as 0.
type Model struct {
	// Name is the model's identifier, such as "claude-3-5-sonnet-20241022";
	// hints are matched against it.
	Name string
	// Family groups the models that can stand in for one another, such as
	// "claude-sonnet". Hints are matched against it too, and a hint that
	// names a model the host lacks, such as "claude-3-sonnet-20240229",
	// reaches the models whose family words ("claude", "sonnet") all occur
	// in it. A host that maps another provider's models, as the
	// specification allows, gives its own models the families to match:
	// for example "gemini-pro" for a model that should answer hints for
	// gemini-1.5-pro. Empty means no family.
	Family string
	// Cost is 1 for the cheapest model, 0 for the most expensive.
	Cost float64
	// Speed is 1 for the lowest latency, 0 for the highest.
	Speed float64
	// Intelligence is 1 for the most capable model, 0 for the least.
	Intelligence float64
}

// Choose returns the model of catalogue that best meets prefs, and false
// only when catalogue is empty. It never modifies its arguments.
//
// Hints are tried in order, and the first that matches any model decides
// the candidates; later hints and unmatched models are not considered.
// A hint matches, case-insensitively and in this order of strength:
//
//  1. as a substring of a model's Name;
//  2. as a substring of a model's Family;
//  3. when every word of a model's Family (split at "-", "_", ".", "/"
//     and spaces) is a substring of the hint: the host lacks the hinted
//     model and offers one of its family instead.
//
// Only the models matching at the strongest level present are candidates,
// so a host that has the hinted model itself never substitutes a relative.
// Empty hints are skipped. When no hint matches, every model is a
// candidate.
//
// Among the candidates, the one with the highest
// costPriority·Cost + speedPriority·Speed + intelligencePriority·Intelligence
// wins. Priorities outside 0..1 are clamped to it and NaN counts as 0,
// rather than refused, because preferences are advisory and a server's
// bad number should not cost the user an answer; a host that wants to
// reject such a request can call prefs.Validate first.
//
// Ties, including the all-zero weighing of nil prefs or of preferences
// that set no priority, go to the candidate that comes first in the
// catalogue: list the host's default model first. Scores within 1e-9 of
// each other count as tied, so that the result does not hang on rounding.
func Choose(prefs *mcp.ModelPreferences, catalogue []Model) (Model, bool) {
	if len(catalogue) == 0 {
		return Model{}, false
	}
	var w weights
	var hints []mcp.ModelHint
	if prefs != nil {
		w = weights{
			cost:         clamp(prefs.CostPriority),
			speed:        clamp(prefs.SpeedPriority),
			intelligence: clamp(prefs.IntelligencePriority),
		}
		hints = prefs.Hints
	}
	for _, h := range hints {
		if candidates := matching(h.Name, catalogue); len(candidates) > 0 {
			return catalogue[w.best(catalogue, candidates)], true
		}
	}
	all := make([]int, len(catalogue))
	for i := range all {
		all[i] = i
	}
	return catalogue[w.best(catalogue, all)], true
}

// The strengths of a hint's match, strongest first.
const (
	matchName = iota
	matchFamily
	matchFamilyWords
	noMatch
)

// matching returns the indexes of the models that hint matches at the
// strongest level any of them reaches, in catalogue order.
func matching(hint string, catalogue []Model) []int {
	hint = strings.ToLower(strings.TrimSpace(hint))
	if hint == "" {
		return nil
	}
	strongest := noMatch
	var out []int
	for i, m := range catalogue {
		s := strength(hint, m)
		if s < strongest {
			strongest, out = s, out[:0]
		}
		if s == strongest && s != noMatch {
			out = append(out, i)
		}
	}
	return out
}

// strength rates how hint, lowercased and not empty, matches m.
func strength(hint string, m Model) int {
	family := strings.ToLower(m.Family)
	switch {
	case strings.Contains(strings.ToLower(m.Name), hint):
		return matchName
	case strings.Contains(family, hint):
		return matchFamily
	}
	words := strings.FieldsFunc(family, isSeparator)
	if len(words) == 0 {
		return noMatch
	}
	for _, word := range words {
		if !strings.Contains(hint, word) {
			return noMatch
		}
	}
	return matchFamilyWords
}

func isSeparator(r rune) bool {
	switch r {
	case '-', '_', '.', '/', ' ':
		return true
	}
	return false
}

// weights are a request's priorities, each within 0..1.
type weights struct {
	cost, speed, intelligence float64
}

// tieTolerance is how close two scores must be to count as tied.
const tieTolerance = 1e-9

// best returns the candidate index with the highest score, the first on
// a tie. candidates is not empty and in catalogue order.
func (w weights) best(catalogue []Model, candidates []int) int {
	best := candidates[0]
	bestScore := w.score(catalogue[best])
	for _, i := range candidates[1:] {
		if s := w.score(catalogue[i]); s > bestScore+tieTolerance {
			best, bestScore = i, s
		}
	}
	return best
}

func (w weights) score(m Model) float64 {
	return w.cost*clamp(m.Cost) + w.speed*clamp(m.Speed) + w.intelligence*clamp(m.Intelligence)
}

// clamp brings v within 0..1, with NaN as 0.
func clamp(v float64) float64 {
	switch {
	case math.IsNaN(v), v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}
