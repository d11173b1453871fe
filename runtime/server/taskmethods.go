package server

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// The tasks methods of both eras. Every one looks the task up by its
// requestor and id, so another requestor's id is an unknown id: -32602.

// unknownTask is the error of a task id the requestor has no task with.
func unknownTask(id string) error {
	return jsonrpc.ErrInvalidParams("invalid params: taskId: no task " + quote(id) + " (it does not exist, has expired, or belongs to another requestor)")
}

// storeError turns a store failure into the error a client gets.
func (s *Server) storeError(op, id string, err error) error {
	if errors.Is(err, tasks.ErrNotFound) {
		return unknownTask(id)
	}
	if errors.Is(err, tasks.ErrCursor) {
		return jsonrpc.ErrInvalidParams("invalid params: cursor: " + err.Error())
	}
	s.log.Error("the task store failed", "op", op, "task", id, "error", err)
	return jsonrpc.ErrInternal("the task store failed")
}

// dispatchTasks serves the methods of the 2026-07-28 tasks extension.
// The extension is the client's to declare on each request, and the
// server's only when it has task-supporting tools.
func (s *Server) dispatchTasks(ctx context.Context, r *request, req *Request) (mcp.Message, error) {
	if !declaresTasks(r.capabilities()) {
		return nil, missingTasksExtension(req.Method)
	}
	switch req.Method {
	case mcptasks.MethodUpdateTask:
		return s.updateTask(ctx, r, req.Params)
	case mcptasks.MethodGetTask:
		return s.getTask(ctx, r, req.Params)
	}
	msg, err := mcptasks.DispatchServerRequest(ctx, taskHandler{s}, mcptasks.VersionDraft, req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	return asResult(msg)
}

// isTasksMethod reports whether method is one of the extension's requests.
func isTasksMethod(method string) bool {
	info, ok := mcptasks.LookupMethod(method)
	return ok && info.Direction&mcptasks.ClientToServer != 0 && !info.Notification
}

// taskHandler answers the extension's tasks/cancel; tasks/get and
// tasks/update are the engine's own (getTask, updateTask).
type taskHandler struct{ srv *Server }

var _ mcptasks.ServerHandler = taskHandler{}

// GetTask is served by getTask, which writes the result from the
// record's detailed form.
func (h taskHandler) GetTask(context.Context, *mcptasks.GetTaskRequestParams) (*mcptasks.GetTaskResult, error) {
	return nil, jsonrpc.ErrInternal("tasks/get is served by the engine")
}

// getTask returns the task, with its result, error or input requests
// inline: the record's DetailedTask as a complete result.
func (s *Server) getTask(ctx context.Context, r *request, params []byte) (mcp.Message, error) {
	var p mcptasks.GetTaskRequestParams
	if err := p.UnmarshalJSON(params); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	if err := p.Validate(); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	rec, err := s.readTask(ctx, taskOwner(r), p.TaskID)
	if err != nil {
		return nil, s.storeError("get", p.TaskID, err)
	}
	meta, err := s.resultMeta(nil).MarshalJSON()
	if err != nil {
		return nil, jsonrpc.ErrInternal("the result's _meta does not encode: " + err.Error())
	}
	raw, err := detailedJSON(rec, jsonMember{"_meta", meta}, jsonMember{"resultType", []byte(`"complete"`)})
	if err != nil {
		return nil, err
	}
	res := new(mcp.Result)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, jsonrpc.ErrInternal("a tasks/get result does not decode: " + err.Error())
	}
	return res, nil
}

