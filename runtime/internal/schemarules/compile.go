package schemarules

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile checks schema with Check and compiles it for validation, once:
// what a server does with the schemas it registers, and a client with the
// output schemas of the tools it lists. name identifies the schema in the
// compiler's errors. The compiler loads nothing: a reference Check let
// through resolves inside the document, and any other is an error, never
// a fetch.
func Compile(name string, schema []byte) (*jsonschema.Schema, error) {
	if _, err := Check(schema, Limits{}); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "mcpgen:///" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not refer to other documents (%s)", url)
}
