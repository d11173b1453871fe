package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Tasks: a tools/call the server answers with a handle, whose result the
// client fetches later.
//
//   - 2026-07-28, the io.modelcontextprotocol/tasks extension: a request
//     declares the extension in its _meta clientCapabilities, and the
//     server may answer its tools/call with a CreateTaskResult (resultType
//     "task"). tasks/get reports the status and, once the task ends,
//     inlines its result or error; a task in input_required lists what it
//     asks (the inputRequests of a multi round-trip request), which the
//     client answers with tasks/update; tasks/cancel cancels it.
//   - 2025-11-25: a tools/call asks for a task with params.task, when the
//     server offers tasks for tools/call (capabilities.tasks) and the tool
//     allows it (execution.taskSupport); the answer is a CreateTaskResult.
//     tasks/get reports the status, tasks/result returns the result once
//     the task ends, tasks/cancel cancels it. A running task asks for input
//     with ordinary requests on the session, which the handlers answer.
//
// Session.StartToolTask returns the handle, a *Task; with Options.Tasks,
// CallTool follows the task itself. Input is answered by the handlers of
// Options (Elicit, CreateMessage, Roots), as in a multi round-trip request
// (Session.fulfill). A Task polls only while its caller waits, on the
// caller's goroutine: it starts none of its own.

// ExtensionTasks is the identifier of the tasks extension of 2026-07-28,
// the key a client declares it under in capabilities.extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// The bounds of the interval between two tasks/get of a Task.Wait. The
// server suggests an interval (pollIntervalMs; pollInterval in
// 2025-11-25); the client keeps to it within these bounds, so that a
// server can neither make it spin nor stall it.
const (
	// DefaultTaskPollInterval is the interval when the server suggests none.
	DefaultTaskPollInterval = time.Second
	// MinTaskPollInterval is the shortest interval, whatever the server says.
	MinTaskPollInterval = 50 * time.Millisecond
	// MaxTaskPollInterval is the longest interval, whatever the server says.
	MaxTaskPollInterval = 30 * time.Second
)

// taskCancelTimeout bounds the tasks/cancel a CallTool sends, best effort,
// when its ctx ends while its task runs.
const taskCancelTimeout = 5 * time.Second

// ErrTaskCancelled is wrapped by the error of waiting for a task that was
// cancelled, by the client or by the server.
var ErrTaskCancelled = errors.New("client: the task was cancelled")

// Task is a tools/call the server runs in the background, or that it
// answered at once. Its methods may be called from any goroutine.
type Task struct {
	s      *Session
	id     string // "" for a call the server answered at once
	call   []byte // the params of the tools/call, for checking the result
	legacy bool   // a task of 2025-11-25, whose result comes from tasks/result

	mu       sync.Mutex
	status   mcp.TaskStatus
	message  string            // the server's statusMessage, "" for none
	interval time.Duration     // between two polls, within the bounds
	inputs   mcp.InputRequests // what a 2026-07-28 task in input_required asks, until answered
	raw      []byte            // the CallToolResult, once known and checked
	err      error             // why the task has no result, once known
}

type taskKey struct{}

// wantsTask reports whether a tools/call sent with ctx may become a task:
// the Client takes tasks, or the call came from StartToolTask.
func (s *Session) wantsTask(ctx context.Context) bool {
	return s.client.opts.Tasks || ctx.Value(taskKey{}) != nil
}

// capsFor returns the encoded capabilities a 2026-07-28 request declares:
// with the tasks extension for the requests of a task, for a tools/call
// that may become one and for a subscriptions/listen naming tasks, without
// it otherwise.
func (s *Session) capsFor(ctx context.Context, method string) []byte {
	tasks := strings.HasPrefix(method, "tasks/") || (method == mcp.MethodCallTool && s.wantsTask(ctx)) ||
		(method == mcp.MethodSubscriptionsListen && ctx.Value(taskKey{}) != nil)
	if caps, ok := ctx.Value(capsKey{}).(json.RawMessage); ok {
		return s.requestCaps(caps, tasks)
	}
	if tasks {
		return s.client.taskCapsJSON
	}
	return s.client.capsJSON
}

