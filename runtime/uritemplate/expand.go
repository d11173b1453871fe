package uritemplate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Expand expands the template with vars as RFC 6570 section 3 describes. A
// value may be a string, a []string (a list) or a map[string]string (an
// associative array, expanded in key order). A variable that is missing,
// nil, an empty list or an empty map is undefined and expands to nothing;
// the empty string is defined. Expand fails on a value of another type and
// on a prefix modifier applied to a list or map.
func (t *Template) Expand(vars map[string]any) (string, error) {
	var b strings.Builder
	b.Grow(len(t.raw))
	for i := range t.parts {
		pt := &t.parts[i]
		if pt.op == nil {
			b.WriteString(pt.lit)
			continue
		}
		if err := pt.expand(&b, vars); err != nil {
			return "", fmt.Errorf("uritemplate: expand %s: %w", t.raw[pt.start:pt.end], err)
		}
	}
	return b.String(), nil
}

func (pt *part) expand(b *strings.Builder, vars map[string]any) error {
	op := pt.op
	first := true
	// next writes what precedes a defined variable's expansion.
	next := func() {
		if first {
			b.WriteString(op.first)
			first = false
		} else {
			b.WriteByte(op.sep)
		}
	}
	for _, v := range pt.vars {
		switch x := vars[v.name].(type) {
		case nil:
		case string:
			next()
			if op.named {
				b.WriteString(v.name)
				if x == "" {
					b.WriteString(op.ifemp)
					continue
				}
				b.WriteByte('=')
			}
			if v.prefix > 0 {
				x = truncate(x, v.prefix)
			}
			escape(b, x, op.reserved)
		case []string:
			if len(x) == 0 {
				continue
			}
			if v.prefix > 0 {
				return fmt.Errorf("variable %q: prefix modifier on a list", v.name)
			}
			next()
			pt.expandList(b, v, x)
		case map[string]string:
			if len(x) == 0 {
				continue
			}
			if v.prefix > 0 {
				return fmt.Errorf("variable %q: prefix modifier on a map", v.name)
			}
			next()
			pt.expandMap(b, v, x)
		default:
			return fmt.Errorf("variable %q: unsupported value of type %T", v.name, x)
		}
	}
	return nil
}

func (pt *part) expandList(b *strings.Builder, v varspec, list []string) {
	op := pt.op
	if !v.explode {
		if op.named {
			b.WriteString(v.name)
			b.WriteByte('=')
		}
		for i, item := range list {
			if i > 0 {
				b.WriteByte(',')
			}
			escape(b, item, op.reserved)
		}
		return
	}
	for i, item := range list {
		if i > 0 {
			b.WriteByte(op.sep)
		}
		if op.named {
			b.WriteString(v.name)
			if item == "" {
				b.WriteString(op.ifemp)
				continue
			}
			b.WriteByte('=')
		}
		escape(b, item, op.reserved)
	}
}

func (pt *part) expandMap(b *strings.Builder, v varspec, m map[string]string) {
	op := pt.op
	keys := slices.Sorted(maps.Keys(m))
	if !v.explode {
		if op.named {
			b.WriteString(v.name)
			b.WriteByte('=')
		}
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			escape(b, k, op.reserved)
			b.WriteByte(',')
			escape(b, m[k], op.reserved)
		}
		return
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(op.sep)
		}
		escape(b, k, op.reserved)
		if op.named && m[k] == "" {
			b.WriteString(op.ifemp)
			continue
		}
		b.WriteByte('=')
		escape(b, m[k], op.reserved)
	}
}

// truncate returns the first n characters of s. Bytes that are not valid
// UTF-8 count as one character each.
func truncate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
