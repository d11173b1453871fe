package schema

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/model"
)

// setters lists Type.Field for every field the model gave a setter.
func setters(m *model.Model) []string {
	var out []string
	for _, t := range m.Types {
		for _, f := range t.Fields {
			if f.Setter != "" {
				out = append(out, t.Name+"."+f.Setter)
			}
		}
	}
	return out
}

// TestSettersOfTheProtocol pins the setters of the five merged schemas:
// ttlMs is an integer that only 2026-07-28 has and requires, on the five
// cacheable results that older versions also define. DiscoverResult's
// ttlMs needs none: the type exists only in 2026-07-28, so a value built
// in Go always carries it.
func TestSettersOfTheProtocol(t *testing.T) {
	m := lowerAll(t, allVersions...)
	want := []string{
		"ListPromptsResult.SetTTLMs",
		"ListResourceTemplatesResult.SetTTLMs",
		"ListResourcesResult.SetTTLMs",
		"ListToolsResult.SetTTLMs",
		"ReadResourceResult.SetTTLMs",
	}
	if got := setters(m); !slices.Equal(got, want) {
		t.Errorf("setters %v, want %v", got, want)
	}
}

// loadTemp writes one schema per version into a temporary folder and
// builds their model.
func loadTemp(t *testing.T, schemas map[string]string) (*model.Model, error) {
	t.Helper()
	dir := t.TempDir()
	var versions []string
	for v := range schemas {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	var docs []*Document
	for _, v := range versions {
		path := filepath.Join(dir, v+".json")
		if err := os.WriteFile(path, []byte(schemas[v]), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	return Lower(versions, docs)
}

const pageSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"Page":{"type":"object","properties":%s,"required":%s}}}`

func page(props, required string) string {
	return strings.Replace(strings.Replace(pageSchema, "%s", props, 1), "%s", required, 1)
}

// TestNeedsSetter checks the rule property by property, over two versions.
func TestNeedsSetter(t *testing.T) {
	m, err := loadTemp(t, map[string]string{
		"2025-11-25": page(`{"items":{"type":"array","items":{"type":"string"}},"count":{"type":"integer"},"legacy":{"type":"boolean"},"depth":{"type":"integer"},"limit":{"type":"integer"}}`,
			`["items","count","legacy"]`),
		"2026-07-28": page(`{"items":{"type":"array","items":{"type":"string"}},"count":{"type":"integer"},"legacy":{"type":"boolean"},"depth":{"type":"integer"},"limit":{"type":"integer"},`+
			`"ttl":{"type":"integer"},"fresh":{"type":"boolean"},"ratio":{"type":"number"},"title":{"type":"string"},"next":{"type":["integer","null"]},"kind":{"const":1},"sub":{"type":"object"}}`,
			`["items","count","depth","ttl","fresh","ratio","title","next","kind"]`),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ttl":    "SetTTL",    // integer, new and required
		"fresh":  "SetFresh",  // boolean, new and required
		"ratio":  "SetRatio",  // number, new and required
		"legacy": "SetLegacy", // boolean, required only in the older version
		"count":  "",          // required throughout: always carried
		"depth":  "",          // optional before, required in the newest: always carried
		"limit":  "",          // never required
		"items":  "",          // an array: nil says absent
		"title":  "",          // a string: "" says absent
		"next":   "",          // nullable: nil says absent
		"kind":   "",          // a constant
		"sub":    "",          // an object: nil says absent
	}
	p := m.Lookup("Page")
	if p == nil {
		t.Fatal("no Page")
	}
	for _, f := range p.Fields {
		w, ok := want[f.JSON]
		if !ok {
			t.Errorf("unexpected property %q", f.JSON)
			continue
		}
		if f.Setter != w {
			t.Errorf("%s: setter %q, want %q", f.JSON, f.Setter, w)
		}
		delete(want, f.JSON)
	}
	for name := range want {
		t.Errorf("no property %q", name)
	}
}

// TestSetterCollision wants a clear error, at the property, when a
// setter's name is already a field's.
func TestSetterCollision(t *testing.T) {
	_, err := loadTemp(t, map[string]string{
		"2025-11-25": page(`{"items":{"type":"array","items":{"type":"string"}}}`, `["items"]`),
		"2026-07-28": page(`{"items":{"type":"array","items":{"type":"string"}},"ttl":{"type":"integer"},"setTtl":{"type":"string"}}`, `["items","ttl"]`),
	})
	const want = `Page: property "ttl" needs the setter SetTTL, already the field of property "setTtl"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Lower: %v, want an error containing %q", err, want)
	}
	e, ok := err.(*model.Error)
	if !ok {
		t.Fatalf("error %T is not a *Error", err)
	}
	if !strings.HasSuffix(e.Pos.File, "2026-07-28.json") || e.Pos.Pointer != "/$defs/Page/properties/ttl" {
		t.Errorf("error at %s, want 2026-07-28.json#/$defs/Page/properties/ttl", e.Pos)
	}
}
