package mcpheader

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// HeaderPrefix starts the name of every header that mirrors a tool
// parameter.
const HeaderPrefix = "Mcp-Param-"

// The headers in which a Streamable HTTP request mirrors parts of its
// body, so that load balancers and gateways can route without parsing it.
const (
	// ProtocolVersion names the request's protocol version; legacy
	// sessions send it too, after initialize.
	ProtocolVersion = "Mcp-Protocol-Version"
	// Method is the request's method (2026-07-28).
	Method = "Mcp-Method"
	// Name is the tool or prompt name or the resource URI of a
	// tools/call, prompts/get or resources/read, in Encode's form
	// (2026-07-28).
	Name = "Mcp-Name"
)

// annotation is the schema keyword that designates a parameter header.
const annotation = "x-mcp-header"

// Param is a tool input property annotated with x-mcp-header, whose value
// a client copies into the header Mcp-Param-{Name}.
type Param struct {
	// Path is the chain of properties keys that leads from the schema
	// root to the property, and so the chain of object keys that leads
	// from the call's arguments to the value. It is never empty.
	Path []string
	// Name is the annotation's value: the header's name after
	// HeaderPrefix, spelled as the schema spells it. It is an HTTP token.
	Name string
	// Type is the property's JSON Schema type: "string", "integer" or
	// "boolean".
	Type string
}

// Header returns the name of the header that carries the parameter,
// HeaderPrefix followed by Name. Header names compare case-insensitively,
// so this spelling is for messages and for http.Header.Set, which
// canonicalizes it.
func (p Param) Header() string { return HeaderPrefix + p.Name }

// SchemaError reports an inputSchema whose x-mcp-header annotations break a
// rule, which makes the whole tool definition invalid.
type SchemaError struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending place: for a
	// bad annotation the annotation itself, as in
	// "/properties/region/x-mcp-header". The empty pointer is the root.
	Pointer string
	// Msg says which rule is broken.
	Msg string
}

// Error returns "inputSchema at <pointer>: <msg>", or "inputSchema: <msg>"
// for the root.
func (e *SchemaError) Error() string {
	if e.Pointer == "" {
		return "inputSchema: " + e.Msg
	}
	return "inputSchema at " + strconv.Quote(e.Pointer) + ": " + e.Msg
}

