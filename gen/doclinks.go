package gen

import (
	"path"
	"strings"
)

// The schema's descriptions come from TypeScript doc comments, whose
// inline links read {@link Target}, {@link Target | text} or
// {@link Target text}. The published schema.json files lose the separator
// on the way ({@link CallToolRequesttools/call} was
// {@link CallToolRequest | tools/call}), so the target is found as the
// longest prefix of the link that names a schema definition. A link
// becomes Go doc text:
//
//	{@link Tool}                        [Tool]
//	{@link Tool.outputSchema}           [Tool].outputSchema
//	{@link CallToolRequesttools/call}   tools/call ([CallToolRequest])
//	{@link Target | some text}          some text ([Target])
//
// A target the generated code has no type for is written as plain text,
// and a type of another Go package (an extension's copy of a core
// definition) as a qualified link, [mcp.Tool].

// docLinks rewrites the {@link ...} forms of text for a doc comment of
// the generated package.
func (g *generator) docLinks(text string) string {
	return renderLinks(text, func(name string) (string, bool) {
		t := g.m.Lookup(name)
		if t == nil {
			return "", false
		}
		if t.Package != "" {
			return path.Base(t.Package) + "." + name, true
		}
		return name, true
	})
}

// renderLinks rewrites every {@link BODY} of text. lookup reports whether
// name is a type the comment may link to, and the name to link it by
// (qualified when it lives in another package).
func renderLinks(text string, lookup func(name string) (string, bool)) string {
	const open = "{@link"
	if !strings.Contains(text, open) {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, open)
		if i < 0 {
			break
		}
		rest := text[i+len(open):]
		j := strings.IndexByte(rest, '}')
		if j < 0 || rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '}' {
			b.WriteString(text[:i+len(open)])
			text = rest
			continue
		}
		b.WriteString(text[:i])
		b.WriteString(renderLink(strings.TrimSpace(rest[:j]), lookup))
		text = rest[j+1:]
	}
	b.WriteString(text)
	return b.String()
}

// renderLink renders the body of one {@link BODY}.
func renderLink(body string, lookup func(string) (string, bool)) string {
	target, text := body, ""
	if t, x, ok := strings.Cut(body, "|"); ok {
		target, text = strings.TrimSpace(t), strings.TrimSpace(x)
	}
	name, member, rest := splitTarget(target, lookup)
	if rest != "" {
		text = strings.TrimSpace(rest + " " + text)
	}
	link, ok := lookup(name)
	if ok {
		link = "[" + link + "]"
	} else {
		link = name
	}
	link += member
	if text == "" || text == name+member {
		return link
	}
	return text + " (" + link + ")"
}

// splitTarget splits a link target into the definition it names, a member
// path of that definition (".outputSchema") and the text that follows:
// written after a space, or glued on when the schema lost the separator.
func splitTarget(target string, lookup func(string) (string, bool)) (name, member, rest string) {
	// The longest prefix that names a definition.
	end := 0
	for k := 1; k <= len(target); k++ {
		if !isIdentByte(target[k-1]) {
			break
		}
		if _, ok := lookup(target[:k]); ok {
			end = k
		}
	}
	if end == 0 {
		// Unknown: the first word is the target, as written.
		name, rest, _ = strings.Cut(target, " ")
		if k := strings.IndexByte(name, '.'); k > 0 {
			name, member = name[:k], name[k:]
		}
		return name, member, strings.TrimSpace(rest)
	}
	name, rest = target[:end], target[end:]
	if len(rest) > 1 && rest[0] == '.' && isIdentByte(rest[1]) {
		k := 1
		for k < len(rest) && (isIdentByte(rest[k]) || rest[k] == '.' && k+1 < len(rest) && isIdentByte(rest[k+1])) {
			k++
		}
		member, rest = rest[:k], rest[k:]
	}
	return name, member, strings.TrimSpace(rest)
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
