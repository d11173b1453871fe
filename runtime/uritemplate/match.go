package uritemplate

import "strings"

// Match reports whether uri is an expansion of the template and, if so,
// returns the template's variables as found in uri, percent-decoded. It
// inverts [Template.Expand] for the common cases, and is anchored: the
// whole of uri must be matched.
//
// Literal text must appear exactly, as Expand writes it (or as written in
// the template, where that differs by non-ASCII characters).
//
// Each expression matches one span of uri. Expressions with an operator
// that writes a leading character ('#', '.', '/', ';', '?', '&') match
// either an empty span, leaving all of their variables absent, or a span
// starting with that character. Simple and '+' expressions match at least
// one character. A span never contains these bytes:
//
//   - simple, '.' and ';' expressions: '/', '?' and '#';
//   - '/' expressions: '?' and '#';
//   - '?' and '&' expressions: '#';
//   - '+' and '#' expressions: '?' if a '?' or '&' expression follows
//     later in the template, and '#' if a '#' expression does.
//
// Nor does the span of an expression other than '+' and '#' contain the
// leading character of an expression that follows it with no literal in
// between, unless that character is its own leading character or
// separator. So {var} never crosses a path segment while {+var} does, in
// "{+path}{?q}" the query is left to {?q}, and in "{name}{.ext}" the label
// is left to {.ext}.
//
// Within its span, an expression of the simple, '+', '#', '.' or '/'
// operator splits the text after its leading character at the operator's
// separator (',', ',', ',', '.', '/') and gives the pieces to its
// variables in order; variables left without a piece are absent. With more
// pieces than variables, the exploded variable ({var*}) takes the surplus
// together with its own piece, joined by the separator as in uri; in a '+'
// or '#' expression without one the last variable does, because reserved
// values may contain ','. Otherwise the span does not fit. So {/path*}
// matched against "/a/b/c" gives path "a/b/c".
//
// The named operators ';', '?' and '&' identify each name=value piece by
// its name, in any order; a piece without '=' gives the empty string. A
// name that is not one of the expression's variables, or repeats one that
// is not exploded, ends the span before its piece: in a '?' or '&'
// expression at the end of the template the URI then does not match. The
// pieces of an exploded variable ({?list*}) are joined with ','. Exploded
// maps, whose keys stand in for the name, are not recovered.
//
// A variable with a prefix modifier ({var:3}) matches at most that many
// characters and gives what it matched.
//
// Where more than one split of uri fits, the leftmost expression takes the
// longest span that lets the rest of the template match, as a greedy
// regular expression would: "{name}.txt" matched against "a.b.txt" gives
// name "a.b", and "{a}-{b}" against "x-y-z" gives a "x-y" and b "z".
// Backtracking is bounded by remembering failed states, so the time taken
// is polynomial in len(uri); templates with several adjacent '+'
// expressions cost the most. A variable used more than once takes the value of its first
// use; later uses are not compared with it.
func (t *Template) Match(uri string) (map[string]string, bool) {
	m := matcher{t: t, uri: uri}
	if !m.match(0, 0) {
		return nil, false
	}
	if m.vars == nil {
		m.vars = make(map[string]string)
	}
	return m.vars, true
}

// matcher holds the state of one Match call.
type matcher struct {
	t      *Template
	uri    string
	vars   map[string]string // made when the first variable is bound
	failed []uint64          // bit i*(len(uri)+1)+pos: parts[i:] fail at pos
}

// match reports whether parts[i:] match uri[pos:], binding their variables
// if they do. Bindings happen only on the way back from a complete match,
// so a failed attempt leaves nothing behind.
func (m *matcher) match(i, pos int) bool {
	parts := m.t.parts
	if i == len(parts) {
		return pos == len(m.uri)
	}
	pt := &parts[i]
	if pt.op == nil {
		rest := m.uri[pos:]
		return strings.HasPrefix(rest, pt.lit) && m.match(i+1, pos+len(pt.lit)) ||
			pt.rawLit != pt.lit && strings.HasPrefix(rest, pt.rawLit) && m.match(i+1, pos+len(pt.rawLit))
	}
	if m.hasFailed(i, pos) {
		return false
	}
	if m.matchExpr(pt, i, pos) {
		return true
	}
	m.setFailed(i, pos)
	return false
}

func (m *matcher) matchExpr(pt *part, i, pos int) bool {
	scan := pos // where the stop bytes are looked for
	if pt.op.first != "" {
		if pos == len(m.uri) || m.uri[pos] != pt.op.first[0] {
			return m.match(i+1, pos) // all variables absent
		}
		scan++ // the leading character is never a stop byte
	}
	hi := len(m.uri)
	if n := strings.IndexAny(m.uri[scan:], pt.stops); n >= 0 {
		hi = scan + n
	}
	// Simple and '+' spans hold at least one character, the others at
	// least their leading one; the empty span is tried last.
	for end := hi; end > pos; end-- {
		if !m.nextLiteralAt(i, end) {
			continue
		}
		span := m.uri[pos:end]
		if !pt.bind(span, nil) || !m.match(i+1, end) {
			continue
		}
		if m.vars == nil {
			m.vars = make(map[string]string, len(m.t.names))
		}
		pt.bind(span, m.vars)
		return true
	}
	return pt.op.first != "" && m.match(i+1, pos)
}

