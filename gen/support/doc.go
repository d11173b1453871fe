// Package support is the hand-written part of every package the protocol
// generator writes. Each file here (doc.go aside) is copied into the
// generated package as support_NAME_gen.go, with its package clause
// renamed, when the package uses a name it declares: the JSON codec
// helpers, union picking, the method table's types, protocol versions and
// the error types that name a JSON path (aliases of runtime/fielderr's).
//
// The files are kept here as an ordinary package so that they compile and
// are tested on their own (go test ./gen/support). Nothing imports this
// package: code that needs these names uses the generated package's
// copies, such as mcp.FieldError and mcp.LookupMethod's mcp.MethodInfo.
package support
