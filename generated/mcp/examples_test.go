package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// example is one valid message from the shared examples folder.
type example struct {
	def  string // the definition it is an instance of
	name string
	data []byte
}

func loadExamples(t testing.TB) []example {
	dir := sharedtest.ExamplesDir(t, "2026-07-28")
	defs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, d := range defs {
		files, _ := filepath.Glob(filepath.Join(dir, d.Name(), "*.json"))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, example{def: d.Name(), name: d.Name() + "/" + filepath.Base(f), data: data})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no examples in %s", dir)
	}
	return out
}

func asAny(t testing.TB, data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// TestExamplesRoundTrip decodes every shared example into the type its
// folder names, validates it and encodes it again to the same JSON.
func TestExamplesRoundTrip(t *testing.T) {
	for _, ex := range loadExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			v := newMessage(ex.def)
			if v == nil {
				t.Fatalf("no type %s", ex.def)
			}
			if err := json.Unmarshal(ex.data, v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if err := v.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if got, want := asAny(t, out), asAny(t, ex.data); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip changed the message\n got: %s\nwant: %s", out, ex.data)
			}
		})
	}
}
