// Package transport moves JSON-RPC frames between peers for package
// jsonrpc: newline-delimited streams over any reader and writer ([Stream]),
// the process's stdin and stdout ([Stdio]), and in-memory pipes
// ([NewPipe]) for tests and benchmarks. Every transport here implements
// [jsonrpc.Transport].
package transport
