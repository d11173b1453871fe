// Package jsonrpc carries JSON-RPC 2.0 messages for mcpgen. It knows nothing
// of MCP: the protocol types live in the generated package mcp, which builds
// on what is here.
//
// The envelope layer reads and writes messages with params, results and
// error data kept as raw JSON: [DecodeMessage] and [DecodeBatch] check an
// envelope strictly and answer with the [Error] a server should send back;
// [AppendRequest], [AppendResult] and their siblings write envelopes into a
// caller's buffer. [Conn] runs one peer over a [Transport], answering
// requests through a [Handler] and sending its own with [Conn.Call];
// package transport holds the transports.
//
// Underneath, the package holds the JSON scanner and writer that the
// generated protocol package and the runtime use instead of reflection.
// [Scanner] reads one JSON document token by token, checking it strictly
// against RFC 8259, and allocates only when asked for a Go string. The
// Append functions ([AppendString], [AppendFloat], ...) write JSON into a
// caller's buffer and produce the same bytes as encoding/json.Marshal.
package jsonrpc
