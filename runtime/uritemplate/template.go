package uritemplate

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Template is a parsed URI template. It does not change after [Parse], so
// it is safe for concurrent use.
type Template struct {
	raw   string
	parts []part
	names []string // distinct variable names, in order of first use
	exprs int      // number of expression parts
}

// part is either a literal run (op == nil) or one expression.
type part struct {
	lit    string // literal as expanded, non-ASCII characters pct-encoded
	rawLit string // literal as written in the template

	op         *operator
	vars       []varspec
	start, end int // byte range of the expression in the template

	// Matching aids, fixed at parse time.
	stops  string // bytes a matched span never contains
	absorb int    // index of the variable that takes surplus list items, or -1
}

type varspec struct {
	name    string
	prefix  int // maximum length from a prefix modifier, 0 for none
	explode bool
}

// operator holds the expansion behaviour of one RFC 6570 operator, as in
// the table of RFC 6570 appendix A.
type operator struct {
	char     byte   // the operator character, 0 for simple expansion
	first    string // written before the first defined variable
	sep      byte   // written between variables and between exploded items
	named    bool   // whether values are written as name=value
	ifemp    string // written after the name when a named value is empty
	reserved bool   // whether reserved characters are kept unencoded
}

var operators = [...]operator{
	{char: 0, first: "", sep: ','},
	{char: '+', first: "", sep: ',', reserved: true},
	{char: '#', first: "#", sep: ',', reserved: true},
	{char: '.', first: ".", sep: '.'},
	{char: '/', first: "/", sep: '/'},
	{char: ';', first: ";", sep: ';', named: true},
	{char: '?', first: "?", sep: '&', named: true, ifemp: "="},
	{char: '&', first: "&", sep: '&', named: true, ifemp: "="},
}

func lookupOperator(c byte) *operator {
	for i := 1; i < len(operators); i++ {
		if operators[i].char == c {
			return &operators[i]
		}
	}
	return nil
}

// SyntaxError reports a malformed template.
type SyntaxError struct {
	Template string // the template as given to Parse
	Offset   int    // byte offset of the fault in Template
	Msg      string // what is wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("uritemplate: %s at offset %d in %q", e.Msg, e.Offset, e.Template)
}