type capsKey struct{}

// WithCapabilities returns a copy of ctx whose 2026-07-28 requests declare
// caps, the JSON of a ClientCapabilities object, instead of the Client's
// capabilities (Options.Capabilities and the handlers'): for a proxy that
// declares, on each request it forwards, what its own client declared,
// as it came. The tasks extension is declared as without it, where the
// Session would declare it, and only there. Empty caps declare none.
// Legacy sessions declare their capabilities once, in initialize, and
// ignore it.
func WithCapabilities(ctx context.Context, caps json.RawMessage) context.Context {
	if len(caps) == 0 {
		caps = json.RawMessage(`{}`)
	}
	return context.WithValue(ctx, capsKey{}, caps)
}

// requestCaps returns the capabilities of WithCapabilities, with the
// tasks extension when tasks, else without it: as they came when they
// need no change, which they mostly do not.
func (s *Session) requestCaps(raw json.RawMessage, tasks bool) []byte {
	if !tasks && !bytes.Contains(raw, []byte(ExtensionTasks)) {
		return raw
	}
	var caps mcp.ClientCapabilities
	if err := caps.UnmarshalJSON(raw); err != nil {
		s.client.log.Error("client: the capabilities of WithCapabilities do not decode; declaring none", "err", err)
		caps = mcp.ClientCapabilities{}
	}
	if tasks {
		return withTasksExtension(caps, s.client.log)
	}
	if _, has := caps.Extensions[ExtensionTasks]; !has {
		return raw
	}
	caps.Extensions = maps.Clone(caps.Extensions)
	delete(caps.Extensions, ExtensionTasks) // an object left empty says the same: none
	out, err := caps.MarshalJSON()
	if err != nil {
		s.client.log.Error("client: the capabilities of WithCapabilities do not encode; declaring none", "err", err)
		return []byte(`{}`)
	}
	return out
}

// withTasksExtension encodes caps with the tasks extension declared.
func withTasksExtension(caps mcp.ClientCapabilities, log *slog.Logger) []byte {
	ext := maps.Clone(caps.Extensions)
	if ext == nil {
		ext = map[string]mcp.JSONObject{}
	}
	if _, ok := ext[ExtensionTasks]; !ok {
		ext[ExtensionTasks] = mcp.JSONObject{}
	}
	caps.Extensions = ext
	raw, err := caps.MarshalJSON()
	if err != nil {
		log.Error("client: the capabilities with the tasks extension do not encode; declaring only the extension", "err", err)
		return []byte(`{"extensions":{"` + ExtensionTasks + `":{}}}`)
	}
	return raw
}

// askForTask returns the params of a legacy tools/call with a task asked
// for, when ctx wants one, the server offers tasks for tools/call and the
// tool allows it: its tools/list entry says optional or required, or, for
// StartToolTask, the Session has not listed it. Params that ask already
// are left as they are.
func (s *Session) askForTask(ctx context.Context, params []byte) []byte {
	if !s.wantsTask(ctx) || s.init == nil || memberOf(params, "task") != nil {
		return params
	}
	if tc := s.init.Capabilities.Tasks; tc == nil || tc.Requests == nil || tc.Requests.Tools == nil || tc.Requests.Tools.Call == nil {
		return params
	}
	name := toolName(params)
	t := s.tools.get(name)
	if t == nil && ctx.Value(taskKey{}) == nil {
		s.learnTools(ctx)
		t = s.tools.get(name)
	}
	switch {
	case t == nil && ctx.Value(taskKey{}) != nil:
	case t == nil || (t.taskSupport != "optional" && t.taskSupport != "required"):
		return params
	}
	task := []byte(`{}`)
	if ttl := s.client.opts.TaskTTL; ttl > 0 {
		task = fmt.Appendf(nil, `{"ttl":%d}`, ttl.Milliseconds())
	}
	top, err := members(params)
	if err != nil {
		return params // the send reports it
	}
	return object(set(top, "task", task))
}

