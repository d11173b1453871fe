// Package fielderr is the one implementation of the errors that decoding
// and validation report with a JSON path, such as
// "content[2].mimeType: required".
//
// Two kinds of generated code import it, and nothing else should need to:
//
//   - the protocol package mcpgen generates (generated/mcp), whose
//     decoders and validators build their errors here and whose
//     FieldError, UnknownVariantError and NoVariantError are aliases of
//     the types here;
//   - the handler files mcpgen generates into users' modules, whose
//     argument decoders report through the same helpers, so that a
//     handler's errors read like the protocol's and callers find both
//     with errors.As.
//
// It is a leaf: it imports only the standard library and runtime/jsonrpc
// (whose scanner errors it explains), because generated/mcp imports it and
// runtime/handler imports generated/mcp.
//
// Errors are built from the inside out: a constructor makes a FieldError
// with an empty path, and each enclosing decoder or validator prepends its
// own segment with AtField, AtKey or AtIndex on the way out. Those helpers
// run only once something has failed, so a successful decode or validation
// allocates nothing for errors; they take ownership of the error they are
// given and may change it in place. A nil error stays nil, so a call need
// not be guarded.
//
// The messages, for the record (want and limit are written by the
// generator, already in JSON):
//
//	Required()                        required
//	Const(want)                       must be <want>
//	Enum(got, allowed)                must be one of <allowed>, got <quoted got>
//	Type(want, got)                   expected <want>, got <kind of got>
//	Format(format)                    not a valid <format>
//	Minimum(limit)                    must be >= <limit>
//	Maximum(limit)                    must be <= <limit>
//	ExclusiveMinimum(limit)           must be > <limit>
//	ExclusiveMaximum(limit)           must be < <limit>
//	MultipleOf(n)                     must be a multiple of <n>
//	MinLength(n)                      must be at least <n> characters long
//	MaxLength(n)                      must be at most <n> characters long
//	Pattern(pattern)                  must match the pattern <quoted pattern>
//	MinItems(n)                       must have at least <n> items
//	MaxItems(n)                       must have at most <n> items
//	UniqueItems(i, j)                 items [<i>] and [<j>] must not be equal
//	MinProperties(n)                  must have at least <n> properties
//	MaxProperties(n)                  must have at most <n> properties
//	UnknownProperty()                 unknown property (placed at the key with AtKey)
//	UnknownVariant(union, key, value) unknown <union> variant: <key> <quoted value>
//	NoVariant(union, kind)            no <union> variant matches this <kind>
//	New(msg)                          <msg>, for what the list above does not cover
//
// Errors from the JSON scanner become FieldErrors too (see From), keeping
// the original in Err:
//
//	*jsonrpc.TypeError     expected <want>, got <kind>
//	*jsonrpc.NumberError   number <literal> <problem>, e.g. number 1.5 is not an integer
//	*jsonrpc.SyntaxError   invalid JSON: <problem> at offset <n>
//	any other error        its Error text
//
// Quoted values use Go quoting (strconv.Quote), so that odd bytes stay
// visible.
package fielderr
