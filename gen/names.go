package gen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/model"
)

// The namer makes every identifier a generated handler file declares, and
// nothing else in gen makes one. Each handler gets a base name, and each
// identifier of it is a fixed prefix and that base (mcpgenTool + StoreSet,
// mcpgenCall + StoreSet); each struct a decoder or encoder reads gets one
// too. A base is tried in this order:
//
//  1. the Go declaration's words: receiver, then function or method name,
//     each word capitalised and initialisms in capitals ((*Store).Set →
//     StoreSet, getURL → GetURL);
//  2. the MCP name's words, the same way (test_simple_text → TestSimpleText).
//
// Every handler whose identifiers collide with another's, or with an
// identifier the user's package declares, moves on to its next base
// together with the others in the collision, so that the outcome does not
// depend on which came first; a handler with no base left is refused with
// both declarations' positions. Register functions and struct codecs do
// not move: a clash of theirs is refused at once.

// namePrefix starts every unexported generated identifier, keeping them
// out of the way of names a user picks.
const namePrefix = "mcpgen"

// initialisms are the words written in capitals inside a generated name:
// golint's list (lint.commonInitialisms), with MCP added for the
// protocol's own name.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "LHS": true, "MCP": true, "QPS": true, "RAM": true,
	"RHS": true, "RPC": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true,
	"TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true,
}

// camel joins the words of each part into one Go name: "test_simple_text"
// → "TestSimpleText", "getUrlFor" → "GetURLFor", "utf8Tool" → "UTF8Tool".
func camel(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		for _, w := range splitWords(p) {
			b.WriteString(word(w))
		}
	}
	return b.String()
}

// splitWords cuts s at every rune that is neither letter nor digit, before
// an upper-case letter that follows a lower-case letter or a digit, and
// before the last capital of a run followed by a lower-case letter (the L
// of "URLList"). Digits stay with the word before them.
func splitWords(s string) []string {
	var words []string
	rs := []rune(s)
	start := -1
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, string(rs[start:i]))
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) ||
			unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	if start >= 0 {
		words = append(words, string(rs[start:]))
	}
	return words
}

// word writes one word as it stands in a Go name: an initialism in
// capitals (a trailing number aside: ID2), any other word capitalised, and
// a word in capitals that is no initialism ("GET") as a plain word ("Get").
func word(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return up
	}
	letters := strings.TrimRightFunc(up, unicode.IsDigit)
	if initialisms[letters] {
		return up
	}
	rs := []rune(w)
	if up == w {
		rs = []rune(strings.ToLower(w))
	}
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// Identifiers of a tool, a prompt, a resource and a struct: prefix + base.
const (
	toolDef      = namePrefix + "Tool"         // the tool's mcp.Tool
	inputSchema  = namePrefix + "InputSchema"  // its input schema, JSON
	outputSchema = namePrefix + "OutputSchema" // its output schema, JSON
	toolCall     = namePrefix + "Call"         // its ToolHandler
	decodeInput  = namePrefix + "DecodeInput"  // reads and checks its arguments
	checkInput   = namePrefix + "CheckInput"   // checks its arguments alone
	decodeOutput = namePrefix + "DecodeOutput" // reads and checks its structured content
	checkOutput  = namePrefix + "CheckOutput"  // checks its structured content alone
	encodeOutput = namePrefix + "EncodeOutput" // encodes its result

	promptDef  = namePrefix + "Prompt"     // the prompt's mcp.Prompt
	promptGet  = namePrefix + "GetPrompt"  // its PromptHandler
	promptArgs = namePrefix + "PromptArgs" // reads its arguments

	resourceDef  = namePrefix + "Resource"     // the resource's mcp.Resource or mcp.ResourceTemplate
	resourceRead = namePrefix + "ReadResource" // its handler

	objectRead   = namePrefix + "Read"   // reads a struct from a Scanner
	objectAppend = namePrefix + "Append" // appends a struct's JSON

	readEmpty = namePrefix + "ReadEmpty" // reads {}
	// staleGuard takes a value of exactly its type argument: the guards
	// on scanned structs call it, and a build that fails there names it.
	staleGuard    = namePrefix + "StaleRunGoGenerate"
	patternPrefix = namePrefix + "Pattern" // + index: a compiled pattern
)

