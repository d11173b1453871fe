package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// TestDifferentialOlderVersions runs the differential corpus (2026-07-28
// examples and their mutants) against the older schemas, for every
// definition the older version has under the same name: the verdict of
// ValidateVersion(v) after decoding must match santhosh-tekuri/jsonschema
// on version v's schema. It checks the version-dependent rules of the
// merged types: requiredness, variants and properties that exist only in
// some versions.
func TestDifferentialOlderVersions(t *testing.T) {
	o := newOracle(t)
	cases := corpus(t, o)
	for _, v := range []ProtocolVersion{Version20251125, Version20250618, Version20250326, Version20241105} {
		t.Run(string(v), func(t *testing.T) {
			path := sharedtest.SchemaPath(t, string(v))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			defsKey := "$defs"
			if _, ok := doc.(map[string]any)["definitions"]; ok {
				defsKey = "definitions"
			}
			defs := doc.(map[string]any)[defsKey].(map[string]any)
			c := jsonschema.NewCompiler()
			c.AssertFormat()
			c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(x any) error {
				if s, ok := x.(string); ok {
					_, err := base64.StdEncoding.DecodeString(s)
					return err
				}
				return nil
			}})
			url := "https://mcpgen.test/" + string(v) + ".json"
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			compiled := map[string]*jsonschema.Schema{}
			var disagree []string
			checked := 0
			for _, cs := range cases {
				if _, ok := defs[cs.def]; !ok {
					continue
				}
				sch := compiled[cs.def]
				if sch == nil {
					if sch, err = c.Compile(url + "#/" + defsKey + "/" + cs.def); err != nil {
						t.Fatal(err)
					}
					compiled[cs.def] = sch
				}
				want := sch.Validate(decodeNumbers(t, cs.data)) == nil
				got := generatedVersion(cs.def, cs.data, v)
				checked++
				if (got == nil) != want {
					if _, ok := olderDifference(cs, want); ok {
						continue
					}
					if cs.mut != nil && cs.mut.kind != "drop" && !declared(doc, defsKey, cs.def, cs.mut.steps) {
						// Decoding does not depend on the version: a property
						// that only newer versions declare is decoded by its
						// declared type even in an older message, whose schema
						// would take any value there.
						continue
					}
					disagree = append(disagree, cs.name+": schema accepts="+boolString(want)+", generated: "+errString(got))
				}
			}
			sort.Strings(disagree)
			if len(disagree) > 0 {
				t.Errorf("%d of %d instances judged differently:\n%s", len(disagree), checked, strings.Join(disagree, "\n"))
			}
			if checked == 0 {
				t.Fatal("no instance checked")
			}
		})
	}
}

func generatedVersion(def string, data []byte, v ProtocolVersion) error {
	m := newMessage(def)
	if err := json.Unmarshal(data, m); err != nil {
		return err
	}
	return m.ValidateVersion(v)
}

// olderDifference reports the intended differences on older versions.
func olderDifference(cs corpusCase, accepts bool) (string, bool) {
	if d, ok := knownDifference(cs.def, cs.mut, accepts); ok {
		return d.reason, true
	}
	return "", false
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func errString(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// declared reports whether every member name on the path is declared by
// the schema of definition def in doc (in properties, through $ref, allOf,
// anyOf and items).
func declared(doc any, defsKey, def string, steps []step) bool {
	root := doc.(map[string]any)
	defs := root[defsKey].(map[string]any)
	nodes := []any{defs[def]}
	for _, st := range steps {
		var next []any
		for _, n := range expand(defs, nodes) {
			m, ok := n.(map[string]any)
			if !ok {
				continue
			}
			switch st := st.(type) {
			case int:
				if items, ok := m["items"]; ok {
					next = append(next, items)
				}
			case string:
				if props, ok := m["properties"].(map[string]any); ok {
					if p, ok := props[st]; ok {
						next = append(next, p)
					}
				}
				if ap, ok := m["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
					next = append(next, ap)
				}
			}
		}
		if len(next) == 0 {
			return false
		}
		nodes = next
	}
	return true
}

// expand follows $ref and flattens allOf and anyOf.
func expand(defs map[string]any, nodes []any) []any {
	var out []any
	for depth := 0; depth < 16 && len(nodes) > 0; depth++ {
		var more []any
		for _, n := range nodes {
			m, ok := n.(map[string]any)
			if !ok {
				continue
			}
			if ref, ok := m["$ref"].(string); ok {
				more = append(more, defs[ref[strings.LastIndexByte(ref, '/')+1:]])
				continue
			}
			out = append(out, m)
			for _, k := range []string{"allOf", "anyOf"} {
				if subs, ok := m[k].([]any); ok {
					more = append(more, subs...)
				}
			}
		}
		nodes = more
	}
	return out
}
