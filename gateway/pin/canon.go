package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a definition, as encoding/json bounds
// what it decodes, so that a hostile upstream cannot exhaust the stack.
const maxDepth = 10000

// pinnedMembers are the members of a tool definition that its hash
// covers, in the order reasons name them. Everything else a tool carries
// (_meta, icons, execution hints) may change without quarantining it.
var pinnedMembers = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// Canonical returns the canonical form of one JSON value: no insignificant
// whitespace, object keys sorted by their UTF-8 bytes at every level,
// numbers written exactly as they were given (1, 1.0 and 1e0 stay three
// different texts), strings re-encoded from their decoded text with only
// ", \ and the characters below U+0020 escaped.
//
// It refuses what two JSON readers could read differently: invalid UTF-8,
// an object with the same key twice, and anything after the value.
// Escapes in strings are decoded first, so "\u00e9" and "é" are the same
// text; a lone surrogate escape decodes to U+FFFD, as encoding/json does.
//
// Canonical is idempotent: Canonical of its output returns the output.
func Canonical(raw []byte) ([]byte, error) {
	c, err := newCanonicalizer(raw)
	if err != nil {
		return nil, err
	}
	n, err := c.value(0)
	if err != nil {
		return nil, err
	}
	if err := c.end(); err != nil {
		return nil, err
	}
	return n.canonical(), nil
}

// Hash returns the hash that pins one tool: "sha256:" and the hex SHA-256
// of the canonical JSON object holding the tool's name, title,
// description, inputSchema, outputSchema and annotations, each as the
// upstream listed it; a member the upstream left out stays out (and one it
// listed as null stays null). raw is the tool object from a tools/list
// result, of any MCP version.
func Hash(raw json.RawMessage) (string, error) {
	d, err := parseDefinition(raw)
	if err != nil {
		return "", err
	}
	return d.hash, nil
}

// definition is one tool as the upstream listed it, reduced to what
// pinning looks at.
type definition struct {
	name    string
	members map[string][]byte // canonical JSON of each member present
	hash    string            // Hash of the tool
	hidden  []Finding         // hidden characters in any member
}

// parseDefinition canonicalizes the pinned members of one tool and scans
// them for hidden characters.
func parseDefinition(raw []byte) (*definition, error) {
	c, err := newCanonicalizer(raw)
	if err != nil {
		return nil, err
	}
	c.scan = true
	tok, err := c.dec.Token()
	if err != nil {
		return nil, c.syntax(err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("tool definition is %s, not an object", describe(tok))
	}
	d := &definition{members: map[string][]byte{}}
	seen := map[string]bool{}
	for c.dec.More() {
		key, err := c.key()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("tool definition has member %q twice", key)
		}
		seen[key] = true
		if !slices.Contains(pinnedMembers, key) {
			var skip json.RawMessage
			if err := c.dec.Decode(&skip); err != nil {
				return nil, c.syntax(err)
			}
			continue
		}
		c.path = append(c.path[:0], key)
		v, err := c.value(1)
		if err != nil {
			return nil, err
		}
		d.members[key] = v.canonical()
	}
	if _, err := c.dec.Token(); err != nil { // the closing brace
		return nil, c.syntax(err)
	}
	if err := c.end(); err != nil {
		return nil, err
	}
	name, ok := d.members["name"]
	if !ok {
		return nil, errors.New("tool definition has no name")
	}
	if err := json.Unmarshal(name, &d.name); err != nil || d.name == "" {
		return nil, errors.New("tool name is not a non-empty string")
	}
	d.hidden = c.findings

	var obj bytes.Buffer
	obj.WriteByte('{')
	for i, k := range sortedKeys(d.members) {
		if i > 0 {
			obj.WriteByte(',')
		}
		writeString(&obj, k)
		obj.WriteByte(':')
		obj.Write(d.members[k])
	}
	obj.WriteByte('}')
	d.hash = digest(obj.Bytes())
	return d, nil
}

// digest is the form every hash in a lock takes.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// memberHashes returns the hash of each member present, so that a lock can
// say later which members changed.
func (d *definition) memberHashes() map[string]string {
	m := make(map[string]string, len(d.members))
	for k, v := range d.members {
		m[k] = digest(v)
	}
	return m
}

