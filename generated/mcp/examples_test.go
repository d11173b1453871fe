package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// example is one valid message: an official one from the shared examples
// folder, or one of this package's own in testdata/examples, which add the
// cases the official ones leave out (such as a complete result without
// properties its schema requires, which the schema still accepts through
// the open InputRequiredResult).
type example struct {
	version string // the protocol version the message is of
	def     string // the definition it is an instance of
	name    string
	data    []byte
}

// localExamples is the folder of this package's own examples, laid out as
// the shared one: <version>/<Definition>/*.json.
const localExamples = "testdata/examples"

// exampleRoots returns the examples folders, the shared one first.
func exampleRoots(t testing.TB) []string {
	return []string{filepath.Join(sharedtest.Dir(t), "examples"), localExamples}
}

// exampleVersions lists the versions that have examples in any folder, in
// order.
func exampleVersions(t testing.TB) []string {
	seen := map[string]bool{}
	for _, root := range exampleRoots(t) {
		dirs, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if d.IsDir() {
				seen[d.Name()] = true
			}
		}
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// examplesOf returns the examples of version, the official ones first.
func examplesOf(t testing.TB, version string) []example {
	var out []example
	for i, root := range exampleRoots(t) {
		dir := filepath.Join(root, version)
		defs, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		prefix := ""
		if i > 0 {
			prefix = "local/"
		}
		for _, d := range defs {
			files, _ := filepath.Glob(filepath.Join(dir, d.Name(), "*.json"))
			sort.Strings(files)
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, example{version: version, def: d.Name(), name: prefix + d.Name() + "/" + filepath.Base(f), data: data})
			}
		}
	}
	return out
}

// loadExamples returns the 2026-07-28 examples, the corpus of the
// differential, mutation and fuzz tests.
func loadExamples(t testing.TB) []example {
	out := examplesOf(t, schemaVersion)
	if len(out) == 0 {
		t.Fatalf("no %s examples", schemaVersion)
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

// TestExamplesRoundTrip decodes every example, of every version that has
// examples, into the type its folder names, validates it for its version,
// encodes it again to the same JSON (every property present stays present),
// and decodes that to a value that encodes to the same bytes.
func TestExamplesRoundTrip(t *testing.T) {
	total := 0
	for _, version := range exampleVersions(t) {
		v := ProtocolVersion(version)
		if !v.Supported() {
			t.Errorf("examples of %s, a version this package does not know", version)
			continue
		}
		for _, ex := range examplesOf(t, version) {
			total++
			t.Run(version+"/"+ex.name, func(t *testing.T) {
				msg := newMessage(ex.def)
				if msg == nil {
					t.Fatalf("no type %s", ex.def)
				}
				if err := json.Unmarshal(ex.data, msg); err != nil {
					t.Fatalf("decode: %v", err)
				}
				if err := msg.ValidateVersion(v); err != nil {
					t.Fatalf("validate: %v", err)
				}
				out, err := json.Marshal(msg)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				if got, want := asAny(t, out), asAny(t, ex.data); !reflect.DeepEqual(got, want) {
					t.Fatalf("round trip changed the message\n got: %s\nwant: %s", out, ex.data)
				}
				again := newMessage(ex.def)
				if err := json.Unmarshal(out, again); err != nil {
					t.Fatalf("decode again: %v", err)
				}
				if again, err := json.Marshal(again); err != nil || !bytes.Equal(again, out) {
					t.Fatalf("decoding the encoding gave another value: %s (%v)\nwant %s", again, err, out)
				}
			})
		}
	}
	if total == 0 {
		t.Fatal("no examples")
	}
}