// detailed is the extension's DetailedTask of a record: the task with
// what its status carries inline (input requests, result or error). It is
// the one view of a record that tasks/get and notifications/tasks share.
func detailed(rec tasks.Task) (mcptasks.DetailedTask, error) {
	t := modernTask(rec)
	switch rec.Status {
	case tasks.StatusInputRequired:
		v := &mcptasks.InputRequiredTask{TaskID: t.TaskID, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
			LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs, InputRequests: mcp.InputRequests{}}
		if len(rec.InputRequests) > 0 {
			if err := v.InputRequests.UnmarshalJSON(rec.InputRequests); err != nil {
				return mcptasks.DetailedTask{}, jsonrpc.ErrInternal("the task's input requests do not decode")
			}
		}
		return mcptasks.DetailedTask{Value: v}, nil
	case tasks.StatusCompleted:
		return mcptasks.DetailedTask{Value: &mcptasks.CompletedTask{TaskID: t.TaskID, StatusMessage: t.StatusMessage,
			CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs,
			Result: rec.Result}}, nil
	case tasks.StatusFailed:
		v := &mcptasks.FailedTask{TaskID: t.TaskID, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
			LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs,
			Error: mcp.Error{Code: jsonrpc.CodeInternalError, Message: "the task failed"}}
		if rec.Error != nil {
			v.Error = mcp.Error{Code: rec.Error.Code, Message: rec.Error.Message, Data: rec.Error.Data}
		}
		return mcptasks.DetailedTask{Value: v}, nil
	case tasks.StatusCancelled:
		return mcptasks.DetailedTask{Value: &mcptasks.CancelledTask{TaskID: t.TaskID, StatusMessage: t.StatusMessage,
			CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs}}, nil
	}
	return mcptasks.DetailedTask{Value: &mcptasks.WorkingTask{TaskID: t.TaskID, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs}}, nil
}

// jsonMember is one member of a JSON object: its key and encoded value.
type jsonMember struct {
	key   string
	value []byte
}