// maxLearnPages bounds the pages of tools/list learnTools reads.
const maxLearnPages = 100

// learnTools lists the server's tools, once per Session, so that a legacy
// tools/call of a tool the caller never listed knows whether the tool
// allows a task (and one that requires a task is not sent without). A
// failure leaves the tool unknown, so the call is sent without a task.
func (s *Session) learnTools(ctx context.Context) {
	if !s.learned.CompareAndSwap(false, true) {
		return
	}
	var cursor string
	for range maxLearnPages {
		var p *mcp.PaginatedRequestParams
		if cursor != "" {
			p = &mcp.PaginatedRequestParams{Cursor: cursor}
		}
		res, err := s.ListTools(ctx, p)
		if err != nil || res.NextCursor == "" {
			return
		}
		cursor = res.NextCursor
	}
}

// StartToolTask sends tools/call as a call that may run as a task, and
// returns its handle once the server has answered: a task to follow
// (Task.Wait), or, when the server answered at once, a Task that is
// already complete. In 2026-07-28 the request declares the tasks
// extension; in a legacy session it asks for a task when the server
// offers tasks for tools/call and the tool does not forbid them.
//
// Unlike CallTool, the Task outlives ctx, which bounds only this request:
// a Wait that ends with its ctx leaves the task running, for Cancel.
func (s *Session) StartToolTask(ctx context.Context, p *mcp.CallToolRequestParams) (*Task, error) {
	if p == nil {
		return nil, errors.New("client: StartToolTask: nil params: a tools/call names its tool")
	}
	params, err := p.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("client: tools/call: params: %w", err)
	}
	ctx = context.WithValue(ctx, taskKey{}, true)
	raw, task, err := s.roundTrip(ctx, mcp.MethodCallTool, params)
	if err != nil {
		return nil, err
	}
	if task {
		return s.taskOf(params, raw)
	}
	if raw, err = s.received(mcp.MethodCallTool, params, raw); err != nil {
		return nil, err
	}
	return &Task{s: s, call: params, status: mcp.TaskStatusCompleted, raw: raw}, nil
}

// taskOf returns the Task of a tools/call answered with raw, a task
// handle (roundTrip says which results are).
func (s *Session) taskOf(params, raw []byte) (*Task, error) {
	t := &Task{s: s, call: params, legacy: !s.modern}
	if s.modern {
		r := new(tasks.CreateTaskResult)
		if err := r.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("client: tools/call: the CreateTaskResult does not decode: %w", err)
		}
		t.id, t.status, t.message = r.TaskID, mcp.TaskStatus(r.Status), r.StatusMessage
		t.interval = pollInterval(r.PollIntervalMs)
	} else {
		r := new(mcp.CreateTaskResult)
		if err := r.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("client: tools/call: the CreateTaskResult does not decode: %w", err)
		}
		t.id, t.status, t.message = r.Task.TaskID, r.Task.Status, r.Task.StatusMessage
		t.interval = pollInterval(r.Task.PollInterval)
	}
	if t.id == "" {
		return nil, errors.New("client: tools/call: the server answered with a task that has no taskId")
	}
	if t.status == mcp.TaskStatusCancelled {
		t.err = t.cancelled()
	}
	return t, nil
}

// pollInterval returns the interval the server suggests, in milliseconds,
// within the bounds.
func pollInterval(ms int64) time.Duration {
	if ms <= 0 {
		return DefaultTaskPollInterval
	}
	return min(max(time.Duration(ms)*time.Millisecond, MinTaskPollInterval), MaxTaskPollInterval)
}

