package support

import "github.com/mcpgen/mcpgen/runtime/fielderr"

// The error types of decoding and validation live in runtime/fielderr,
// which the handler files mcpgen generates share; the protocol package
// names them as its own so that callers write mcp.FieldError.

// FieldError reports a problem with one value of an MCP message at its
// JSON path, such as "content[2].mimeType: required". Every error from
// decoding and validation is one.
type FieldError = fielderr.FieldError

// UnknownVariantError reports a union value whose discriminator names no
// variant. It reaches callers inside a *FieldError; use errors.As to find it.
type UnknownVariantError = fielderr.UnknownVariantError

// NoVariantError reports a union value that matches none of the union's
// variants. It reaches callers inside a *FieldError; use errors.As to find it.
type NoVariantError = fielderr.NoVariantError
