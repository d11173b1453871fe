package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/shared/sharedtest"
)

// Mutation tests: every shared example is broken in small, schema-guided
// ways, and each broken copy (a mutant) must be rejected at the place that
// was broken, or accepted when the schema still accepts it.
//
// The mutants come from walking the example alongside the 2026-07-28
// schema definition of its folder:
//
//	drop   a property the schema requires is removed
//	const  a const value is changed (strings get a "not-" prefix, numbers +1000)
//	enum   an enum value becomes "not-an-enum-value"
//	type   a value whose schema declares one JSON type gets another kind
//	       (string→123, integer or number→"x", boolean→"x", object→[], array→{})
//
// At an anyOf, the walk follows only the branches that the oracle (the
// santhosh-tekuri/jsonschema validator) says the unmutated value matches,
// so a mutant inside a branch may still match another branch; the oracle
// decides whether each mutant is valid.

// schemaVersion is the version the mutants are made and judged against.
const schemaVersion = "2026-07-28"

// schemaURL is the made-up location of the schema document in the oracle.
const schemaURL = "https://mcpgen.test/schema.json"

// oracle validates instances with santhosh-tekuri/jsonschema against
// locations (JSON pointers) in the schema document.
type oracle struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

func newOracle(t testing.TB) *oracle {
	t.Helper()
	path := sharedtest.SchemaPath(t, schemaVersion)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	// "byte" (standard base64) is OpenAPI's, not JSON Schema's; the MCP
	// schema uses it for image, audio and blob data.
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		_, err := base64.StdEncoding.DecodeString(s)
		return err
	}})
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	return &oracle{doc: doc.(map[string]any), compiler: c, compiled: map[string]*jsonschema.Schema{}}
}

// valid reports whether inst matches the schema at ptr, such as
// /$defs/CallToolResult.
func (o *oracle) valid(t testing.TB, ptr string, inst any) bool {
	t.Helper()
	sch, ok := o.compiled[ptr]
	if !ok {
		var err error
		if sch, err = o.compiler.Compile(schemaURL + "#" + ptr); err != nil {
			t.Fatalf("compile %s: %v", ptr, err)
		}
		o.compiled[ptr] = sch
	}
	return sch.Validate(inst) == nil
}

// node returns the schema object at ptr.
func (o *oracle) node(t testing.TB, ptr string) map[string]any {
	t.Helper()
	var cur any = o.doc
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			cur = c[i]
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("schema has no object at %s", ptr)
	}
	return m
}

// resolve follows $ref from the schema at ptr and returns where it ends.
func (o *oracle) resolve(t testing.TB, ptr string) (string, map[string]any) {
	t.Helper()
	n := o.node(t, ptr)
	for {
		ref, ok := n["$ref"].(string)
		if !ok {
			return ptr, n
		}
		if !strings.HasPrefix(ref, "#") {
			t.Fatalf("%s: $ref %q leaves the document", ptr, ref)
		}
		ptr = ref[1:]
		n = o.node(t, ptr)
	}
}

func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// mutant is one broken copy of an example.
type mutant struct {
	name   string   // such as "drop content[0].text"
	kind   string   // drop, const, enum or type
	path   string   // the JSON path of what was changed, as FieldError writes it
	unions []string // paths of the anyOf values that enclose it, outermost first
	steps  []step   // the path as member names and indexes
	doc    any      // the whole mutated message
}

// step is one path segment: a string member name or an int index.
type step = any

// identifier is the rule for a member name written after a dot rather than
// quoted in brackets, stated apart from runtime/fielderr's own code so that
// the two check each other.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// renderPath writes steps as FieldError writes a path.
func renderPath(steps []step) string {
	var b strings.Builder
	for _, s := range steps {
		switch s := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		case string:
			if identifier.MatchString(s) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s)
			} else {
				b.WriteString("[" + strconv.Quote(s) + "]")
			}
		}
	}
	return b.String()
}

// mutator walks one example and collects its mutants.
type mutator struct {
	t    testing.TB
	o    *oracle
	root any
	seen map[string]bool
	out  []mutant
}

// mutants returns the mutants of inst, an instance of definition def.
func mutants(t testing.TB, o *oracle, def string, inst any) []mutant {
	m := &mutator{t: t, o: o, root: inst, seen: map[string]bool{}}
	m.walk("/$defs/"+pointerToken(def), inst, nil, nil)
	return m.out
}