var (
	toolIdents     = []string{toolDef, inputSchema, outputSchema, toolCall, decodeInput, checkInput, decodeOutput, checkOutput, encodeOutput}
	promptIdents   = []string{promptDef, promptGet, promptArgs}
	resourceIdents = []string{resourceDef, resourceRead}
	objectIdents   = []string{objectRead, objectAppend}
)

// names holds the bases the namer chose for one package.
type names struct {
	bases    map[any]string    // *model.Tool, *model.Prompt, *model.Resource, *model.Object → base
	register map[string]string // receiver type ("" for functions) → its Register function
	imports  map[string]string // import path → the name it takes, when it cannot take its own
}

// owner is one claimant of generated identifiers.
type owner struct {
	what   string       // for messages: "tool StoreSet (store_set)"
	pos    model.SrcPos // where it is declared
	key    any          // what names.bases is keyed by; nil for fixed names
	cands  []string     // bases to try, in order
	at     int          // the base in use
	idents []string     // prefixes, each + base an identifier; nil: the base is the identifier
	named  bool         // a handler, named by its Go name or else its MCP name
}

func (o *owner) base() string { return o.cands[o.at] }

func (o *owner) names() []string {
	if o.idents == nil {
		return []string{o.base()}
	}
	out := make([]string, len(o.idents))
	for i, p := range o.idents {
		out[i] = p + o.base()
	}
	return out
}