// ID returns the task's id, or "" when the server answered the call at
// once.
func (t *Task) ID() string { return t.id }

// Status returns the status the server last reported, without asking it.
func (t *Task) Status() mcp.TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

// StatusMessage returns the statusMessage the server last reported.
func (t *Task) StatusMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.message
}

// done returns the outcome once it is known.
func (t *Task) done() (raw []byte, ok bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.doneLocked()
}

// doneLocked is done with t.mu held.
func (t *Task) doneLocked() (raw []byte, ok bool, err error) {
	return t.raw, t.raw != nil || t.err != nil, t.err
}

// Poll asks the server for the task's status with one tasks/get, unless
// its outcome is already known, and returns the status. A 2026-07-28 task
// that has ended brings its outcome, which Wait then returns without
// asking again.
func (t *Task) Poll(ctx context.Context) (mcp.TaskStatus, error) {
	if _, ok, _ := t.done(); ok {
		return t.Status(), nil
	}
	if t.legacy {
		return t.pollLegacy(ctx)
	}
	params := object([]member{{key: "taskId", value: jsonrpc.AppendString(nil, t.id)}})
	raw, err := caller{t.s}.Call(ctx, tasks.MethodGetTask, params)
	if err != nil {
		return "", fmt.Errorf("client: tasks/get %s: %w", t.id, err)
	}
	var d tasks.DetailedTask
	if err := d.UnmarshalJSON(raw); err != nil {
		return "", fmt.Errorf("client: tasks/get %s: the result does not decode: %w", t.id, err)
	}
	return t.apply(d)
}

// apply takes a 2026-07-28 task's state, from tasks/get or a status
// notification: its status, and what the status carries (the questions
// of input_required, the result or error of a task that ended).
func (t *Task) apply(d tasks.DetailedTask) (mcp.TaskStatus, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok, _ := t.doneLocked(); ok {
		return t.status, nil // a late notification of an outcome already taken
	}
	switch v := d.Value.(type) {
	case *tasks.WorkingTask:
		t.status, t.message, t.interval = mcp.TaskStatusWorking, v.StatusMessage, pollInterval(v.PollIntervalMs)
	case *tasks.InputRequiredTask:
		t.status, t.message, t.interval = mcp.TaskStatusInputRequired, v.StatusMessage, pollInterval(v.PollIntervalMs)
		t.inputs = v.InputRequests
	case *tasks.CompletedTask:
		t.status, t.message = mcp.TaskStatusCompleted, v.StatusMessage
		t.raw, t.err = t.s.received(mcp.MethodCallTool, t.call, v.Result)
	case *tasks.FailedTask:
		t.status, t.message = mcp.TaskStatusFailed, v.StatusMessage
		t.err = &jsonrpc.Error{Code: v.Error.Code, Message: v.Error.Message, Data: v.Error.Data}
	case *tasks.CancelledTask:
		t.status, t.message = mcp.TaskStatusCancelled, v.StatusMessage
		t.err = t.cancelled()
	default:
		return "", fmt.Errorf("client: task %s: a state of type %T", t.id, v)
	}
	return t.status, nil
}

