package gosrc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Descriptions come from doc comments, which Go writes about a
// declaration ("CreateIssue files a new issue."), while a model reads them
// as written about the tool ("Files a new issue."). handlerDescription and
// fieldDescription drop the Go name where the godoc convention puts it,
// and nowhere else:
//
//   - the comment's first word is the declaration's own name (for a
//     method, also Recv.Name), followed by a space or a line break;
//   - "Name is a/an/the ..." and "Name are a/an/the ..." lose "Name is" or
//     "Name are": "Title is the issue's title." becomes "The issue's
//     title.";
//   - a handler's "Name verbs ..." loses Name when the next word is a
//     verb in the third person as godoc writes it, lower-case and ending
//     in s: "CreateIssue files a new issue." becomes "Files a new
//     issue.". A field's does not: "Name of the user." is as common in a
//     field's comment as "Name sets ...", and reads well as it stands;
//   - the word that then leads is capitalised, and nothing else changes.
//
// Any other comment is kept whole: one that starts with another word
// ("Deprecated: ...", "A CreateIssue ...", "CreateIssue's ..."), an
// imperative one ("Get the weather for a city."), one with "Name is"
// followed by anything but an article ("Count is at most 10."), or one with
// nothing after the name. An imperative whose object ends in s ("List
// issues by label.") cannot be told from the convention and loses its
// first word; description= on the directive says exactly what to send.

// handlerDescription is the description of a tool, prompt or resource
// whose function (a method of recv, "" for a function) is named name and
// documented by doc.
func handlerDescription(doc, name, recv string) string {
	names := []string{name}
	if recv != "" {
		names = append(names, recv+"."+name)
	}
	return dropGoName(doc, names, true)
}

// fieldDescription is the description of a property whose field is named
// name and documented by doc.
func fieldDescription(doc, name string) string {
	return dropGoName(doc, []string{name}, false)
}

// dropGoName drops the leading Go name from doc by the rules above; verbs
// allows "Name verbs ..." to lose Name.
func dropGoName(doc string, names []string, verbs bool) string {
	first, rest := cutWord(doc)
	if !slices.Contains(names, first) {
		return doc
	}
	word, after := cutWord(rest)
	switch {
	case word == "is" || word == "are":
		if article, _ := cutWord(after); article == "a" || article == "an" || article == "the" {
			return upperFirst(after)
		}
	case verbs && startsLower(word) && strings.HasSuffix(strings.TrimRight(word, ".,;:!?"), "s"):
		return upperFirst(rest)
	}
	return doc
}

// cutWord returns s's first word and what follows it, the blanks (line
// breaks among them) between the two dropped.
func cutWord(s string) (word, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace)
}

// startsLower reports whether s starts with a lower-case letter.
func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}
