package pin

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Class is a kind of character that a person reading a tool definition
// does not see but a model reading it does.
type Class int

const (
	// Control is a C0 or C1 control character other than \n and \t.
	Control Class = iota + 1
	// Bidi is a bidirectional embedding, override or isolate
	// (U+202A–U+202E, U+2066–U+2069), which reorders text on screen.
	Bidi
	// ZeroWidth is a zero-width space, joiner or non-joiner, word joiner or
	// byte order mark (U+200B–U+200D, U+2060, U+FEFF).
	ZeroWidth
	// Tag is a Unicode tag character (U+E0000–U+E007F), which can spell
	// out a whole invisible ASCII text.
	Tag
)

func (c Class) String() string {
	switch c {
	case Control:
		return "control character"
	case Bidi:
		return "bidirectional control"
	case ZeroWidth:
		return "zero-width character"
	case Tag:
		return "tag character"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// hiddenRanges lists the characters that quarantine a tool. Each range
// is one line so that widening the list is a reviewed one-line change.
var hiddenRanges = []struct {
	lo, hi rune
	class  Class
}{
	{0x0000, 0x0008, Control}, // \t (U+0009) and \n (U+000A) are ordinary layout
	{0x000B, 0x001F, Control}, // includes \r: descriptions need no carriage returns
	{0x007F, 0x009F, Control}, // DEL and the C1 controls
	{0x200B, 0x200D, ZeroWidth},
	{0x202A, 0x202E, Bidi},
	{0x2060, 0x2060, ZeroWidth},
	{0x2066, 0x2069, Bidi},
	{0xFEFF, 0xFEFF, ZeroWidth},
	{0xE0000, 0xE007F, Tag},
}

// Finding is one hidden character in a tool definition.
type Finding struct {
	// Path is the JSON Pointer of the string within the tool, such as
	// "/description" or "/inputSchema/properties/city/description".
	Path string
	// Key is set when the character is in the object key that Path ends
	// with rather than in the string value at Path.
	Key bool
	// Offset is the 1-based position of the character in the string,
	// counted in characters (runes), as an editor's column would be.
	Offset int
	// Rune is the character.
	Rune rune
	// Class says what kind of character it is.
	Class Class
}

// String describes f without printing the character itself, so that the
// description can be shown or logged safely.
func (f Finding) String() string {
	where := quoteInvisible(f.Path)
	if f.Key {
		where += " (key)"
	}
	return fmt.Sprintf("%s character %d: U+%04X, a %s", where, f.Offset, f.Rune, f.Class)
}

// Hidden returns the hidden characters in the members of a tool that
// pinning covers (name, title, description, both schemas and annotations,
// keys and values at every depth), in the order they appear. raw is the
// tool object as the upstream listed it.
func Hidden(raw json.RawMessage) ([]Finding, error) {
	d, err := parseDefinition(raw)
	if err != nil {
		return nil, err
	}
	return d.hidden, nil
}

// scanString returns the hidden characters in s, with Offset and Rune set.
func scanString(s string) []Finding {
	var out []Finding
	offset := 0
	for _, r := range s {
		offset++
		if c := classify(r); c != 0 {
			out = append(out, Finding{Offset: offset, Rune: r, Class: c})
		}
	}
	return out
}

func classify(r rune) Class {
	for _, h := range hiddenRanges {
		if h.lo <= r && r <= h.hi {
			return h.class
		}
	}
	return 0
}

// quoteInvisible escapes the hidden characters in s (and only those) as
// \u{XXXX}, for text that is shown to people.
func quoteInvisible(s string) string {
	clean := true
	for _, r := range s {
		if classify(r) != 0 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b []byte
	for _, r := range s {
		if classify(r) != 0 {
			b = fmt.Appendf(b, `\u{%04X}`, r)
			continue
		}
		b = append(b, string(r)...)
	}
	return string(b)
}
