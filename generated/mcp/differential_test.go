package mcp

import (
	"strings"
	"testing"
)

// difference is a class of instances that the generated code judges
// differently from the schema on purpose: the mutants of def at path or
// below it, where the schema says accepts.
type difference struct {
	def     string // the example's definition
	path    string // the mutated path, or a path above it
	accepts bool   // what the schema says of those mutants
	reason  string
}

// knownDifferences lists every intended disagreement between the generated
// code and the schema, as santhosh-tekuri/jsonschema reads it.
// TestDifferential fails on entries that no longer match anything.
var knownDifferences = []difference{
	{"CallToolResultResponse", "result", true, resultTypeDecodes},
	{"GetPromptResultResponse", "result", true, resultTypeDecodes},
	{"ReadResourceResultResponse", "result", true, resultTypeDecodes},
	{"ServerResult", "", true, resultTypeDecodes},
}

// resultTypeDecodes is why the result unions disagree with the schema.
const resultTypeDecodes = "resultType chooses the variant a result decodes as, and decoding fails when the value " +
	"does not have the JSON shape of that variant (a property of the wrong kind, a nested union without a variant); " +
	"the schema accepts such a result through a variant that allows any member (InputRequiredResult, Result). " +
	"Validation does follow the schema's anyOf: a result that decodes but breaks its own variant's rules is accepted " +
	"when its JSON is valid as another variant"

// knownDifference returns the entry that covers mutant mu of def when the
// schema's verdict on it is accepts.
func knownDifference(def string, mu *mutant, accepts bool) (*difference, bool) {
	if mu == nil {
		return nil, false
	}
	for i := range knownDifferences {
		d := &knownDifferences[i]
		if d.def == def && d.accepts == accepts && under(mu.path, d.path) {
			return d, true
		}
	}
	return nil, false
}

// under reports whether path is at or below the JSON path top; every path
// is below the empty one, the whole message.
func under(path, top string) bool {
	if top == "" {
		return true
	}
	if !strings.HasPrefix(path, top) {
		return false
	}
	rest := path[len(top):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// TestDifferential checks the generated decoder and validators against
// santhosh-tekuri/jsonschema on every example and every mutant of
// TestMutants: the oracle accepts an instance exactly when it decodes and
// validates for 2026-07-28.
func TestDifferential(t *testing.T) {
	o := newOracle(t)
	used := map[*difference]bool{}
	for _, c := range corpus(t, o) {
		inst := decodeNumbers(t, c.data)
		want := o.valid(t, "/$defs/"+pointerToken(c.def), inst)
		err := generated(c.def, c.data)
		d, known := knownDifference(c.def, c.mut, want)
		if known && (err == nil) != want {
			used[d] = true
		}
		t.Run(c.name, func(t *testing.T) {
			switch {
			case (err == nil) == want:
			case known:
				t.Skipf("known difference: %s", d.reason)
			case want:
				t.Fatalf("the schema accepts it, the generated code says: %v\n%s", err, c.data)
			default:
				t.Fatalf("the schema rejects it, the generated code accepts it\n%s", c.data)
			}
		})
	}
	for i := range knownDifferences {
		if d := &knownDifferences[i]; !used[d] {
			t.Errorf("known difference %s %s (schema accepts: %v) matched nothing; remove it", d.def, d.path, d.accepts)
		}
	}
}
