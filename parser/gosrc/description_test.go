package gosrc

import "testing"

// A handler's doc comment loses its leading Go name where godoc
// convention puts it, and only there.
func TestHandlerDescription(t *testing.T) {
	tests := []struct {
		name, doc, goName, recv, want string
	}{
		{"verb after the name", "CreateIssue files a new issue.", "CreateIssue", "", "Files a new issue."},
		{"one word after the name", "Ping pings.", "Ping", "", "Pings."},
		{"later paragraphs kept", "Add adds two numbers.\n\nIt rounds as Mode says.", "Add", "", "Adds two numbers.\n\nIt rounds as Mode says."},
		{"name alone on the first line", "Search\nsearches the index.", "Search", "", "Searches the index."},
		{"is and an article", "Search is the tool that finds issues.", "Search", "", "The tool that finds issues."},
		{"is and a", "Echo is a tool that repeats its input.", "Echo", "", "A tool that repeats its input."},
		{"is without an article", "Ping is cheap.", "Ping", "", "Ping is cheap."},
		{"imperative", "Get the weather for a city.", "Get", "", "Get the weather for a city."},
		{"modal verb", "CreateIssue may fail when the tracker is down.", "CreateIssue", "", "CreateIssue may fail when the tracker is down."},
		{"irregular verb", "Status has the tracker's state.", "Status", "", "Has the tracker's state."},
		{"imperative with a plural object", "List issues by label.", "List", "", "Issues by label."},
		{"method by its own name", "Get reads a value.", "Get", "Store", "Reads a value."},
		{"method by its qualified name", "Store.Get reads a value.", "Get", "Store", "Reads a value."},
		{"function by a qualified name is not its name", "Store.Get reads a value.", "Get", "", "Store.Get reads a value."},
		{"another name", "Create files a new issue.", "CreateIssue", "", "Create files a new issue."},
		{"name in another case", "createIssue files a new issue.", "CreateIssue", "", "createIssue files a new issue."},
		{"an article first", "A CreateIssue call files an issue.", "CreateIssue", "", "A CreateIssue call files an issue."},
		{"possessive", "CreateIssue's result is the new issue.", "CreateIssue", "", "CreateIssue's result is the new issue."},
		{"punctuation after the name", "CreateIssue, given a title, files an issue.", "CreateIssue", "", "CreateIssue, given a title, files an issue."},
		{"capital after the name", "Add Numbers together.", "Add", "", "Add Numbers together."},
		{"the name alone", "CreateIssue", "CreateIssue", "", "CreateIssue"},
		{"the name and a full stop", "CreateIssue.", "CreateIssue", "", "CreateIssue."},
		{"deprecated", "Deprecated: use CreateIssue.", "OpenIssue", "", "Deprecated: use CreateIssue."},
		{"no doc", "", "Add", "", ""},
		{"non-ASCII verb", "Zähle élèves le compte.", "Zähle", "", "Élèves le compte."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handlerDescription(tt.doc, tt.goName, tt.recv); got != tt.want {
				t.Errorf("handlerDescription(%q, %s, %q) = %q, want %q", tt.doc, tt.goName, tt.recv, got, tt.want)
			}
		})
	}
}

// A field's doc comment loses "Name is"/"Name are" before an article, and
// nothing else.
func TestFieldDescription(t *testing.T) {
	tests := []struct {
		name, doc, field, want string
	}{
		{"is the", "Title is the issue's title.", "Title", "The issue's title."},
		{"is a", "Limit is a cap on the results.", "Limit", "A cap on the results."},
		{"is an", "ID is an opaque identifier.", "ID", "An opaque identifier."},
		{"are the", "Labels are the labels to attach.", "Labels", "The labels to attach."},
		{"is on its own line", "Title is\nthe issue's title.", "Title", "The issue's title."},
		{"is without an article", "Count is at most 10.", "Count", "Count is at most 10."},
		{"is and nothing after", "Title is", "Title", "Title is"},
		{"a verb is kept", "Limit caps the results.", "Limit", "Limit caps the results."},
		{"of is kept", "Name of the user.", "Name", "Name of the user."},
		{"another field's name", "Title is the issue's title.", "Body", "Title is the issue's title."},
		{"a noun phrase", "First addend.", "A", "First addend."},
		{"article in capitals is not one", "Title is The Title.", "Title", "Title is The Title."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldDescription(tt.doc, tt.field); got != tt.want {
				t.Errorf("fieldDescription(%q, %s) = %q, want %q", tt.doc, tt.field, got, tt.want)
			}
		})
	}
}
