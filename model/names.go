package model

import (
	"strings"
	"unicode"
)

// initialisms are written in capitals inside Go names, as golint expects.
var initialisms = map[string]bool{
	"API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true, "HTML": true,
	"HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true, "JSONRPC": true, "MIME": true, "RPC": true,
	"SQL": true, "TCP": true, "TLS": true, "TTL": true, "UI": true, "URI": true, "URL": true,
	"UTF8": true, "UUID": true, "XML": true,
}

// GoName turns a JSON property name into an exported Go identifier:
// "_meta" → "Meta", "mimeType" → "MIMEType", "io.modelcontextprotocol/protocolVersion"
// → "ProtocolVersion", "$schema" → "Schema", "input_required" → "InputRequired".
func GoName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1]) ||
				(i+1 < len(runes) && unicode.IsLower(runes[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	var b strings.Builder
	for _, w := range words {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(out)[0]) {
		out = "V" + out
	}
	return out
}
