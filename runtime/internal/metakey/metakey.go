// Package metakey checks `_meta` key names and extension identifiers
// against the rules of MCP 2026-07-28.
//
// A key is an optional prefix and a name:
//
//	key    = [prefix "/"] name
//	prefix = label *("." label)
//	label  = letter [*(letter / digit / "-") (letter / digit)]
//	name   = "" / alnum [*(alnum / "-" / "_" / ".") alnum]
//
// where letters, digits and alphanumerics are ASCII only. A prefix whose
// second label is "modelcontextprotocol" or "mcp" is reserved for the
// specification, and the unprefixed names "traceparent", "tracestate" and
// "baggage" carry OpenTelemetry context. Extension identifiers, the keys of
// capabilities.extensions, follow the same rules and must have a prefix.
//
// Three readings of the rules are this package's own. The grammar lets the
// name be empty, so "com.example/" is a valid key, but an entirely empty key
// would be a prefix-less, nameless entry that nobody could have meant, and
// is refused. Reverse-DNS labels name domains, which are case-insensitive,
// so "io.ModelContextProtocol/" is reserved like "io.modelcontextprotocol/";
// a one-label prefix such as "mcp/" has no second label and, by the letter
// of the rule, is not. And an extension identifier needs a name as well as
// a prefix: "com.example/" names a vendor, not one of its extensions.
package metakey

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/clip"
)

// Error is a key that breaks a rule. Check and its siblings return it, so
// that a caller who reports the key at a position of its own can take the
// parts apart with errors.As.
type Error struct {
	Key  string // the key as given
	Kind string // what the key is: "_meta key" or "extension identifier"
	Rule string // the rule the key breaks, e.g. `label "1abc" must start with a letter`
}

// Error returns the kind, the key, quoted and shortened if long, and the
// rule: `_meta key "1abc/x": label "1abc" must start with a letter`.
func (e *Error) Error() string {
	return e.Kind + " " + quote(e.Key) + ": " + e.Rule
}

const (
	kindKey       = "_meta key"
	kindExtension = "extension identifier"
)

// Check returns nil when key is a well-formed `_meta` key, and otherwise an
// *Error that names the rule it breaks. It does not refuse reserved
// prefixes, which the runtime itself may use; see CheckUser.
func Check(key string) error {
	if err := check(key, kindKey); err != nil {
		return err
	}
	return nil
}

// CheckUser is Check for keys that come from a server or client author's
// code rather than from the runtime: it also refuses the prefixes reserved
// for the specification.
func CheckUser(key string) error {
	if err := check(key, kindKey); err != nil {
		return err
	}
	if Reserved(key) {
		prefix, _, _ := strings.Cut(key, "/")
		return &Error{Key: key, Kind: kindKey, Rule: "the prefix " + quote(prefix+"/") +
			" is reserved for the MCP specification; use a reverse-DNS prefix of a domain you control, such as \"com.example/\""}
	}
	return nil
}

// CheckExtension returns nil when id is a well-formed extension identifier:
// a well-formed key with a prefix, naming its vendor, and a name. The
// specification's identifiers (io.modelcontextprotocol/...) are accepted.
func CheckExtension(id string) error {
	if err := check(id, kindExtension); err != nil {
		return err
	}
	prefix, name, found := strings.Cut(id, "/")
	if !found {
		return &Error{Key: id, Kind: kindExtension, Rule: "an extension identifier needs a prefix, as in " + quote("com.example/"+id)}
	}
	if name == "" {
		return &Error{Key: id, Kind: kindExtension, Rule: "an extension identifier needs a name after its prefix " + quote(prefix+"/")}
	}
	return nil
}

// Reserved reports whether key's prefix is reserved for the MCP
// specification: its second label is "modelcontextprotocol" or "mcp", in
// any case, as in "io.modelcontextprotocol/" or "dev.mcp/" but not
// "com.example.mcp/". It reads only the labels before the first slash and
// does not check the rest; a key without a slash has no prefix and is not
// reserved.
func Reserved(key string) bool {
	prefix, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	_, rest, found := strings.Cut(prefix, ".")
	if !found {
		return false
	}
	second, _, _ := strings.Cut(rest, ".")
	return strings.EqualFold(second, "modelcontextprotocol") || strings.EqualFold(second, "mcp")
}

