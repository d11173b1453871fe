// Package handlers benchmarks what mcpgen generates for annotated handlers
// against go-sdk v1.8.0's path for the same tool.
package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	segjson "github.com/segmentio/encoding/json"

	"github.com/mcpgen/mcpgen/bench/handlers/search"
)

// args is a typical tools/call arguments object for search.
var args = []byte(`{"query":"golang generics","limit":20,"offset":40,"order":"newest","tags":["go","types","compiler"],"within":{"from":"2024-01-01","to":"2024-12-31"},"minScore":0.25}`)

// bad breaks one rule of the generated schema and one of go-sdk's (a
// property the struct does not have).
var bad = []byte(`{"query":"golang","limit":20,"extra":1}`)

// gosdkTool reproduces what go-sdk v1.8.0's mcp.AddTool sets up once
// (setSchema: jsonschema.ForType, then Resolve with ValidateDefaults) and
// does on every call (the handler built by toolForErr: applySchema, which
// unmarshals the arguments into a map, applies defaults, validates and
// marshals the map again, then an unmarshal into the input struct). Its JSON
// package is internal, so this calls what that package does:
// segmentio/encoding/json with case-sensitive field matching, after a scan
// that bounds nesting depth.
type gosdkTool struct {
	resolved *jsonschema.Resolved
}

func newGosdkTool(tb testing.TB) *gosdkTool {
	s, err := jsonschema.For[search.Input](&jsonschema.ForOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		tb.Fatal(err)
	}
	return &gosdkTool{resolved: r}
}

// unmarshal is go-sdk's internal json.Unmarshal.
func unmarshal(data []byte, v any) error {
	if err := checkDepth(data, 1000); err != nil {
		return err
	}
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// checkDepth fails when objects and arrays nest deeper than max.
func checkDepth(data []byte, max int) error {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return errors.New("too deep")
			}
		case (c == '}' || c == ']') && depth > 0:
			depth--
		}
	}
	return nil
}

func (t *gosdkTool) decode(data []byte, in *search.Input) error {
	m := map[string]any{}
	if len(data) > 0 {
		if err := unmarshal(data, &m); err != nil {
			return err
		}
	}
	var v any = m
	if err := t.resolved.ApplyDefaults(&v); err != nil {
		return err
	}
	if err := t.resolved.Validate(&v); err != nil {
		return err
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return unmarshal(again, in)
}

// mcpgenDecode is what mcpgen's generated code does per call: the
// generated handler decodes the arguments into the struct, validating as it
// reads (it registers with server.InputCheckedByHandler, so nothing else
// reads them).
func mcpgenDecode(data []byte, in *search.Input) error {
	return search.Decode(data, in)
}

func TestSameVerdicts(t *testing.T) {
	g := newGosdkTool(t)
	var a, b search.Input
	if err := mcpgenDecode(args, &a); err != nil {
		t.Fatal(err)
	}
	if err := g.decode(args, &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("mcpgen decoded %s, go-sdk %s", ja, jb)
	}
	if err := mcpgenDecode(bad, &a); err == nil {
		t.Error("mcpgen accepted an unknown property")
	}
	if err := g.decode(bad, &b); err == nil {
		t.Error("go-sdk accepted an unknown property")
	}
}

// BenchmarkDecodeInput decodes and validates search's arguments: mcpgen's
// generated path, as served, against go-sdk's.
func BenchmarkDecodeInput(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			var in search.Input
			if err := mcpgenDecode(args, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		g := newGosdkTool(b)
		b.ReportAllocs()
		b.SetBytes(int64(len(args)))
		for b.Loop() {
			var in search.Input
			if err := g.decode(args, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