// detailedJSON encodes the record's DetailedTask with the members first
// put before its own: the envelope members (_meta, resultType) that make
// it a tasks/get result or a notification's params.
func detailedJSON(rec tasks.Task, first ...jsonMember) ([]byte, error) {
	d, err := detailed(rec)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, m := range first {
		out = append(out, ',')
		out = jsonrpc.AppendString(out, m.key)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	if len(out) > 0 {
		out[0] = '{'
	}
	raw, err := mcptasks.AppendJSON(out, &d)
	if err != nil {
		return nil, jsonrpc.ErrInternal("a task does not encode: " + err.Error())
	}
	if len(first) > 0 {
		// The DetailedTask's own '{' follows the members: make it their
		// separator (a DetailedTask always has members: taskId, status).
		raw[len(out)] = ','
	}
	return raw, nil
}

// CancelTask cancels the task; cancelling a finished task changes nothing
// and is acknowledged all the same.
func (h taskHandler) CancelTask(ctx context.Context, p *mcptasks.CancelTaskRequestParams) (*mcptasks.CancelTaskResult, error) {
	if _, err := h.srv.cancelTask(ctx, taskOwner(requestOf(ctx)), p.TaskID); err != nil {
		return nil, err
	}
	return &mcptasks.CancelTaskResult{Meta: h.srv.resultMeta(nil)}, nil
}

// UpdateTask is served by updateTask, which reads the answers itself.
func (h taskHandler) UpdateTask(context.Context, *mcptasks.UpdateTaskRequestParams) (*mcptasks.UpdateTaskResult, error) {
	return nil, jsonrpc.ErrInternal("tasks/update is served by the engine")
}

// updateTask hands the answers of tasks/update to the task's questions.
// It reads the answers as raw JSON: an answer to a key the task does not
// wait on is ignored, as the extension asks, whatever its shape, and one
// that does not fit its question is asked again by the question.
func (s *Server) updateTask(ctx context.Context, r *request, params []byte) (mcp.Message, error) {
	var p struct {
		TaskID         *string                    `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	if p.TaskID == nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: taskId: required")
	}
	if p.InputResponses == nil {
		return nil, jsonrpc.ErrInvalidParams("invalid params: inputResponses: required, an object")
	}
	owner := taskOwner(r)
	rec, err := s.taskStore.Get(ctx, owner, *p.TaskID)
	if err != nil {
		return nil, s.storeError("get", *p.TaskID, err)
	}
	if run := s.localTask(owner, *p.TaskID); run != nil {
		run.answer(p.InputResponses)
	} else {
		// Another replica may run it.
		s.broadcast(change{Kind: changeTaskUpdate, Task: *p.TaskID, Owner: owner, Responses: p.InputResponses})
		s.awaitAnswered(ctx, owner, rec, p.InputResponses)
	}
	return asResult(&mcptasks.UpdateTaskResult{Meta: s.resultMeta(nil)})
}

// remoteAnswerWait bounds how long a tasks/update for a task another
// replica runs waits for that replica to take the answers.
const remoteAnswerWait = 2 * time.Second

// awaitAnswered waits, up to remoteAnswerWait, until the questions of rec
// that responses answer are gone from the task's record, as the replica
// running it removes them when it takes the answers: a tasks/get after the
// acknowledgement, on any replica, then reads them answered, as it does
// when the replica that took the update runs the task. Answers to keys
// the task does not wait on wait for nothing. A replica that has gone
// away leaves the questions in place, and the wait ends at its bound.
func (s *Server) awaitAnswered(ctx context.Context, owner string, rec tasks.Task, responses map[string]json.RawMessage) {
	// waiting returns the keys of responses that rec still asks.
	waiting := func(rec tasks.Task, keys iter.Seq[string]) []string {
		var pending map[string]json.RawMessage
		if rec.Status != tasks.StatusInputRequired || json.Unmarshal(rec.InputRequests, &pending) != nil {
			return nil
		}
		var out []string
		for key := range keys {
			if _, ok := pending[key]; ok {
				out = append(out, key)
			}
		}
		return out
	}
	keys := waiting(rec, maps.Keys(responses))
	if len(keys) == 0 {
		return
	}
	answered := func(rec tasks.Task) bool { return len(waiting(rec, slices.Values(keys))) == 0 }
	id := rec.ID
	ctx, cancel := context.WithTimeout(ctx, remoteAnswerWait)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rec, err := s.taskStore.Get(ctx, owner, id)
		if err != nil || answered(rec) {
			return
		}
	}
}

// cancelTask moves owner's task to cancelled unless it has ended, and
// stops its handler if this process runs it. It returns the record as it
// is afterwards.
func (s *Server) cancelTask(ctx context.Context, owner, id string) (tasks.Task, error) {
	if run := s.localTask(owner, id); run != nil {
		run.stop("cancelled by the client")
	} else {
		// Another replica may run it: its handler stops now rather than
		// at its next status change.
		s.broadcast(change{Kind: changeTaskCancel, Task: id, Owner: owner})
	}
	for range 4 {
		rec, err := s.taskStore.Get(ctx, owner, id)
		if err != nil {
			return tasks.Task{}, s.storeError("get", id, err)
		}
		if rec.Status.Terminal() {
			return rec, nil
		}
		rec, err = s.taskStore.Update(ctx, owner, id, rec.Status, tasks.Change{Status: tasks.StatusCancelled, Message: "cancelled by the client"})
		if err == nil {
			s.taskChanged(id)
			return rec, nil
		}
		if !errors.Is(err, tasks.ErrConflict) {
			return tasks.Task{}, s.storeError("update", id, err)
		}
	}
	return tasks.Task{}, jsonrpc.ErrInternal("the task kept changing; try again")
}

// The 2025-11-25 tasks methods, on the generated dispatch of package mcp.

func (d dispatcher) legacyTasks(ctx context.Context, method string) (*request, error) {
	r := requestOf(ctx)
	if !d.srv.hasTaskTools() {
		return nil, notOffered(method)
	}
	return r, nil
}

// GetTask returns the task's status.
func (d dispatcher) GetTask(ctx context.Context, p *mcp.GetTaskRequestParams) (*mcp.GetTaskResult, error) {
	r, err := d.legacyTasks(ctx, mcp.MethodGetTask)
	if err != nil {
		return nil, err
	}
	rec, err := d.srv.readTask(ctx, taskOwner(r), p.TaskID)
	if err != nil {
		return nil, d.srv.storeError("get", p.TaskID, err)
	}
	t := legacyTask(rec)
	return &mcp.GetTaskResult{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval}, nil
}

// ListTasks lists the requestor's tasks, a page at a time.
func (d dispatcher) ListTasks(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListTasksResult, error) {
	r, err := d.legacyTasks(ctx, mcp.MethodListTasks)
	if err != nil {
		return nil, err
	}
	var cursor string
	if p != nil {
		cursor = p.Cursor
	}
	page, err := d.srv.taskStore.List(ctx, taskOwner(r), cursor, d.srv.opts.PageSize)
	if err != nil {
		return nil, d.srv.storeError("list", "", err)
	}
	out := &mcp.ListTasksResult{Tasks: make([]mcp.Task, 0, len(page.Tasks)), NextCursor: page.Next}
	for _, rec := range page.Tasks {
		out.Tasks = append(out.Tasks, legacyTask(rec))
	}
	return out, nil
}

// CancelTask cancels the task; a task that has ended cannot be cancelled
// (-32602), as 2025-11-25 says.
func (d dispatcher) CancelTask(ctx context.Context, p *mcp.CancelTaskRequestParams) (*mcp.CancelTaskResult, error) {
	r, err := d.legacyTasks(ctx, mcp.MethodCancelTask)
	if err != nil {
		return nil, err
	}
	owner := taskOwner(r)
	rec, err := d.srv.taskStore.Get(ctx, owner, p.TaskID)
	if err != nil {
		return nil, d.srv.storeError("get", p.TaskID, err)
	}
	if rec.Status.Terminal() {
		return nil, jsonrpc.ErrInvalidParams("invalid params: taskId: task " + quote(p.TaskID) + " has already ended (" + string(rec.Status) + ")")
	}
	if rec, err = d.srv.cancelTask(ctx, owner, p.TaskID); err != nil {
		return nil, err
	}
	t := legacyTask(rec)
	return &mcp.CancelTaskResult{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval}, nil
}

// GetTaskPayload waits for the task to end and returns what its request
// would have: the tool result, or the error it failed with.
func (d dispatcher) GetTaskPayload(ctx context.Context, p *mcp.GetTaskPayloadRequestParams) (*mcp.GetTaskPayloadResult, error) {
	r, err := d.legacyTasks(ctx, mcp.MethodGetTaskPayload)
	if err != nil {
		return nil, err
	}
	s := d.srv
	owner := taskOwner(r)
	var rec tasks.Task
	for {
		if rec, err = s.readTask(ctx, owner, p.TaskID); err != nil {
			return nil, s.storeError("get", p.TaskID, err)
		}
		if rec.Status.Terminal() {
			break
		}
		if err := s.waitTask(ctx, owner, p.TaskID, rec.PollInterval); err != nil {
			return nil, err
		}
	}
	switch {
	case rec.Status == tasks.StatusCancelled:
		return nil, jsonrpc.ErrInvalidParams("invalid params: taskId: task " + quote(p.TaskID) + " was cancelled")
	case rec.Error != nil:
		e := jsonrpc.NewError(rec.Error.Code, rec.Error.Message)
		e.Data = rec.Error.Data
		return nil, e
	}
	out := new(mcp.GetTaskPayloadResult)
	if err := out.UnmarshalJSON(rec.Result); err != nil {
		return nil, jsonrpc.ErrInternal("the task's result does not decode")
	}
	related := append([]byte(`{"io.modelcontextprotocol/related-task":{"taskId":`), jsonrpc.AppendString(nil, rec.ID)...)
	out.Meta = append(related, "}}"...)
	return out, nil
}

// waitTask waits until the task may have ended: its run finishes in this
// process, or, for one another replica runs, a poll interval passes.
func (s *Server) waitTask(ctx context.Context, owner, id string, poll time.Duration) error {
	var done <-chan struct{}
	if run := s.localTask(owner, id); run != nil {
		done = run.done
	}
	if poll <= 0 {
		poll = s.opts.taskPollInterval()
	}
	timer := time.NewTimer(poll)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
