package model

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/parser/schema"
)

var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func sharedDir(t testing.TB) string {
	dir := os.Getenv("MCPGEN_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "schema")); err != nil {
		t.Fatalf("MCPGEN_SHARED: no schema folder in %s: %v", dir, err)
	}
	return dir
}

func buildAll(t testing.TB, versions ...string) *Model {
	dir := sharedDir(t)
	var docs []*schema.Document
	for _, v := range versions {
		doc, err := schema.Load(filepath.Join(dir, "schema", v, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	m, err := Build(versions, docs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildAll(t *testing.T) {
	m := buildAll(t, allVersions...)
	t.Logf("%d types, %d methods", len(m.Types), len(m.Methods))
	for _, me := range m.Methods {
		t.Logf("%-40s %-8v %-16s params=%s result=%s %v", me.Name, me.Notification, me.Direction, me.Params, me.Result, m.VersionNames(me.Versions))
	}
}