// canonicalizer reads one JSON document token by token, which lets it see
// duplicate keys and scan every string with its path.
type canonicalizer struct {
	raw      []byte
	dec      *json.Decoder
	scan     bool      // collect hidden characters into findings
	path     []string  // JSON Pointer tokens of the value being read
	findings []Finding // hidden characters seen, when scan is set
}

func newCanonicalizer(raw []byte) (*canonicalizer, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("invalid UTF-8 in JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return &canonicalizer{raw: raw, dec: dec}, nil
}

// node is one JSON value as read, kept as a tree so that writing its
// canonical form takes one pass however deep it nests.
type node struct {
	scalar string           // canonical text of a string, number, bool or null
	object map[string]*node // set for an object
	array  []*node          // set, possibly empty, for an array
	isArr  bool
}

// canonical returns the canonical form of n.
func (n *node) canonical() []byte {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

func (n *node) write(b *bytes.Buffer) {
	switch {
	case n.object != nil:
		b.WriteByte('{')
		for i, k := range sortedKeys(n.object) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.object[k].write(b)
		}
		b.WriteByte('}')
	case n.isArr:
		b.WriteByte('[')
		for i, e := range n.array {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.scalar)
	}
}

// value reads one value.
func (c *canonicalizer) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", maxDepth)
	}
	tok, err := c.dec.Token()
	if err != nil {
		return nil, c.syntax(err)
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			return c.object(depth)
		case '[':
			return c.array(depth)
		}
		return nil, fmt.Errorf("unexpected %q at offset %d", tok, c.dec.InputOffset())
	case string:
		c.check(tok, false)
		var b bytes.Buffer
		writeString(&b, tok)
		return &node{scalar: b.String()}, nil
	case json.Number:
		return &node{scalar: string(tok)}, nil
	case bool:
		return &node{scalar: strconv.FormatBool(tok)}, nil
	case nil:
		return &node{scalar: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func (c *canonicalizer) object(depth int) (*node, error) {
	n := &node{object: map[string]*node{}}
	at := len(c.path)
	for c.dec.More() {
		key, err := c.key()
		if err != nil {
			return nil, err
		}
		if _, dup := n.object[key]; dup {
			return nil, fmt.Errorf("object at %s has key %q twice", pointer(c.path[:at]), key)
		}
		c.path = append(c.path[:at], key)
		c.check(key, true)
		v, err := c.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.object[key] = v
	}
	c.path = c.path[:at]
	if _, err := c.dec.Token(); err != nil {
		return nil, c.syntax(err)
	}
	return n, nil
}

func (c *canonicalizer) array(depth int) (*node, error) {
	n := &node{isArr: true}
	at := len(c.path)
	for i := 0; c.dec.More(); i++ {
		c.path = append(c.path[:at], strconv.Itoa(i))
		v, err := c.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.array = append(n.array, v)
	}
	c.path = c.path[:at]
	if _, err := c.dec.Token(); err != nil {
		return nil, c.syntax(err)
	}
	return n, nil
}

// key reads an object key; the decoder guarantees it is a string.
func (c *canonicalizer) key() (string, error) {
	tok, err := c.dec.Token()
	if err != nil {
		return "", c.syntax(err)
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("object key is %s at offset %d", describe(tok), c.dec.InputOffset())
	}
	return key, nil
}

// end makes sure nothing but whitespace follows the value.
func (c *canonicalizer) end() error {
	if _, err := c.dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON value at offset %d", c.dec.InputOffset())
	}
	return nil
}

func (c *canonicalizer) check(s string, key bool) {
	if !c.scan {
		return
	}
	for _, f := range scanString(s) {
		f.Path = pointer(c.path)
		f.Key = key
		c.findings = append(c.findings, f)
	}
}

// syntax turns a decoder error into one that says where the JSON broke;
// an unexpected end of input is reported as such rather than as io.EOF.
func (c *canonicalizer) syntax(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("JSON ends early at offset %d", len(c.raw))
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// writeString writes s as a JSON string in the one form Canonical uses.
func writeString(b *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// pointer renders path as a JSON Pointer (RFC 6901).
func pointer(path []string) string {
	if len(path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		p = strings.ReplaceAll(p, "~", "~0")
		b.WriteString(strings.ReplaceAll(p, "/", "~1"))
	}
	return b.String()
}

func describe(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(tok))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
