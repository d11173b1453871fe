// Package mcpheader implements the rules of SEP-2243 for tool parameters
// that the Streamable HTTP transport copies from a tools/call body into
// Mcp-Param-{Name} request headers, so that load balancers and gateways can
// route on them without reading the body.
//
// The rules live here once for both ends of a connection. At tool
// registration the server runs [Params] over the tool's inputSchema to find
// and validate the x-mcp-header annotations; per request it runs [Check] to
// make sure the headers say what the body says, since an intermediary that
// routes on a header and a server that acts on the body must never see two
// different values. A client builds the same headers with [Params],
// [Lookup] and [FormatValue].
//
// Header values travel either literally or, when they are not safe as
// plain header text, in the Base64 form =?base64?...?=; [Encode] and
// [Decode] convert between the two.
//
// Error messages may echo parts of header values or arguments. They show
// at most a short prefix, quoted with every non-printable or non-ASCII byte
// escaped, so that a hostile value can neither flood a log nor inject line
// breaks into it.
package mcpheader