// pollLegacy is Poll in 2025-11-25: the status only, the result being
// tasks/result's.
func (t *Task) pollLegacy(ctx context.Context) (mcp.TaskStatus, error) {
	r, err := t.s.GetTask(ctx, &mcp.GetTaskRequestParams{TaskID: t.id})
	if err != nil {
		return "", fmt.Errorf("client: tasks/get %s: %w", t.id, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.status, t.message, t.interval = r.Status, r.StatusMessage, pollInterval(r.PollInterval)
	if t.status == mcp.TaskStatusCancelled {
		t.err = t.cancelled()
	}
	return t.status, nil
}

// cancelled is the error of a cancelled task; t.mu is held.
func (t *Task) cancelled() error {
	if t.message != "" {
		return fmt.Errorf("%w: task %s: %s", ErrTaskCancelled, t.id, t.message)
	}
	return fmt.Errorf("%w: task %s", ErrTaskCancelled, t.id)
}

// Wait follows the task to its end and returns the tool's result: it polls
// at the interval the server suggests (within MinTaskPollInterval and
// MaxTaskPollInterval), answers what a task in input_required asks through
// the Client's handlers, and returns the result of a completed task, the
// *jsonrpc.Error of a failed one, or an error wrapping ErrTaskCancelled. A
// result whose structuredContent does not match the tool's outputSchema is
// an *OutputError, as for CallTool.
//
// When ctx ends, Wait returns ctx.Err() and the task goes on: Cancel
// stops it, and Wait may be called again.
func (t *Task) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	raw, err := t.wait(ctx)
	if err != nil {
		return nil, err
	}
	res := new(mcp.CallToolResult)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("client: task %s: the result does not decode: %w", t.id, err)
	}
	return res, nil
}

// wait is Wait for the raw result, checked.
func (t *Task) wait(ctx context.Context) ([]byte, error) {
	var sub *Subscription
	if !t.legacy && t.id != "" && t.s.client.opts.TaskNotifications {
		if sub = t.listen(ctx); sub != nil {
			defer sub.Close()
		}
	}
	for {
		if raw, ok, err := t.done(); ok {
			return raw, err
		}
		t.mu.Lock()
		status, inputs, interval := t.status, t.inputs, t.interval
		t.mu.Unlock()
		if status == mcp.TaskStatusInputRequired && len(inputs) == 0 && !t.legacy {
			// Nothing to answer (the questions were answered, or the
			// server listed none): wait as for a working task.
			status = mcp.TaskStatusWorking
		}
		switch {
		case t.legacy && status != mcp.TaskStatusWorking:
			// tasks/result waits for the end, while the task's questions
			// come as requests on the session.
			return t.result(ctx)
		case status == mcp.TaskStatusInputRequired && len(inputs) > 0:
			if err := t.answer(ctx, inputs); err != nil {
				return nil, err
			}
		case status == mcp.TaskStatusWorking && sub != nil:
			told, err := t.await(ctx, sub)
			if err != nil {
				return nil, err
			}
			if told {
				continue
			}
			if sub.ended() {
				sub.Close()
				sub = nil
			}
		case status == mcp.TaskStatusWorking:
			if err := t.sleep(ctx, interval); err != nil {
				return nil, err
			}
		}
		if _, err := t.Poll(ctx); err != nil {
			return nil, err
		}
	}
}

// listen opens a subscription to the task's status notifications, or
// returns nil when the server does not agree to send them.
func (t *Task) listen(ctx context.Context) *Subscription {
	sub, err := t.s.Listen(ctx, WithTaskIDs(mcp.SubscriptionFilter{}, t.id))
	if err != nil {
		t.s.client.log.Debug("client: cannot listen for the task's status; polling", "task", t.id, "err", err)
		return nil
	}
	if !slices.Contains(sub.TaskIDs(), t.id) {
		sub.Close()
		return nil
	}
	return sub
}

// await waits for the task's next status notification, and takes it; it
// reports false when MaxTaskPollInterval passed first, or the
// subscription ended, and the caller polls instead.
func (t *Task) await(ctx context.Context, sub *Subscription) (bool, error) {
	wctx, cancel := context.WithTimeout(ctx, MaxTaskPollInterval)
	defer cancel()
	for {
		c, err := sub.Next(wctx)
		switch {
		case ctx.Err() != nil:
			return false, ctx.Err()
		case err != nil:
			return false, nil
		case c.Method != tasks.MethodTaskStatusNotification || c.TaskID != t.id:
			continue
		}
		d, ok := sub.TaskState(t.id)
		if !ok {
			continue
		}
		if _, err := t.apply(d); err != nil {
			return false, err
		}
		return true, nil
	}
}

