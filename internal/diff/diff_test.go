package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/model"
)

func build(t *testing.T, version, src string) *model.Model {
	t.Helper()
	file := filepath.Join(t.TempDir(), version, "schema.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := pipeline.Model([]pipeline.Schema{{Version: version, File: file}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompare checks each kind of change on two small schemas, and the text
// form of the report.
func TestCompare(t *testing.T) {
	old := build(t, "2025-01-01", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
		"Gone": {"type": "object", "properties": {"a": {"type": "string"}}},
		"Item": {"type": "object", "properties": {
			"name": {"type": "string"}, "count": {"type": "integer"}, "old": {"type": "boolean"}}, "required": ["name"]},
		"Color": {"type": "string", "enum": ["red", "green"]},
		"Shape": {"type": "string"}
	}}`)
	new := build(t, "2025-02-02", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
		"Item": {"type": "object", "properties": {
			"name": {"type": "string"}, "count": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["name", "count"]},
		"Color": {"type": "string", "enum": ["red", "blue"]},
		"Shape": {"type": "object", "properties": {"sides": {"type": "integer"}}},
		"Fresh": {"type": "object", "properties": {"b": {"type": "string"}}}
	}}`)
	r := Compare("old", old, "new", new)
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  + Fresh (struct)\n",
		"  - Gone (struct)\n",
		"  ~ Shape: kind primitive -> struct\n",
		"  ~ Item.count: required optional -> required\n",
		"  ~ Item.count: type integer -> number\n",
		"  - Item.old (boolean, optional)\n",
		"  + Item.tags ([]string, optional)\n",
		"  + Color=blue\n",
		"  - Color=green\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "Item.name") {
		t.Errorf("unchanged field reported:\n%s", b.String())
	}
	again := Compare("old", old, "new", new)
	var b2 strings.Builder
	again.WriteText(&b2)
	if b.String() != b2.String() {
		t.Error("two comparisons differ")
	}
	if n := len(Compare("x", new, "x", new).Changes); n != 0 {
		t.Errorf("a model against itself: %d changes", n)
	}
}