// OpenTelemetry reports whether key is one of the unprefixed names the
// specification sets aside for OpenTelemetry context: "traceparent",
// "tracestate" and "baggage". They are valid keys; CheckUser accepts them,
// since code that propagates trace context itself uses them as intended.
func OpenTelemetry(key string) bool {
	switch key {
	case "traceparent", "tracestate", "baggage":
		return true
	}
	return false
}

// check applies the grammar, reporting the first rule key breaks. It
// allocates only for the error.
func check(key, kind string) *Error {
	fail := func(rule string) *Error { return &Error{Key: key, Kind: kind, Rule: rule} }
	if key == "" {
		return fail("must not be empty")
	}
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	}
	if strings.Contains(name, "/") {
		return fail("has more than one \"/\"; only the prefix ends with one")
	}
	if hasPrefix {
		if rule := checkPrefix(prefix); rule != "" {
			return fail(rule)
		}
	}
	if rule := checkName(name); rule != "" {
		return fail(rule)
	}
	return nil
}

// checkPrefix returns the rule that prefix, without its slash, breaks, or
// "" when it is well formed.
func checkPrefix(prefix string) string {
	if prefix == "" {
		return "the prefix before \"/\" is empty"
	}
	for rest := prefix; ; {
		label, more, dot := strings.Cut(rest, ".")
		if label == "" {
			switch {
			case len(rest) == len(prefix):
				return "prefix " + quote(prefix) + " starts with a dot"
			case !dot:
				return "prefix " + quote(prefix) + " ends with a dot"
			default:
				return "prefix " + quote(prefix) + " has an empty label between two dots"
			}
		}
		if rule := checkLabel(label); rule != "" {
			return rule
		}
		if !dot {
			return ""
		}
		rest = more
	}
}

// checkLabel returns the rule that one non-empty label of a prefix breaks,
// or "" when it is well formed.
func checkLabel(label string) string {
	for i := 0; i < len(label); i++ {
		if c := label[i]; !isLetter(c) && !isDigit(c) && c != '-' {
			return "label " + quote(label) + " contains " + quoteChar(label[i:]) + "; a label may hold only ASCII letters, digits and hyphens"
		}
	}
	if !isLetter(label[0]) {
		return "label " + quote(label) + " must start with a letter"
	}
	if c := label[len(label)-1]; !isLetter(c) && !isDigit(c) {
		return "label " + quote(label) + " must end with a letter or digit"
	}
	return ""
}

// checkName returns the rule that the name part of a key breaks, or ""
// when it is well formed.
func checkName(name string) string {
	if name == "" {
		return ""
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' && c != '.' {
			return "name " + quote(name) + " contains " + quoteChar(name[i:]) + "; a name may hold only ASCII letters, digits, '-', '_' and '.'"
		}
	}
	if c := name[0]; !isLetter(c) && !isDigit(c) {
		return "name " + quote(name) + " must start with a letter or digit"
	}
	if c := name[len(name)-1]; !isLetter(c) && !isDigit(c) {
		return "name " + quote(name) + " must end with a letter or digit"
	}
	return ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// maxQuoted is how many bytes of a key an error quotes; keys come from
// peers, and an error should not repeat a megabyte of one.
const maxQuoted = 64

// quote quotes a key for an error, cut to maxQuoted bytes.
func quote(s string) string { return clip.Quote(s, maxQuoted) }

// quoteChar returns the character at the start of s as a Go character
// literal ('_', '\x00'), with its code point when it is not ASCII, since
// the character refused is often one that looks like an allowed one
// ('K' (U+212A), the Kelvin sign); or its first byte escaped if s does not
// start with valid UTF-8.
func quoteChar(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size <= 1:
		return strconv.Quote(s[:1])
	case r < utf8.RuneSelf:
		return strconv.QuoteRune(r)
	default:
		return fmt.Sprintf("%q (%U)", r, r)
	}
}