func (m *mutator) walk(ptr string, inst any, at []step, unions []string) {
	ptr, n := m.o.resolve(m.t, ptr)
	if subs, ok := n["allOf"].([]any); ok {
		for i := range subs {
			m.walk(ptr+"/allOf/"+strconv.Itoa(i), inst, at, unions)
		}
	}
	if subs, ok := n["anyOf"].([]any); ok {
		inner := append(slices.Clip(unions), renderPath(at))
		for i := range subs {
			branch := ptr + "/anyOf/" + strconv.Itoa(i)
			if m.o.valid(m.t, branch, inst) {
				m.walk(branch, inst, at, inner)
			}
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		props, _ := n["properties"].(map[string]any)
		if req, ok := n["required"].([]any); ok {
			for _, r := range req {
				name := r.(string)
				if _, present := v[name]; present {
					m.emit("drop", append(slices.Clip(at), name), unions, nil)
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(v)) {
			var sub string
			switch _, declared := props[name]; {
			case declared:
				sub = ptr + "/properties/" + pointerToken(name)
			case n["additionalProperties"] != nil:
				if _, isSchema := n["additionalProperties"].(map[string]any); !isSchema {
					continue
				}
				sub = ptr + "/additionalProperties"
			default:
				continue
			}
			m.value(sub, v[name], append(slices.Clip(at), name), unions)
		}
	case []any:
		if _, ok := n["items"].(map[string]any); ok {
			for i, e := range v {
				m.value(ptr+"/items", e, append(slices.Clip(at), i), unions)
			}
		}
	}
}

// value makes the const, enum and type mutants of one value and walks into
// it.
func (m *mutator) value(ptr string, inst any, at []step, unions []string) {
	_, n := m.o.resolve(m.t, ptr)
	if c, ok := n["const"]; ok {
		switch c := c.(type) {
		case string:
			m.emit("const", at, unions, "not-"+c)
		case json.Number:
			f, _ := c.Float64()
			m.emit("const", at, unions, json.Number(strconv.FormatFloat(f+1000, 'f', -1, 64)))
		}
	}
	if _, ok := n["enum"]; ok {
		if _, isString := inst.(string); isString {
			m.emit("enum", at, unions, "not-an-enum-value")
		}
	}
	if typ, ok := n["type"].(string); ok {
		var other any
		switch typ {
		case "string":
			other = json.Number("123")
		case "integer", "number", "boolean":
			other = "x"
		case "object":
			other = []any{}
		case "array":
			other = map[string]any{}
		}
		if other != nil {
			m.emit("type", at, unions, other)
		}
	}
	m.walk(ptr, inst, at, unions)
}

// emit records a mutant that sets the value at at to to, or removes it
// when kind is drop.
func (m *mutator) emit(kind string, at []step, unions []string, to any) {
	path := renderPath(at)
	name := kind + " " + path
	if m.seen[name] {
		return
	}
	m.seen[name] = true
	doc := deepCopy(m.root)
	parent := doc
	for _, s := range at[:len(at)-1] {
		switch s := s.(type) {
		case int:
			parent = parent.([]any)[s]
		case string:
			parent = parent.(map[string]any)[s]
		}
	}
	switch last := at[len(at)-1].(type) {
	case int:
		parent.([]any)[last] = to
	case string:
		if kind == "drop" {
			delete(parent.(map[string]any), last)
		} else {
			parent.(map[string]any)[last] = to
		}
	}
	m.out = append(m.out, mutant{name: name, kind: kind, path: path, unions: slices.Clip(unions), steps: slices.Clone(at), doc: doc})
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// decodeNumbers decodes JSON keeping numbers as json.Number, the form the
// oracle expects.
func decodeNumbers(t testing.TB, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// generated decodes data as definition def and validates it for the
// schema version, returning the first error.
func generated(def string, data []byte) error {
	v := newMessage(def)
	if v == nil {
		return fmt.Errorf("no type %s", def)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	return v.ValidateVersion(Version20260728)
}

// corpusCase is one instance of the differential corpus.
type corpusCase struct {
	name string // example, and mutant if any
	def  string
	data []byte
	mut  *mutant // nil for the example itself
}

// corpus returns every example and all its mutants.
func corpus(t testing.TB, o *oracle) []corpusCase {
	var out []corpusCase
	for _, ex := range loadExamples(t) {
		out = append(out, corpusCase{name: ex.name, def: ex.def, data: ex.data})
		for _, mu := range mutants(t, o, ex.def, decodeNumbers(t, ex.data)) {
			data, err := json.Marshal(mu.doc)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, corpusCase{name: ex.name + "/" + mu.name, def: ex.def, data: data, mut: &mu})
		}
	}
	return out
}

// TestMutants checks that each mutant the schema rejects fails decoding or
// validation with a *FieldError at the mutated path, and that each mutant
// the schema still accepts is accepted.
//
// The one allowed exception to the exact path: a union without a const
// discriminator chooses its variant by the JSON kind and the keys present,
// so a mutant that changes a kind or drops a required key inside an anyOf
// can leave it no variant to choose. When the error is a *NoVariantError,
// its path may be that of an enclosing union (a prefix of the mutated
// path) instead.
//
// Mutants the generated code judges differently from the schema on
// purpose are listed in knownDifferences (differential_test.go) and
// skipped here.
func TestMutants(t *testing.T) {
	o := newOracle(t)
	total := 0
	for _, ex := range loadExamples(t) {
		ms := mutants(t, o, ex.def, decodeNumbers(t, ex.data))
		if len(ms) == 0 {
			continue
		}
		for _, mu := range ms {
			total++
			// Mutants the schema still accepts say so in their names.
			accepts := o.valid(t, "/$defs/"+pointerToken(ex.def), mu.doc)
			name := ex.name + "/" + mu.name
			if accepts {
				name += " (schema accepts)"
			}
			t.Run(name, func(t *testing.T) {
				data, err := json.Marshal(mu.doc)
				if err != nil {
					t.Fatal(err)
				}
				err = generated(ex.def, data)
				if d, ok := knownDifference(ex.def, &mu, accepts); ok && (err == nil) != accepts {
					t.Skipf("known difference: %s", d.reason)
				}
				if accepts {
					// The schema still accepts it: another anyOf branch
					// matches, or the value is in an open part.
					if err != nil {
						t.Fatalf("the schema accepts the mutant, the generated code says: %v\n%s", err, data)
					}
					return
				}
				if err == nil {
					t.Fatalf("accepted\n%s", data)
				}
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %T is not a *FieldError: %v", err, err)
				}
				if fe.Path == mu.path {
					return
				}
				var nv *NoVariantError
				if errors.As(err, &nv) && slices.Contains(mu.unions, fe.Path) {
					return // no variant left at an enclosing union; see the doc comment
				}
				t.Fatalf("error at %q, want %q: %v\n%s", fe.Path, mu.path, err, data)
			})
		}
	}
	if total < 100 {
		t.Errorf("only %d mutants; the walk is not reaching the schema", total)
	}
}