// candidates lists the distinct non-empty bases of bs, in order.
func candidates(bs ...string) []string {
	var out []string
	for _, b := range bs {
		if b != "" && !contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func goLabel(recv, name string) string {
	if recv == "" {
		return name
	}
	return recv + "." + name
}

// importNames are the packages a handler file may import, with the names
// it refers to them by.
var importNames = map[string]string{
	contextPkg: "context", "errors": "errors", "fmt": "fmt", "maps": "maps", "slices": "slices",
	"strconv": "strconv", "time": "time", "unicode/utf8": "utf8", "regexp": "regexp",
	"encoding/base64": "base64", jsonPkg: "json", mcpPkg: "mcp", serverPkg: "server",
	handlerPkg: "handler", jsonrpcPkg: "jsonrpc", rawschemaPkg: "rawschema", fielderrPkg: "fielderr",
}

// newNames names the generated code of h's handlers and of the structs
// their codecs read and write.
func newNames(h *model.Handlers, objects []*model.Object) (*names, error) {
	n := &names{bases: map[any]string{}, register: map[string]string{}, imports: map[string]string{}}
	var owners []*owner
	declared := make([]string, 0, len(h.Declared))
	for name := range h.Declared {
		declared = append(declared, name)
	}
	sort.Strings(declared)
	for _, name := range declared {
		pos := h.Declared[name]
		if rest, ok := strings.CutPrefix(name, patternPrefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return nil, model.SrcErrorf(pos, "%s is a name mcpgen gives the patterns of struct tags: rename it", name)
		}
		owners = append(owners, &owner{what: "the package's own " + name, pos: pos, cands: []string{name}})
	}
	regs := map[string]bool{}
	addRegister := func(recv string, pos model.SrcPos, label string) {
		if regs[recv] {
			return
		}
		regs[recv] = true
		name := "Register" + camel(recv)
		n.register[recv] = name
		owners = append(owners, &owner{what: "the Register function for " + label, pos: pos, cands: []string{name}})
	}
	for _, t := range h.Tools {
		label := goLabel(t.Recv, t.GoName)
		owners = append(owners, &owner{what: "tool " + label + " (" + t.Name + ")", pos: t.Pos, key: t,
			cands: candidates(camel(t.Recv, t.GoName), camel(t.Name)), idents: toolIdents, named: true})
		addRegister(t.Recv, t.Pos, label)
	}
	for _, p := range h.Prompts {
		label := goLabel(p.Recv, p.GoName)
		owners = append(owners, &owner{what: "prompt " + label + " (" + p.Name + ")", pos: p.Pos, key: p,
			cands: candidates(camel(p.Recv, p.GoName), camel(p.Name)), idents: promptIdents, named: true})
		addRegister(p.Recv, p.Pos, label)
	}
	for _, r := range h.Resources {
		label := goLabel(r.Recv, r.GoName)
		owners = append(owners, &owner{what: "resource " + label + " (" + r.Name + ")", pos: r.Pos, key: r,
			cands: candidates(camel(r.Recv, r.GoName), camel(r.Name)), idents: resourceIdents, named: true})
		addRegister(r.Recv, r.Pos, label)
	}
	for _, o := range objects {
		owners = append(owners, &owner{what: "the codecs of struct " + o.Go.Name, pos: o.Pos, key: o,
			cands: candidates(camel(o.ID), o.ID), idents: objectIdents})
	}
	owners = append(owners, formOwners(h)...)
	owners = append(owners, &owner{what: "the generated " + readEmpty, cands: []string{readEmpty}})
	owners = append(owners, &owner{what: "the generated " + staleGuard, cands: []string{staleGuard}})
	if err := settle(owners); err != nil {
		return nil, err
	}
	for _, o := range owners {
		if o.key != nil {
			n.bases[o.key] = o.base()
		}
	}
	for path, name := range importNames {
		if _, ok := h.Declared[name]; ok {
			// A file's import may not share a name with a package-level
			// identifier: the import takes another.
			n.imports[path] = namePrefix + name
		}
	}
	return n, nil
}

// settle moves owners in collisions on to their next bases until none
// collide, or refuses the first collision no move can end.
func settle(owners []*owner) error {
	for {
		claims := map[string][]*owner{}
		var order []string
		for _, o := range owners {
			for _, id := range o.names() {
				if _, ok := claims[id]; !ok {
					order = append(order, id)
				}
				if !containsOwner(claims[id], o) {
					claims[id] = append(claims[id], o)
				}
			}
		}
		moved, clash := false, ""
		var stuck [2]*owner
		for _, id := range order {
			c := claims[id]
			if len(c) < 2 {
				continue
			}
			for _, o := range c {
				if o.at+1 < len(o.cands) {
					o.at++
					moved = true
				} else if stuck[0] == nil {
					clash, stuck = id, [2]*owner{o, other(c, o)}
				}
			}
			if moved {
				break // recount: a move can end other collisions too
			}
		}
		if moved {
			continue
		}
		if stuck[0] == nil {
			return nil
		}
		a, b := stuck[0], stuck[1]
		if later(b.pos, a.pos) {
			a, b = b, a
		}
		if a.named && b.named {
			return model.SrcErrorf(a.pos, "%s and %s at %s get the same generated identifier %s, by their Go names and by their MCP names: rename one", a.what, b.what, where(b.pos), clash)
		}
		return model.SrcErrorf(a.pos, "%s and %s at %s both need the identifier %s: rename one", a.what, b.what, where(b.pos), clash)
	}
}

func containsOwner(list []*owner, o *owner) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}

func other(list []*owner, o *owner) *owner {
	for _, x := range list {
		if x != o {
			return x
		}
	}
	return o
}

// later reports whether a comes after b in the package's files; a
// position in no file comes first.
func later(a, b model.SrcPos) bool {
	if a.File != b.File {
		return a.File > b.File
	}
	return a.Line > b.Line
}

func where(p model.SrcPos) string {
	if p.File == "" {
		return "the generated file"
	}
	return p.String()
}

func (n *names) base(key any) string {
	b, ok := n.bases[key]
	if !ok {
		panic(fmt.Sprintf("gen: no name for %T", key)) // newNames saw every handler and struct
	}
	return b
}

func (n *names) tool(prefix string, t *model.Tool) string         { return prefix + n.base(t) }
func (n *names) prompt(prefix string, p *model.Prompt) string     { return prefix + n.base(p) }
func (n *names) resource(prefix string, r *model.Resource) string { return prefix + n.base(r) }
func (n *names) object(prefix string, o *model.Object) string     { return prefix + n.base(o) }
func (n *names) pattern(i int) string                             { return patternPrefix + strconv.Itoa(i) }
