// Package tasks benchmarks a task's whole life on the server side: a
// tools/call that asks for a task, then what the client does until it has
// the result. Every server runs the same echo tool as bench/echo (it
// returns its text at once), registered as one that may run as a task.
//
// The legacy era (2025-11-25) is measured for mcpgen and mcp-go, each
// serving one session over net.Pipe in this process and driven by one raw
// client ([Session]) that costs both the same: tools/call with "task":{},
// answered with a CreateTaskResult, then tasks/result, which waits for the
// task and returns the tool's result. go-sdk v1.8.0 has no tasks (no
// tasks/* methods, no taskSupport on tools, answers a task-augmented call
// synchronously), so it has no row; TestGoSDKHasNoTasks keeps that claim
// checked.
//
// 2026-07-28 tasks, the io.modelcontextprotocol/tasks extension, are
// measured for mcpgen alone ([Modern]), through Server.ServeCall with no
// transport: tools/call declaring the extension, answered with resultType
// "task", then tasks/get until the task is completed, whose answer inlines
// the result. The peers serve tasks only in the legacy era.
//
// Every task's result is checked to hold the echoed text, so a benchmark
// cannot time a failure.
package tasks
