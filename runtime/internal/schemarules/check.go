package schemarules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The bounds that zero Limits fields stand for. Hand-written and generated
// tool schemas nest a few levels and hold at most a few hundred
// subschemas; the bounds leave room for far more while keeping a hostile
// schema from costing the validator more than a moment to compile.
const (
	// DefaultMaxDepth is the deepest that subschemas may nest by default.
	DefaultMaxDepth = 64
	// DefaultMaxSubschemas is how many schemas a document may hold by
	// default.
	DefaultMaxSubschemas = 10_000
)

// Limits bound the size of a schema, which the specification asks
// implementations to do so that a schema cannot be made expensive to
// validate. The zero Limits stand for the defaults.
type Limits struct {
	// MaxDepth bounds how deeply subschemas nest: the root is at depth 0,
	// the schema of one of its properties at depth 1. Zero or less means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxSubschemas bounds how many schemas the document holds, the root
	// and boolean schemas included. Zero or less means
	// DefaultMaxSubschemas.
	MaxSubschemas int
}

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxSubschemas <= 0 {
		l.MaxSubschemas = DefaultMaxSubschemas
	}
	return l
}

// Error reports a schema that breaks a rule, at the place that breaks it.
type Error struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending place, such
	// as "/properties/a/$ref". The empty pointer is the root.
	Pointer string
	// Msg says what is wrong.
	Msg string
}

// Error returns "schema at <pointer>: <msg>", or "schema: <msg>" for the
// root.
func (e *Error) Error() string {
	if e.Pointer == "" {
		return "schema: " + e.Msg
	}
	return "schema at " + strconv.Quote(e.Pointer) + ": " + e.Msg
}

// Check applies the JSON Schema usage rules to schema, a tool's
// inputSchema or outputSchema, and returns its dialect.
//
// The schema must be a JSON object. Its dialect is Draft2020 when it has
// no $schema, and otherwise the one its $schema names, which must be
// 2020-12 or draft-07 (with or without the empty fragment "#"; draft-07
// also with https). A $schema in a subschema may only name the root's
// dialect again.
//
// Every $ref and $dynamicRef must resolve within the document: to a JSON
// pointer or anchor fragment of the document itself, or to a resource that
// a $id in the document declares, with or without a fragment. A pointer
// must lead to a schema and an anchor must be declared in the resource it
// names. Anything else would have to be fetched, which the specification
// forbids by default for network URIs and which this package never does,
// so such a schema is refused rather than treated as accepting anything.
//
// Subschemas may nest at most lim.MaxDepth deep and number at most
// lim.MaxSubschemas in all.
//
// Errors are *Error values, found in a fixed order (depth first, keys
// sorted), except for malformed JSON, which is reported with its byte
// offset.
func Check(schema []byte, lim Limits) (Dialect, error) {
	root, err := decode(schema)
	if err != nil {
		return 0, err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return 0, &Error{Msg: "must be a JSON object, not " + typeName(root)}
	}
	d := Draft2020
	if v, ok := obj["$schema"]; ok {
		s, ok := v.(string)
		if !ok {
			return 0, &Error{Pointer: "/$schema", Msg: "$schema must be a string, not " + typeName(v)}
		}
		var msg string
		if d, msg = dialectOf(s); msg != "" {
			return 0, &Error{Pointer: "/$schema", Msg: msg}
		}
	}
	c := checker{
		dialect:   d,
		lim:       lim.withDefaults(),
		resources: map[string]*resource{documentBase: {node: obj, anchors: map[string]string{}}},
	}
	if err := c.schema(obj, "", documentBase, 0); err != nil {
		return 0, err
	}
	for _, r := range c.refs {
		if err := c.resolve(r); err != nil {
			return 0, err
		}
	}
	return d, nil
}

