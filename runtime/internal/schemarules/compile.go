package schemarules

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

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

// Validate checks the JSON value against a schema Compile returned. A
// failure is shortened to its first cause, which says where the value
// failed and why, without the validator's quoting.
func Validate(schema *jsonschema.Schema, value []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	err = schema.Validate(inst)
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	msg := ve.Error()
	if i := strings.LastIndex(msg, "\n- "); i >= 0 {
		msg = msg[i+3:]
	}
	return errors.New(strings.ReplaceAll(msg, "'", ""))
}
