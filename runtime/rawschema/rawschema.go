// Package rawschema validates a server's tools against their own JSON
// Schemas, written by hand as raw JSON rather than derived from Go types by
// the generator:
//
//	s.AddTool(def, handler, rawschema.Validate())
//
// The schemas are compiled once, when the tool is added, with
// github.com/santhosh-tekuri/jsonschema/v6 (JSON Schema 2020-12 and
// draft-07), after the 2026-07-28 rules for schemas: no reference that
// would have to be fetched, bounded depth and size.
//
// It is a package of its own because that validator costs every process
// that links it milliseconds at start-up (its package initialization
// builds meta-schemas and message catalogs), and a stdio server is started
// for every client that connects. A server links it only when it adds a
// tool this way; generated handlers bring generated validators, and
// import it only for tools whose schemas come from a file.
package rawschema

import (
	"github.com/mcpgen/mcpgen/runtime/internal/validator"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Validate returns the option of server.Server.AddTool that validates the
// tool's arguments against its inputSchema, and its structuredContent
// against its outputSchema, if it has one. Arguments that fail get an
// isError result saying where and why; structuredContent that fails is
// reported as an internal error instead of being sent. A schema the
// validator cannot compile makes AddTool fail.
func Validate() server.ToolOption {
	return server.WithSchemaCompiler(validator.Compile)
}

// Compile compiles a raw JSON Schema (2020-12 unless it says otherwise)
// under the same rules as Validate, and returns what validates a JSON
// value against it: for a program that checks values against schemas it
// was given, such as a gateway checking a tool's arguments before a call.
// name identifies the schema in the compiler's errors. A value that fails
// gets an error naming where and why.
func Compile(name string, schema []byte) (validate func(value []byte) error, err error) {
	return validator.Compile(name, schema)
}