// Parse parses a URI template of RFC 6570 levels 1 to 4. Literal text must
// consist of characters RFC 6570 section 2.1 allows; non-ASCII text must be
// valid UTF-8 and is pct-encoded on expansion. A malformed template yields a
// [*SyntaxError].
func Parse(template string) (*Template, error) {
	p := parser{s: template}
	t := &Template{raw: template}
	for p.i < len(template) {
		var pt part
		var err error
		if template[p.i] == '{' {
			pt, err = p.expression()
			t.exprs++
		} else {
			pt, err = p.literal()
		}
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, pt)
	}
	for _, pt := range t.parts {
		for _, v := range pt.vars {
			if !slices.Contains(t.names, v.name) {
				t.names = append(t.names, v.name)
			}
		}
	}
	t.setMatchAids()
	return t, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(offset int, format string, args ...any) error {
	return &SyntaxError{Template: p.s, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// runeAt returns the character at offset i, for error messages.
func (p *parser) runeAt(i int) rune {
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return r
}

// literal reads the literal run at p.i, up to the next '{' or the end.
func (p *parser) literal() (part, error) {
	s, start := p.s, p.i
	ascii := true
	for p.i < len(s) && s[p.i] != '{' {
		c := s[p.i]
		switch {
		case c == '}':
			return part{}, p.errorf(p.i, "unmatched '}'")
		case c == '%':
			if !isTriplet(s, p.i) {
				return part{}, p.errorf(p.i, "'%%' not followed by two hex digits")
			}
			p.i += 3
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[p.i:])
			if r == utf8.RuneError && size == 1 {
				return part{}, p.errorf(p.i, "invalid UTF-8")
			}
			if r < 0xA0 { // C1 controls are not ucschar
				return part{}, p.errorf(p.i, "character %U not allowed in a literal", r)
			}
			ascii = false
			p.i += size
		case classes[c]&classLiteral == 0:
			return part{}, p.errorf(p.i, "character %q not allowed in a literal", c)
		default:
			p.i++
		}
	}
	raw := s[start:p.i]
	lit := raw
	if !ascii {
		var b strings.Builder
		escape(&b, raw, true)
		lit = b.String()
	}
	return part{lit: lit, rawLit: raw}, nil
}

// expression reads the expression starting with the '{' at p.i.
func (p *parser) expression() (part, error) {
	s, open := p.s, p.i
	pt := part{op: &operators[0], start: open}
	p.i++
	if p.i == len(s) {
		return part{}, p.errorf(open, "unclosed expression")
	}
	switch c := s[p.i]; {
	case c == '}':
		return part{}, p.errorf(open, "empty expression")
	case strings.IndexByte("=,!@|", c) >= 0:
		return part{}, p.errorf(p.i, "reserved operator %q", c)
	default:
		if op := lookupOperator(c); op != nil {
			pt.op = op
			p.i++
		}
	}
	for {
		v, err := p.varspec(open)
		if err != nil {
			return part{}, err
		}
		pt.vars = append(pt.vars, v)
		if p.i == len(s) {
			return part{}, p.errorf(open, "unclosed expression")
		}
		switch c := s[p.i]; c {
		case ',':
			p.i++
		case '}':
			p.i++
			pt.end = p.i
			return pt, nil
		default:
			return part{}, p.errorf(p.i, "invalid character %q in expression", p.runeAt(p.i))
		}
	}
}

// varspec reads a variable name and its modifier at p.i. open is the offset
// of the enclosing '{', for errors about the expression as a whole.
func (p *parser) varspec(open int) (varspec, error) {
	s, start := p.s, p.i
	for p.i < len(s) {
		c := s[p.i]
		if classes[c]&classVarchar != 0 {
			p.i++
		} else if c == '%' {
			if !isTriplet(s, p.i) {
				return varspec{}, p.errorf(p.i, "'%%' not followed by two hex digits in variable name")
			}
			p.i += 3
		} else if c == '.' && p.i > start {
			if p.i+1 < len(s) && (classes[s[p.i+1]]&classVarchar != 0 || s[p.i+1] == '%') {
				p.i++
			} else {
				return varspec{}, p.errorf(p.i, "'.' not followed by a name character in variable name")
			}
		} else {
			break
		}
	}
	if p.i == len(s) {
		return varspec{}, p.errorf(open, "unclosed expression")
	}
	if p.i == start {
		switch s[p.i] {
		case ',', '}', ':', '*':
			return varspec{}, p.errorf(p.i, "missing variable name")
		default:
			return varspec{}, p.errorf(p.i, "invalid character %q in variable name", p.runeAt(p.i))
		}
	}
	v := varspec{name: s[start:p.i]}
	switch s[p.i] {
	case ':':
		p.i++
		digits := p.i
		for p.i < len(s) && '0' <= s[p.i] && s[p.i] <= '9' {
			if v.prefix <= 9999 { // stop growing before it can overflow
				v.prefix = v.prefix*10 + int(s[p.i]-'0')
			}
			p.i++
		}
		if p.i == digits || s[digits] == '0' || v.prefix > 9999 {
			return varspec{}, p.errorf(digits, "prefix length must be 1 to 9999")
		}
		if p.i < len(s) && s[p.i] == '*' {
			return varspec{}, p.errorf(p.i, "prefix and explode modifiers both given")
		}
	case '*':
		v.explode = true
		p.i++
		if p.i < len(s) && s[p.i] == ':' {
			return varspec{}, p.errorf(p.i, "prefix and explode modifiers both given")
		}
	}
	return v, nil
}

// setMatchAids fixes, for each expression, which bytes end its span and
// which variable takes surplus list items when matching.
func (t *Template) setMatchAids() {
	laterQuery, laterFragment := false, false
	adjacent := "" // leading characters of the expressions up to the next literal
	for i := len(t.parts) - 1; i >= 0; i-- {
		pt := &t.parts[i]
		if pt.op == nil {
			adjacent = ""
			continue
		}
		switch pt.op.char {
		case 0, '.', ';':
			pt.stops = "/?#"
		case '/':
			pt.stops = "?#"
		case '?', '&':
			pt.stops = "#"
		case '+', '#':
			if laterQuery {
				pt.stops += "?"
			}
			if laterFragment {
				pt.stops += "#"
			}
		}
		if !pt.op.reserved {
			for _, c := range []byte(adjacent) {
				if strings.IndexByte(pt.stops, c) < 0 && c != pt.op.sep && pt.op.first != string(c) {
					pt.stops += string(c)
				}
			}
		}
		pt.absorb = -1
		for j, v := range pt.vars {
			if v.explode {
				pt.absorb = j
				break
			}
		}
		if pt.absorb < 0 && pt.op.reserved {
			pt.absorb = len(pt.vars) - 1
		}
		switch pt.op.char {
		case '?', '&':
			laterQuery = true
		case '#':
			laterFragment = true
		}
		if pt.op.first != "" {
			adjacent += pt.op.first
		}
	}
}

// String returns the template as it was given to [Parse].
func (t *Template) String() string { return t.raw }

// Vars returns the names of the template's variables in the order they
// first appear, each name once.
func (t *Template) Vars() []string { return slices.Clone(t.names) }