// decode parses the schema document. Numbers stay json.Number, so that a
// bound such as 1e400, which no float64 holds, is not an error here.
func decode(schema []byte) (any, error) {
	// Unmarshal checks the whole document before decoding anything, and
	// so gives every syntax error, trailing data included, with its
	// offset; the Decoder, needed for UseNumber, does not.
	var raw json.RawMessage
	if err := json.Unmarshal(schema, &raw); err != nil {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			return nil, fmt.Errorf("schema: malformed JSON at byte %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return root, nil
}

// checker walks one schema document.
type checker struct {
	dialect   Dialect
	lim       Limits
	count     int                  // schemas met so far
	resources map[string]*resource // by absolute URI without fragment
	refs      []ref                // to resolve once every resource is known
}

// resource is a schema that a URI names: the root, or one declaring $id.
type resource struct {
	node    any
	ptr     string
	anchors map[string]string // plain-name fragments → pointer of the schema declaring them
}

// ref is a $ref or $dynamicRef met on the walk.
type ref struct {
	ptr   string // of the keyword
	value string // as written
	uri   string // the resource it names, resolved against its base
	frag  string // "", a JSON pointer, or an anchor name
}

// shape says what a keyword's value holds.
type shape int

const (
	noSchema   shape = iota // data, or a keyword unknown here
	oneSchema               // a schema
	schemaList              // an array of schemas, or a single schema (items)
	schemaMap               // an object whose member values are schemas
)

// shapes lists the keywords of JSON Schema 2020-12 and draft-07 whose
// values are or hold subschemas. One table serves both dialects: walking
// a keyword that one of them does not know can only check more, and
// authors commonly mix $defs into draft-07 and definitions into 2020-12.
var shapes = map[string]shape{
	"properties":            schemaMap,
	"patternProperties":     schemaMap,
	"$defs":                 schemaMap,
	"definitions":           schemaMap,
	"dependentSchemas":      schemaMap,
	"dependencies":          schemaMap, // draft-07; arrays of names in it are skipped
	"items":                 schemaList,
	"prefixItems":           schemaList,
	"allOf":                 schemaList,
	"anyOf":                 schemaList,
	"oneOf":                 schemaList,
	"additionalItems":       oneSchema,
	"additionalProperties":  oneSchema,
	"unevaluatedItems":      oneSchema,
	"unevaluatedProperties": oneSchema,
	"contains":              oneSchema,
	"propertyNames":         oneSchema,
	"not":                   oneSchema,
	"if":                    oneSchema,
	"then":                  oneSchema,
	"else":                  oneSchema,
	"contentSchema":         oneSchema,
}

// schema checks the schema v at ptr, whose base URI is base and which
// nests depth levels below the root.
func (c *checker) schema(v any, ptr, base string, depth int) error {
	if depth > c.lim.MaxDepth {
		return &Error{Pointer: ptr, Msg: fmt.Sprintf("subschemas nest %d deep here, deeper than the limit of %d", depth, c.lim.MaxDepth)}
	}
	if c.count++; c.count > c.lim.MaxSubschemas {
		return &Error{Pointer: ptr, Msg: fmt.Sprintf("the schema holds more than %d subschemas, the limit", c.lim.MaxSubschemas)}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		// A boolean schema holds nothing to check; any other value is for
		// the validator to refuse.
		return nil
	}
	if ptr != "" {
		if err := c.subDialect(obj, ptr); err != nil {
			return err
		}
	}
	base, err := c.declare(obj, ptr, base)
	if err != nil {
		return err
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		v, ok := obj[kw]
		if !ok {
			continue
		}
		at := ptr + "/" + escapeToken(kw)
		s, ok := v.(string)
		if !ok {
			return &Error{Pointer: at, Msg: kw + " must be a string, not " + typeName(v)}
		}
		uri, frag, err := resolveURI(base, s)
		if err != nil {
			return &Error{Pointer: at, Msg: fmt.Sprintf("%s %q is not a URI reference: %v", kw, s, err)}
		}
		c.refs = append(c.refs, ref{ptr: at, value: s, uri: uri, frag: frag})
	}

	for _, key := range slices.Sorted(maps.Keys(obj)) {
		at := ptr + "/" + escapeToken(key)
		switch val := obj[key]; shapes[key] {
		case oneSchema:
			err = c.schema(val, at, base, depth+1)
		case schemaList:
			if list, ok := val.([]any); ok {
				for i, elem := range list {
					if err = c.schema(elem, at+"/"+strconv.Itoa(i), base, depth+1); err != nil {
						break
					}
				}
			} else {
				err = c.schema(val, at, base, depth+1)
			}
		case schemaMap:
			m, ok := val.(map[string]any)
			if !ok {
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				sub := m[name]
				if _, isList := sub.([]any); isList && key == "dependencies" {
					continue
				}
				if err = c.schema(sub, at+"/"+escapeToken(name), base, depth+1); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// subDialect refuses a $schema in a subschema that names another dialect
// than the root's: switching dialects within one document is legal JSON
// Schema, but the validator compiles one document under one dialect.
func (c *checker) subDialect(obj map[string]any, ptr string) error {
	v, ok := obj["$schema"]
	if !ok {
		return nil
	}
	at := ptr + "/$schema"
	s, ok := v.(string)
	if !ok {
		return &Error{Pointer: at, Msg: "$schema must be a string, not " + typeName(v)}
	}
	d, msg := dialectOf(s)
	if msg != "" {
		return &Error{Pointer: at, Msg: msg}
	}
	if d != c.dialect {
		return &Error{Pointer: at, Msg: fmt.Sprintf("$schema %q names %s, but the schema is %s; a subschema may only repeat the root's dialect", s, d, c.dialect)}
	}
	return nil
}

// declare records the resource and anchors that obj, at ptr, declares,
// and returns the base URI of obj's own keywords and subschemas.
func (c *checker) declare(obj map[string]any, ptr, base string) (string, error) {
	if v, ok := obj["$id"]; ok {
		at := ptr + "/$id"
		id, ok := v.(string)
		if !ok {
			return "", &Error{Pointer: at, Msg: "$id must be a string, not " + typeName(v)}
		}
		_, hasRef := obj["$ref"]
		// In draft-07 a $ref makes its object's other keywords, $id
		// among them, ignored.
		if !(c.dialect == Draft7 && hasRef) {
			uri, frag, err := resolveURI(base, id)
			if err != nil {
				return "", &Error{Pointer: at, Msg: fmt.Sprintf("$id %q is not a URI reference: %v", id, err)}
			}
			if uri != base {
				if r, dup := c.resources[uri]; dup {
					return "", &Error{Pointer: at, Msg: fmt.Sprintf("$id %q names the same resource as the schema at %q", id, r.ptr)}
				}
				c.resources[uri] = &resource{node: obj, ptr: ptr, anchors: map[string]string{}}
				base = uri
			}
			switch {
			case frag == "":
			case c.dialect == Draft7 && frag[0] != '/':
				// draft-07 declares plain-name anchors this way.
				if err := c.anchor(base, frag, at); err != nil {
					return "", err
				}
			case c.dialect == Draft7:
				return "", &Error{Pointer: at, Msg: fmt.Sprintf("$id %q has a JSON pointer fragment, which cannot name a schema", id)}
			default:
				return "", &Error{Pointer: at, Msg: fmt.Sprintf("$id %q has a fragment, which 2020-12 does not allow; declare a plain name with $anchor", id)}
			}
		}
	}
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		v, ok := obj[kw]
		if !ok {
			continue
		}
		at := ptr + "/" + escapeToken(kw)
		name, ok := v.(string)
		if !ok {
			return "", &Error{Pointer: at, Msg: kw + " must be a string, not " + typeName(v)}
		}
		if err := c.anchor(base, name, at); err != nil {
			return "", err
		}
	}
	return base, nil
}

// anchor records the plain-name fragment name, declared at the keyword at,
// in the resource uri.
func (c *checker) anchor(uri, name, at string) error {
	r := c.resources[uri]
	schema := at[:strings.LastIndexByte(at, '/')]
	if prev, dup := r.anchors[name]; dup && prev != schema {
		return &Error{Pointer: at, Msg: fmt.Sprintf("anchor %q is already declared by the schema at %q in the same resource", name, prev)}
	}
	r.anchors[name] = schema
	return nil
}

// resolve checks that r leads to a schema in the document.
func (c *checker) resolve(r ref) error {
	fail := func(format string, a ...any) error {
		return &Error{Pointer: r.ptr, Msg: fmt.Sprintf("%q ", r.value) + fmt.Sprintf(format, a...)}
	}
	res, ok := c.resources[r.uri]
	if !ok {
		return fail("%s", outside(r.value, r.uri))
	}
	switch {
	case r.frag == "":
		return nil
	case r.frag[0] == '/':
		target, problem := follow(res.node, r.frag)
		if problem != "" {
			return fail("does not resolve: %s", problem)
		}
		switch target.(type) {
		case map[string]any, bool:
			return nil
		}
		return fail("leads to %s, not to a schema", typeName(target))
	}
	if _, ok := res.anchors[r.frag]; !ok {
		return fail("names the anchor %q, which its resource does not declare", r.frag)
	}
	return nil
}

// outside explains why a reference that names no resource of the document
// is refused, given the reference as written and the URI it resolves to.
func outside(value, uri string) string {
	const only = "only references within this schema, or to a $id it declares, are supported"
	switch {
	case strings.HasPrefix(value, "//"):
		// A network-path reference keeps the base's scheme, which for a
		// schema without $id is the made-up documentScheme.
		return "refers to a network location; remote schemas are never fetched, so a schema that needs one is refused"
	case strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://"):
		msg := "refers to a network URI; remote schemas are never fetched, so a schema that needs one is refused"
		if !strings.HasPrefix(value, uri) {
			msg += fmt.Sprintf(" (it resolves to %q)", uri)
		}
		return msg
	case strings.HasPrefix(uri, documentScheme+":"):
		return "refers to another document; " + only
	}
	return "refers to a resource outside this schema; " + only
}

// follow evaluates the JSON pointer ptr (RFC 6901) against doc. It returns
// the value found, or why there is none.
func follow(doc any, ptr string) (any, string) {
	cur := doc
	for _, tok := range strings.Split(ptr, "/")[1:] {
		if strings.Contains(strings.NewReplacer("~0", "", "~1", "").Replace(tok), "~") {
			return nil, fmt.Sprintf("%q is not a valid JSON pointer token", tok)
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, fmt.Sprintf("there is no member %q", tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || strconv.Itoa(i) != tok {
				return nil, fmt.Sprintf("%q is not an index of an array of %d", tok, len(v))
			}
			cur = v[i]
		default:
			return nil, fmt.Sprintf("%q steps into %s", tok, typeName(v))
		}
	}
	return cur, ""
}

// escapeToken escapes a key for use as a JSON pointer reference token.
func escapeToken(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
