// Package validator compiles the JSON Schemas that arrive as raw JSON (a
// tool's inputSchema or outputSchema) into validators, with
// github.com/santhosh-tekuri/jsonschema/v6.
//
// It is a package of its own because of what that validator costs at
// start-up: its package initialization (meta-schemas, message catalogs)
// takes milliseconds in every process that links it. Only what validates
// raw schemas imports this package, the client and package rawschema, so
// a server whose tools come with generated validators does not link it.
package validator

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/internal/schemarules"
)

// Compile checks schema with schemarules.Check and compiles it, once,
// into a function that validates a JSON value against it: what a server
// does with the raw schemas it registers, and a client with the output
// schemas of the tools it lists. name identifies the schema in the
// compiler's errors. The compiler loads nothing: a reference Check let
// through resolves inside the document, and any other is an error, never
// a fetch.
//
// The validator's errors are shortened to the first cause, which says
// where the value failed and why, without the compiler's quoting.
func Compile(name string, schema []byte) (validate func(value []byte) error, err error) {
	if _, err := schemarules.Check(schema, schemarules.Limits{}); err != nil {
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
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return func(value []byte) error { return check(s, value) }, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas may not refer to other documents (%s)", url)
}

// check validates the JSON value against a compiled schema.
func check(schema *jsonschema.Schema, value []byte) error {
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
