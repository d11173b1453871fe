package uritemplate_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/uritemplate"
)

// A resource template expands into URIs and matches them back, which is how
// the server routes a resources/read to the template that serves it.
func ExampleTemplate_Match() {
	t, err := uritemplate.Parse("files://{owner}/docs/{name}")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Vars())

	vars, ok := t.Match("files://ada/docs/notes.txt")
	fmt.Println(ok, vars["owner"], vars["name"])

	_, ok = t.Match("files://ada/images/cat.png")
	fmt.Println(ok)
	// Output:
	// [owner name]
	// true ada notes.txt
	// false
}

// Expand fills a template in, percent-encoding as RFC 6570 says for each
// kind of expression.
func ExampleTemplate_Expand() {
	t, err := uritemplate.Parse("search://{term}{?lang,page}")
	if err != nil {
		panic(err)
	}
	uri, err := t.Expand(map[string]any{"term": "go mcp", "lang": "en", "page": "2"})
	if err != nil {
		panic(err)
	}
	fmt.Println(uri)
	// Output:
	// search://go%20mcp?lang=en&page=2
}