// Params finds every x-mcp-header annotation in a tool's inputSchema and
// checks it against the rules of SEP-2243. It returns the annotated
// properties in document order (depth first, properties in the order the
// schema lists them), or nil when there are none.
//
// An annotation is valid only on a property reached from the root through
// properties keys alone, and never on the root itself. One found under any
// other keyword (items, prefixItems, additionalProperties,
// patternProperties, allOf, anyOf, oneOf, not, if, then, else, $defs,
// definitions, dependentSchemas, ...), or inside the value of a keyword
// that holds no schema, makes the schema invalid, and so does one on a
// property that some $ref or $dynamicRef in the document also leads to,
// directly or through a schema around it, since the property would then be
// reached through the reference too. The value of const, enum, default and
// examples is data, not schema, and is not searched.
//
// The annotation's value must be a non-empty HTTP token (RFC 9110 tchar),
// unique among the schema's annotations ignoring case, and the property
// must declare "type" as exactly one of "string", "integer" and "boolean":
// not "number", not a list, and not left to a $ref.
//
// Params does not check the schema as a whole: run schemarules.Check first.
// It does refuse a schema with duplicate object keys anywhere, since
// parsers disagree on which one counts. Every error is a *SchemaError,
// except for malformed JSON, which is reported with its byte offset.
func Params(inputSchema []byte) ([]Param, error) {
	root, err := parseTree(inputSchema)
	if err != nil {
		if se, ok := errors.AsType[*SchemaError](err); ok {
			return nil, se
		}
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	if root.kind != jsonrpc.KindObject {
		return nil, &SchemaError{Msg: "must be a JSON object, not " + kindName(root.kind)}
	}
	w := walker{names: map[string]string{}}
	w.schema(root, "", documentBase, &chain{resources: []resource{{uri: documentBase}}}, "")
	if w.err != nil {
		return nil, w.err
	}
	if err := w.checkRefs(); err != nil {
		return nil, err
	}
	return w.params, nil
}

// documentBase stands for the URI of a schema whose root declares no $id,
// so that relative $id and $ref values resolve against something. It is
// only compared, never fetched.
const documentBase = "mcpgen-document:///schema.json"

// walker collects the annotations of one schema and the first problem with
// them.
type walker struct {
	params []Param
	hosts  []host
	refs   []ref
	names  map[string]string // lower-cased Name → pointer of the annotation that has it
	err    error             // the first problem met, in document order
}

// chain records how a statically reachable schema is reached: the
// properties keys from the root, and the resources and anchors declared on
// the way, through which a reference could reach the schema as well. A nil
// *chain stands for a schema that is not statically reachable.
type chain struct {
	path      []string
	resources []resource // the root first
	anchors   []anchor
}

// resource is a schema that a URI names: the root, or one declaring $id.
type resource struct {
	uri string // absolute, without fragment
	ptr string // JSON pointer of the schema that declares it
}

// anchor is a plain-name fragment ($anchor, $dynamicAnchor, or a draft-07
// "$id": "#name") declared by a schema on a chain.
type anchor struct {
	uri     string // the resource the name belongs to
	name    string
	dynamic bool // $dynamicAnchor, which any $dynamicRef to the name may reach
}

// host is an annotated, statically reachable property.
type host struct {
	ptr string // the property's schema
	at  string // its annotation
	c   *chain
}

// ref is a $ref or $dynamicRef, resolved against its base URI.
type ref struct {
	ptr     string // the keyword's JSON pointer
	uri     string // the resource it names, absolute, without fragment
	frag    string // its fragment: "" or a JSON pointer, or else an anchor name
	dynamic bool
}

func (c *chain) withKey(key string) *chain {
	if c == nil {
		return nil
	}
	next := *c
	next.path = append(slices.Clip(c.path), key)
	return &next
}

func (c *chain) withResource(r resource) *chain {
	if c == nil {
		return nil
	}
	next := *c
	next.resources = append(slices.Clip(c.resources), r)
	return &next
}

func (c *chain) withAnchor(a anchor) *chain {
	if c == nil {
		return nil
	}
	next := *c
	next.anchors = append(slices.Clip(c.anchors), a)
	return &next
}

// shape says what a keyword's value holds.
type shape int

const (
	unknownValue shape = iota // no schema: any annotation inside is misplaced
	oneSchema                 // a schema
	schemaList                // an array of schemas, or a single schema (items in draft-07)
	schemaMap                 // an object whose member values are schemas
	propertyMap               // properties: the one way that keeps a schema reachable
	dataValue                 // an instance value, not searched
	handled                   // a keyword the walker reads itself
)

// shapes lists the keywords of JSON Schema 2020-12 and draft-07 whose
// values are, or hold, subschemas, or are plain data. It covers both
// dialects at once: walking a keyword that a dialect ignores can only find
// more misplaced annotations.
var shapes = map[string]shape{
	"properties":            propertyMap,
	"patternProperties":     schemaMap,
	"$defs":                 schemaMap,
	"definitions":           schemaMap,
	"dependentSchemas":      schemaMap,
	"dependencies":          schemaMap,
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
	"const":                 dataValue,
	"enum":                  dataValue,
	"default":               dataValue,
	"examples":              dataValue,
	"$id":                   handled,
	"$anchor":               handled,
	"$dynamicAnchor":        handled,
	"$ref":                  handled,
	"$dynamicRef":           handled,
	annotation:              handled,
}

func (w *walker) fail(ptr, msg string) {
	if w.err == nil {
		w.err = &SchemaError{Pointer: ptr, Msg: msg}
	}
}

// schema walks the schema n at ptr, whose base URI is base. c is how it is
// reached from the root, or nil when it is not statically reachable; via
// then says why, for the error message.
func (w *walker) schema(n *node, ptr, base string, c *chain, via string) {
	if w.err != nil {
		return
	}
	if n.kind != jsonrpc.KindObject {
		// A boolean schema holds nothing; anything else is malformed, and
		// any annotation inside it is misplaced.
		w.scan(n, ptr, via)
		return
	}
	if id := n.member("$id"); id != nil && id.kind == jsonrpc.KindString {
		if uri, frag, ok := resolve(base, id.str); ok {
			if uri != base {
				base = uri
				c = c.withResource(resource{uri: uri, ptr: ptr})
			}
			if frag != "" && frag[0] != '/' {
				c = c.withAnchor(anchor{uri: uri, name: frag})
			}
		}
	}
	for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
		if a := n.member(kw); a != nil && a.kind == jsonrpc.KindString {
			c = c.withAnchor(anchor{uri: base, name: a.str, dynamic: kw == "$dynamicAnchor"})
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		if r := n.member(kw); r != nil && r.kind == jsonrpc.KindString {
			if uri, frag, ok := resolve(base, r.str); ok {
				w.refs = append(w.refs, ref{ptr: ptr + "/" + escapeToken(kw), uri: uri, frag: frag, dynamic: kw == "$dynamicRef"})
			}
		}
	}
	if a := n.member(annotation); a != nil {
		w.annotate(n, a, ptr, c, via)
	}

	for i, key := range n.keys {
		v, at := n.vals[i], ptr+"/"+escapeToken(key)
		inner := via
		if inner == "" {
			inner = fmt.Sprintf("the way from the root passes through %q", key)
		}
		switch shapes[key] {
		case propertyMap:
			if v.kind != jsonrpc.KindObject {
				w.scan(v, at, inner)
				continue
			}
			for j, name := range v.keys {
				w.schema(v.vals[j], at+"/"+escapeToken(name), base, c.withKey(name), via)
			}
		case schemaMap:
			if v.kind != jsonrpc.KindObject {
				w.scan(v, at, inner)
				continue
			}
			for j, name := range v.keys {
				w.schema(v.vals[j], at+"/"+escapeToken(name), base, nil, inner)
			}
		case schemaList:
			if v.kind != jsonrpc.KindArray {
				w.schema(v, at, base, nil, inner)
				continue
			}
			for j, elem := range v.vals {
				w.schema(elem, at+"/"+strconv.Itoa(j), base, nil, inner)
			}
		case oneSchema:
			w.schema(v, at, base, nil, inner)
		case dataValue:
		case handled:
			if key != annotation && v.kind != jsonrpc.KindString {
				w.scan(v, at, inner)
			}
		default:
			w.scan(v, at, fmt.Sprintf("%q is not a keyword whose value is a schema", key))
		}
	}
}

// scan reports any annotation inside n, a value in which none is allowed
// for the reason via.
func (w *walker) scan(n *node, ptr, via string) {
	for i, child := range n.vals {
		if w.err != nil {
			return
		}
		var at string
		if n.kind == jsonrpc.KindObject {
			at = ptr + "/" + escapeToken(n.keys[i])
			if n.keys[i] == annotation {
				w.fail(at, misplaced(via))
				return
			}
		} else {
			at = ptr + "/" + strconv.Itoa(i)
		}
		w.scan(child, at, via)
	}
}

func misplaced(via string) string {
	return "x-mcp-header is allowed only on a property reached from the root through properties alone; " + via
}

// annotate checks the annotation a on the schema n at ptr.
func (w *walker) annotate(n, a *node, ptr string, c *chain, via string) {
	at := ptr + "/" + annotation
	switch {
	case c == nil:
		w.fail(at, misplaced(via))
		return
	case len(c.path) == 0:
		w.fail(at, "the schema root is not a property; x-mcp-header belongs on a property of the arguments object")
		return
	case a.kind != jsonrpc.KindString:
		w.fail(at, "the value must be a string, not "+kindName(a.kind))
		return
	}
	name := a.str
	if msg := checkName(name); msg != "" {
		w.fail(at, msg)
		return
	}
	typ, msg := propertyType(n)
	if msg != "" {
		w.fail(at, msg)
		return
	}
	// Tokens are ASCII, so ToLower folds case exactly as HTTP does.
	folded := strings.ToLower(name)
	if first, dup := w.names[folded]; dup {
		w.fail(at, fmt.Sprintf("header name %q is already taken by the annotation at %q; header names compare ignoring case", name, first))
		return
	}
	w.names[folded] = at
	w.params = append(w.params, Param{Path: slices.Clone(c.path), Name: name, Type: typ})
	w.hosts = append(w.hosts, host{ptr: ptr, at: at, c: c})
}

// checkName returns why name cannot follow HeaderPrefix in a header name,
// or "" if it can.
func checkName(name string) string {
	if name == "" {
		return "the header name must not be empty"
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("the header name contains the control character 0x%02x at offset %d", c, i)
		case !isTchar(c):
			return fmt.Sprintf("the header name %s has %s at offset %d, which an HTTP token (RFC 9110 tchar) does not allow", preview(name), byteText(c), i)
		}
	}
	return ""
}

