// Package sharedtest gives tests the shared folder of schemas and examples
// (see package shared) and stops the test, loudly, when it is missing.
// Tests that need the schemas fail rather than skip: a skipped test would
// hide a broken checkout.
package sharedtest

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/shared"
)

// Dir returns the shared folder or fails tb.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := shared.Dir()
	if err != nil {
		tb.Fatalf("shared folder: %v", err)
		return ""
	}
	return dir
}

// SchemaPath returns the path of the schema.json of version or fails tb.
func SchemaPath(tb testing.TB, version string) string {
	tb.Helper()
	path, err := shared.SchemaPath(version)
	if err != nil {
		tb.Fatalf("shared folder: %v", err)
		return ""
	}
	return path
}

// ExamplesDir returns the examples folder of version or fails tb.
func ExamplesDir(tb testing.TB, version string) string {
	tb.Helper()
	path, err := shared.ExamplesDir(version)
	if err != nil {
		tb.Fatalf("shared folder: %v", err)
		return ""
	}
	return path
}
