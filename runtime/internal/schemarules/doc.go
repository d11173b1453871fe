// Package schemarules applies the "JSON Schema Usage" rules of the MCP
// specification (revision 2026-07-28) to the schemas a server registers,
// a tool's inputSchema and outputSchema, once, at registration.
//
// [Check] settles the schema's dialect and refuses what a validator must
// not be left to decide at request time: a dialect that is not supported,
// a reference that would have to be fetched from elsewhere, and a schema
// large or deep enough to make validation a denial-of-service vector.
//
// Supported dialects are JSON Schema 2020-12, the default, and draft-07.
//
// Check is not a meta-schema validator. It reads the keywords it needs and
// leaves the rest, including keyword values of the wrong shape, to the
// validator that compiles the schema afterwards.
package schemarules
