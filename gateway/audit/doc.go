// Package audit writes the gateway's audit log: one JSON line for every
// list, call, read and get a client makes through the gateway.
//
// A line reads (wrapped here):
//
//	{"time":"2026-12-03T10:51:00.123Z","principal":"alice@https://idp.example",
//	 "server":"default","upstream":"gh","name":"gh__issue_read","method":"tools/call",
//	 "decision":"allowed","latencyMs":12.5,"resultBytes":2048,
//	 "argsDigest":"sha256:9f86...","argNames":["issue","repo"],"args":{"repo":"mcpgen/mcpgen"}}
//
// # What is written, and what never is
//
// The arguments of a call are an audit log's usual leak: a tool that takes
// a token or a password as an argument would otherwise put it in a file
// that more people read than the gateway's configuration. So a line holds
// the arguments' digest (the SHA-256 of their canonical JSON: keys sorted,
// no insignificant white space, numbers and strings as the client wrote
// them) and their top-level names, and no value, unless the configuration
// allows a field for that tool (Config.Arguments). Even an allowed field
// is not written when its name says it holds a credential (token, secret,
// password, authorization, api key, cookie, ...), and any string written,
// an allowed value or a Record's Reason, has bearer tokens and JWTs in it
// replaced with "[redacted]". A Record has no field for request headers,
// so an Authorization header cannot reach the log.
//
// The digest lets an operator check that a call carried given arguments
// (hash them the same way) without the log holding them.
//
// # Writing
//
// A Logger formats each Record on the caller's goroutine and hands the
// line to one writer goroutine through a bounded queue, which writes each
// line with a single Write call: lines never interleave, whoever logs
// them. When the queue is full (the file system is slower than the
// gateway) the line is dropped and counted, not waited for: a slow disk
// must not slow every call down, and a gateway that blocked on its audit
// log would turn a full disk into an outage. Dropped returns the count for
// metrics, and the next line written after a drop is preceded by a line
// {"time":...,"dropped":N} so the gap shows in the log itself. Close
// writes what is queued and closes the file.
//
// A line longer than Config.MaxLineBytes loses its argument values first
// and then has its long strings cut, and carries "truncated":true.
package audit