// isTchar reports whether c may appear in an HTTP token (RFC 9110, section
// 5.6.2).
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// byteText names a byte for a message: quoted if printable ASCII,
// otherwise in hex.
func byteText(c byte) string {
	if ' ' <= c && c <= '~' {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// propertyType returns the type an annotated property declares, or why it
// does not qualify.
func propertyType(n *node) (typ, problem string) {
	const allowed = "x-mcp-header needs type \"string\", \"integer\" or \"boolean\""
	t := n.member("type")
	switch {
	case t == nil:
		return "", "the property declares no type; " + allowed
	case t.kind == jsonrpc.KindArray:
		return "", "the property's type is a list; " + allowed + ", given as a single string"
	case t.kind != jsonrpc.KindString:
		return "", "the property's type is " + kindName(t.kind) + ", not a string; " + allowed
	}
	switch t.str {
	case "string", "integer", "boolean":
		return t.str, ""
	case "number":
		return "", "type \"number\" is not allowed, as a header cannot carry every number faithfully; use \"integer\" or \"string\""
	}
	return "", fmt.Sprintf("type %q is not allowed; %s", t.str, allowed)
}

// checkRefs refuses an annotated property that a reference also leads to.
func (w *walker) checkRefs() error {
	for _, h := range w.hosts {
		for _, r := range w.refs {
			if reaches(r, h) {
				return &SchemaError{Pointer: h.at, Msg: fmt.Sprintf("the reference at %q leads to this property or a schema around it, so it is not reached through properties alone", r.ptr)}
			}
		}
	}
	return nil
}

// reaches reports whether r names h's schema or one of the schemas on its
// chain, through whose properties it would then reach h.
func reaches(r ref, h host) bool {
	if r.frag == "" || r.frag[0] == '/' {
		for _, res := range h.c.resources {
			rel := h.ptr[len(res.ptr):]
			if res.uri == r.uri && (r.frag == "" || rel == r.frag || strings.HasPrefix(rel, r.frag+"/")) {
				return true
			}
		}
		return false
	}
	for _, a := range h.c.anchors {
		if a.name == r.frag && (a.uri == r.uri || r.dynamic && a.dynamic) {
			return true
		}
	}
	return false
}

// resolve resolves the URI reference s against base and splits the result
// into the URI of a resource and a fragment. It returns false for a value
// that is not a URI reference; schemarules reports those.
func resolve(base, s string) (uri, frag string, ok bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", false
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", false
	}
	t := b.ResolveReference(u)
	frag = t.Fragment
	t.Fragment, t.RawFragment = "", ""
	return t.String(), frag, true
}

func kindName(k jsonrpc.Kind) string {
	switch k {
	case jsonrpc.KindObject:
		return "an object"
	case jsonrpc.KindArray:
		return "an array"
	case jsonrpc.KindString:
		return "a string"
	case jsonrpc.KindNumber:
		return "a number"
	case jsonrpc.KindBool:
		return "a boolean"
	case jsonrpc.KindNull:
		return "null"
	}
	return "invalid"
}