// sleep waits for d, or until ctx or the Session ends.
func (t *Task) sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.s.ctx.Done():
		return fmt.Errorf("client: task %s: %w", t.id, jsonrpc.ErrClosed)
	}
}

// answer fulfils what a 2026-07-28 task asks and sends the answers with
// tasks/update.
func (t *Task) answer(ctx context.Context, inputs mcp.InputRequests) error {
	answers, err := t.s.fulfill(ctx, inputs)
	if err != nil {
		return fmt.Errorf("client: task %s: %w", t.id, err)
	}
	params := object([]member{
		{key: "taskId", value: jsonrpc.AppendString(nil, t.id)},
		{key: "inputResponses", value: object(answers)},
	})
	raw, err := caller{t.s}.Call(ctx, tasks.MethodUpdateTask, params)
	if err != nil {
		return fmt.Errorf("client: tasks/update %s: %w", t.id, err)
	}
	if err := new(tasks.UpdateTaskResult).UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("client: tasks/update %s: the result does not decode: %w", t.id, err)
	}
	t.mu.Lock()
	t.inputs = nil
	t.status = mcp.TaskStatusWorking
	t.mu.Unlock()
	return nil
}

// result fetches a legacy task's outcome with tasks/result, which the
// server answers once the task has ended: the tool's result, or the error
// the call failed with.
func (t *Task) result(ctx context.Context) ([]byte, error) {
	params := object([]member{{key: "taskId", value: jsonrpc.AppendString(nil, t.id)}})
	raw, err := caller{t.s}.Call(ctx, mcp.MethodGetTaskPayload, params)
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
		t.mu.Lock()
		t.status, t.err = mcp.TaskStatusFailed, e
		t.mu.Unlock()
		return nil, e
	}
	if err != nil {
		return nil, fmt.Errorf("client: tasks/result %s: %w", t.id, err)
	}
	raw, err = t.s.received(mcp.MethodCallTool, t.call, raw)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.status, t.raw, t.err = mcp.TaskStatusCompleted, raw, err
	return raw, err
}

// Cancel asks the server to cancel the task with tasks/cancel. A task the
// server answered at once has nothing to cancel. The cancellation shows in
// the next Poll, and Wait then returns an error wrapping ErrTaskCancelled,
// unless the task ended first.
func (t *Task) Cancel(ctx context.Context) error {
	if t.id == "" {
		return nil
	}
	if t.legacy {
		r, err := t.s.CancelTask(ctx, &mcp.CancelTaskRequestParams{TaskID: t.id})
		if err != nil {
			return fmt.Errorf("client: tasks/cancel %s: %w", t.id, err)
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if _, ok, _ := t.doneLocked(); !ok {
			t.status, t.message = r.Status, r.StatusMessage
			if t.status == mcp.TaskStatusCancelled {
				t.err = t.cancelled()
			}
		}
		return nil
	}
	if _, err := (&tasks.Client{Caller: caller{t.s}}).CancelTask(ctx, &tasks.CancelTaskRequestParams{TaskID: t.id}); err != nil {
		return fmt.Errorf("client: tasks/cancel %s: %w", t.id, err)
	}
	return nil
}

// follow is CallTool's wait for a task: its result, checked, or, when ctx
// ends first, ctx.Err() after a best-effort tasks/cancel, for nobody waits
// for the task any more.
func (t *Task) follow(ctx context.Context) ([]byte, error) {
	raw, err := t.wait(ctx)
	if err == nil || ctx.Err() == nil {
		return raw, err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelTimeout)
	defer cancel()
	if err := t.Cancel(cctx); err != nil && t.s.ctx.Err() == nil {
		t.s.client.log.Warn("client: cannot cancel the task of an abandoned tools/call", "task", t.id, "err", err)
	}
	return nil, ctx.Err()
}
