package fielderr_test

import (
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/fielderr"
)

// A decoder or validator reports what is wrong where it finds it, and each
// level it returns through prepends its part of the JSON path, so the
// error names the value from the message's root.
func ExampleAtField() {
	err := fielderr.Required()              // the mimeType of a block is missing,
	err = fielderr.AtField(err, "mimeType") // in the block,
	err = fielderr.AtIndex(err, 2)          // the third of content
	err = fielderr.AtField(err, "content")
	fmt.Println(err)

	var fe *fielderr.FieldError
	if errors.As(err, &fe) {
		fmt.Printf("path %q, message %q\n", fe.Path, fe.Msg)
	}

	// Members whose names are not identifiers are quoted.
	fmt.Println(fielderr.AtField(fielderr.AtKey(fielderr.Maximum("100"), "io.example/limit"), "_meta"))
	// Output:
	// content[2].mimeType: required
	// path "content[2].mimeType", message "required"
	// _meta["io.example/limit"]: must be <= 100
}
