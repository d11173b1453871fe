package server

import (
	"context"
	"errors"
	"time"
)

// Tasks: tools that run in the background.
//
// A tool registered with WithTaskSupport may run as a task: the engine
// answers its tools/call at once with a task handle, runs the handler on
// a goroutine of its own, and the client polls for the status and fetches
// the result later. Both eras are served from the same registration and
// the same handler:
//
//   - 2026-07-28, the io.modelcontextprotocol/tasks extension: the server
//     declares it under capabilities.extensions; a request whose _meta
//     clientCapabilities declare it too may be answered with a
//     CreateTaskResult (resultType "task"). The client polls tasks/get,
//     which inlines the result or error once the task ends, answers the
//     questions a running task asks with tasks/update, and cancels with
//     tasks/cancel.
//   - 2025-11-25: the client asks for a task with the task param of
//     tools/call; tasks/get, tasks/list, tasks/result and tasks/cancel,
//     and notifications/tasks/status while the session lasts.
//
// The handler's ctx is cancelled by tasks/cancel (and by Server.Close);
// the input helpers (Elicit, CreateMessage, ListRoots) work inside it: a
// running 2026-07-28 task that asks a question waits in status
// input_required until tasks/update answers it, and a legacy one sends
// its session's client the request as a synchronous call would. Progress
// and Log reach a legacy task's session; in 2026-07-28 they are dropped,
// as the extension has no channel for them (its clients follow a task
// through tasks/get and notifications/tasks only, see tasklisten.go).
//
// A task belongs to whoever created it: the principal the transport
// authenticated, or without one the legacy session, or, for a 2026-07-28
// request that names nobody, every anonymous client alike (its id, 128
// random bits, is then the only capability). Another requestor's task id
// is answered as an unknown one. The records live in a tasks.Store
// (Options.TaskStore), bounded per requestor and in all.

// TaskSupport says whether a tool may run as a task. The values are the
// wire strings of the 2025-11-25 execution.taskSupport.
type TaskSupport string

const (
	// TaskForbidden: the tool always answers synchronously. It is the
	// default.
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional: the tool runs as a task when the client supports
	// tasks (2026-07-28: declares the extension on the request; 2025-11-25:
	// asks for one with the task param), and synchronously otherwise.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: the tool runs only as a task. A client that cannot
	// take one is refused before the handler runs: -32021 naming the
	// extension in 2026-07-28, -32601 in 2025-11-25.
	TaskRequired TaskSupport = "required"
)

// WithTaskSupport lets the tool run as a task (TaskOptional) or only as
// one (TaskRequired); tools/list shows it in the 2025-11-25
// execution.taskSupport. The task is created before the handler runs,
// unless the tool also has WithInputBeforeTask.
func WithTaskSupport(ts TaskSupport) ToolOption {
	return func(t *tool) { t.taskSupport = ts }
}

// WithInputBeforeTask makes a task-supporting tool gather its input as a
// synchronous call does and become a task only when its handler calls
// StartTask: in 2026-07-28 its questions end rounds of the request with
// InputRequiredResults (multi round-trip requests, see mrtr.go), and the
// round in which the handler calls StartTask is answered with the task
// handle. A handler that returns without calling StartTask answers the
// call itself. Legacy sessions, whose handlers ask their client directly,
// create the task before the handler runs, as without the option.
func WithInputBeforeTask() ToolOption {
	return func(t *tool) { t.inputBeforeTask = true }
}

// ErrNotTask is returned by StartTask when ctx does not serve a call that
// can become a task: another request, a tool without task support, or a
// client that cannot take a task.
var ErrNotTask = errors.New("server: the request cannot become a task")

// TaskID returns the id of the task whose handler ctx runs, or "" when ctx
// does not run one.
func TaskID(ctx context.Context) string {
	if r := requestOf(ctx); r != nil && r.task != nil {
		return r.task.id
	}
	return ""
}

// Defaults of the Options for tasks.
const (
	// DefaultTaskTTL is how long a finished task's result is kept when
	// the client asks for no TTL.
	DefaultTaskTTL = time.Hour
	// DefaultTaskPollInterval is the polling interval tasks suggest.
	DefaultTaskPollInterval = time.Second
	// DefaultMaxRunningTasks bounds the handlers running as tasks at once.
	DefaultMaxRunningTasks = 1000
)

// The parts of Options for tasks, with their defaults.

func (o *Options) taskTTL() time.Duration {
	if o.TaskTTL <= 0 {
		return DefaultTaskTTL
	}
	return o.TaskTTL
}

func (o *Options) taskPollInterval() time.Duration {
	if o.TaskPollInterval <= 0 {
		return DefaultTaskPollInterval
	}
	return o.TaskPollInterval
}

func (o *Options) maxRunningTasks() int {
	if o.MaxRunningTasks <= 0 {
		return DefaultMaxRunningTasks
	}
	return o.MaxRunningTasks
}

// StartTask turns the call ctx serves into a task, for a tool registered
// with WithTaskSupport and WithInputBeforeTask: the client's request is
// answered with the task handle and the handler goes on, with the same
// ctx, as the task. It returns ErrNotTask when the call cannot become a
// task (the client cannot take one, or the tool has no task support), and
// nil when ctx already runs as a task, so a handler may call it either
// way.
func StartTask(ctx context.Context) error {
	r := requestOf(ctx)
	if r == nil {
		return ErrNoSession
	}
	if r.task != nil {
		return nil
	}
	if r.starter == nil {
		return ErrNotTask
	}
	return r.starter.start()
}