// nextLiteralAt is a quick test that skips ends where the literal after
// part i cannot start.
func (m *matcher) nextLiteralAt(i, end int) bool {
	if i+1 >= len(m.t.parts) {
		return end == len(m.uri)
	}
	next := &m.t.parts[i+1]
	if next.op != nil || next.lit == "" {
		return true
	}
	rest := m.uri[end:]
	return strings.HasPrefix(rest, next.lit) || strings.HasPrefix(rest, next.rawLit)
}

// The failure memo is only needed when backtracking can reach the same
// state twice, which takes at least two expressions; it is made on the
// first failure so that matches which never backtrack do not pay for it.
func (m *matcher) hasFailed(i, pos int) bool {
	if m.failed == nil {
		return false
	}
	bit := i*(len(m.uri)+1) + pos
	return m.failed[bit/64]&(1<<(bit%64)) != 0
}

func (m *matcher) setFailed(i, pos int) {
	if m.t.exprs < 2 {
		return
	}
	if m.failed == nil {
		m.failed = make([]uint64, (len(m.t.parts)*(len(m.uri)+1)+63)/64)
	}
	bit := i*(len(m.uri)+1) + pos
	m.failed[bit/64] |= 1 << (bit % 64)
}

// bind checks that span, matched by the expression, splits into the
// expression's variables, and stores their decoded values in dst unless
// dst is nil. An empty span binds nothing.
func (pt *part) bind(span string, dst map[string]string) bool {
	if span == "" {
		return true
	}
	body := span[len(pt.op.first):]
	if pt.op.named {
		return pt.bindNamed(body, dst)
	}
	if len(pt.vars) == 1 && pt.absorb == 0 { // the one variable takes it all
		v := pt.vars[0]
		if v.prefix > 0 && decodedLen(body) > v.prefix {
			return false
		}
		if dst != nil {
			dst[v.name] = unescape(body)
		}
		return true
	}
	sep := pt.op.sep
	extra := strings.Count(body, string(sep)) + 1 - len(pt.vars)
	if extra > 0 && pt.absorb < 0 {
		return false
	}
	for j, v := range pt.vars {
		take := 1 // pieces this variable takes
		if j == pt.absorb && extra > 0 {
			take += extra
		}
		end := 0
		for ; take > 0; take-- {
			n := strings.IndexByte(body[end:], sep)
			if n < 0 {
				end = len(body)
				break
			}
			end += n
			if take > 1 {
				end++ // step over a separator inside the variable's text
			}
		}
		value := body[:end]
		if v.prefix > 0 && decodedLen(value) > v.prefix {
			return false
		}
		if dst != nil && pt.varIndex(v.name) == j { // the first use wins
			dst[v.name] = unescape(value)
		}
		if end == len(body) {
			break // later variables are absent
		}
		body = body[end+1:]
	}
	return true
}

// bindNamed binds the name=value pieces of a ';', '?' or '&' expression.
func (pt *part) bindNamed(body string, dst map[string]string) bool {
	sep := string(pt.op.sep)
	var seenMask uint64 // variables already given a piece, for the first 64
	for rest := body; ; {
		piece, more, found := strings.Cut(rest, sep)
		name, value, _ := strings.Cut(piece, "=")
		j := pt.varIndex(name)
		if j < 0 {
			return false
		}
		v := pt.vars[j]
		if v.prefix > 0 && decodedLen(value) > v.prefix {
			return false
		}
		var seen bool
		if j < 64 {
			seen = seenMask&(1<<j) != 0
			seenMask |= 1 << j
		} else {
			seen = seenBefore(body[:len(body)-len(rest)], sep, name)
		}
		if seen && !v.explode {
			return false
		}
		if dst != nil {
			if seen {
				dst[name] += "," + unescape(value)
			} else {
				dst[name] = unescape(value)
			}
		}
		if !found {
			return true
		}
		rest = more
	}
}

// seenBefore reports whether the pieces in done, each followed by sep,
// include one named name.
func seenBefore(done, sep, name string) bool {
	for done != "" {
		piece, rest, _ := strings.Cut(done, sep)
		if n, _, _ := strings.Cut(piece, "="); n == name {
			return true
		}
		done = rest
	}
	return false
}

func (pt *part) varIndex(name string) int {
	for j, v := range pt.vars {
		if v.name == name {
			return j
		}
	}
	return -1
}
