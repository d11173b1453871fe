// Package tasks keeps the records of MCP tasks: requests a server runs in
// the background while the client polls for their status and fetches the
// result later. The server engine uses it for both protocol eras: the
// 2025-11-25 tasks utility (tasks/get, tasks/list, tasks/result,
// tasks/cancel, notifications/tasks/status) and the 2026-07-28
// io.modelcontextprotocol/tasks extension (tasks/get with the result, error
// or input requests inline, tasks/update, tasks/cancel).
//
// A [Store] holds [Task] records. Records are plain data that serialize
// with encoding/json, so one store can be shared by replicas: every
// operation names the task's owner (the authorization context that created
// it) and its id, and status changes are compare-and-set, so two replicas
// racing to finish one task cannot both succeed. [MemoryStore] is the
// in-memory implementation for a single process; a Redis implementation
// lives in its own module.
//
// The package knows nothing of JSON-RPC or of the generated protocol
// types: the engine translates records into each era's Task shape.
package tasks
