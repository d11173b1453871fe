package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	mcptasks "github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// ExtensionTasks is the identifier of the 2026-07-28 tasks extension, the
// key it has in capabilities.extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// taskRun is one task this process runs: the handle of the goroutine its
// handler runs on. The record is in the store; only the process that
// runs the task holds this, in Server.running.
type taskRun struct {
	srv    *Server
	id     string
	owner  string
	legacy bool
	// session is the legacy session that created the task, for its
	// status notifications; nil in 2026-07-28.
	session *Session
	cancel  context.CancelFunc
	done    chan struct{} // closed once the record is final and the handler returned

	mu sync.Mutex
	// status is the status this run last stored: the "from" of its next
	// compare-and-set. gone says the record left the run's hands (it was
	// cancelled, deleted or expired), so it stores nothing more.
	status tasks.Status
	gone   bool
	// message and inputs are the status message and input requests the
	// run last stored, which a lease refresh stores again.
	message string
	inputs  []byte
	// pending are the questions the handler waits on (2026-07-28), by key.
	pending map[string]*question
	keys    int // questions asked so far, for the keys of unnamed ones
	// rec is the record as created, for the task handle.
	rec tasks.Task
}

// question is one input request a running task waits on.
type question struct {
	req    mcp.InputRequest
	answer chan json.RawMessage // buffered: tasks/update never blocks on it
}

// taskStarter turns a call into a task when its handler calls StartTask.
type taskStarter struct {
	start func() error
}

// taskCreated ends a tools/call whose handler goes on as a task: returned
// by CallTool, which can return no other result type, and turned back into
// the result by Server.dispatch, as inputRequired is.
type taskCreated struct {
	result mcp.Message
}

func (e *taskCreated) Error() string { return "server: the call goes on as a task" }

// taskOwner is the authorization context a request's tasks belong to:
// its principal, else its legacy session, else everyone anonymous.
func taskOwner(r *request) string {
	switch {
	case r.principal != nil:
		return "p:" + principalDigest(r.principal)
	case r.session != nil:
		return "s:" + r.session.taskOwner
	}
	return "anonymous"
}

// newSessionOwner is the random name of a session's tasks' owner.
func newSessionOwner() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// hasTaskTools reports whether any registered tool may run as a task:
// only then does the server declare tasks.
func (s *Server) hasTaskTools() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if t.taskSupport.allowed() {
			return true
		}
	}
	return false
}

func (ts TaskSupport) allowed() bool { return ts == TaskOptional || ts == TaskRequired }

// declaresTasks reports whether the client of a request can take a task:
// in 2026-07-28 it declares the extension in the request's capabilities;
// in 2025-11-25 it asks for one with the task param.
func declaresTasks(c *mcp.ClientCapabilities) bool {
	_, ok := c.Extensions[ExtensionTasks]
	return ok
}

// missingTasksExtension is the -32021 error of a 2026-07-28 request that
// needs the tasks extension, which the client did not declare.
func missingTasksExtension(what string) error {
	e := jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, what+" needs the client capability extensions["+strconv.Quote(ExtensionTasks)+"], which the request's "+metaClientCapabilities+" does not declare")
	e.Data = []byte(`{"requiredCapabilities":{"extensions":{"` + ExtensionTasks + `":{}}}}`)
	return e
}

// taskDecision settles, before anything else of a tools/call, whether the
// call runs as a task: it returns true to run it as one, or the error that
// refuses it.
func (s *Server) taskDecision(r *request, t *tool, p *mcp.CallToolRequestParams) (bool, error) {
	if r.modern() {
		// 2026-07-28 has no task param: a legacy client's is ignored.
		if !t.taskSupport.allowed() {
			return false, nil
		}
		wants := declaresTasks(r.capabilities())
		if !wants && t.taskSupport == TaskRequired {
			return false, missingTasksExtension("tool " + strconv.Quote(t.def.Name))
		}
		return wants, nil
	}
	wants := p.Task != nil
	switch {
	case wants && !t.taskSupport.allowed():
		return false, jsonrpc.ErrMethodNotFound("tools/call as a task: tool " + strconv.Quote(t.def.Name) + " does not run as a task")
	case !wants && t.taskSupport == TaskRequired:
		return false, jsonrpc.ErrMethodNotFound("tools/call without a task: tool " + strconv.Quote(t.def.Name) + " runs only as a task; call it with the task param")
	}
	return wants, nil
}

// callAsTask creates the task of a call and starts its handler, returning
// the task handle as a *taskCreated; the record exists before the handle
// is returned, so the client's first tasks/get finds it.
func (s *Server) callAsTask(ctx context.Context, r *request, t *tool, p *mcp.CallToolRequestParams) error {
	run, err := s.newTask(ctx, r, p)
	if err != nil {
		return err
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	run.cancel = cancel
	hctx = withRequest(hctx, taskRequest(r, run))
	s.taskWG.Go(func() {
		defer run.end()
		res, err, panicked := s.invoke(hctx, t, p)
		run.set(s.settle(requestOf(hctx), t, p, res, err, panicked))
	})
	return run.handle()
}

// taskRequest is the request a task's handler runs with: the caller's
// identity and capabilities, and no stream, since the request that
// created the task has been answered. A legacy session's progress token
// lives as long as the task (2025-11-25); 2026-07-28 tasks have no stream
// to carry progress on.
func taskRequest(r *request, run *taskRun) *request {
	tr := &request{
		session:   r.session,
		id:        r.id,
		method:    r.method,
		version:   r.version,
		caps:      r.capabilities(),
		capsRaw:   r.capsRaw, // ClientCapabilitiesJSON hands it on without an encode
		client:    r.clientInfo(),
		logLevel:  -1,
		principal: r.principal,
		meta:      r.meta,
		task:      run,
	}
	if r.session != nil {
		tr.progressToken = r.progressToken
	}
	return tr
}

// callBeforeTask serves a call of a tool with WithInputBeforeTask from a
// client that can take a task: the handler runs on a goroutine of its own
// as a synchronous 2026-07-28 call (its questions end rounds with
// InputRequiredResults), until it returns, which answers the call, or
// calls StartTask, which answers it with the task handle while the
// handler goes on as the task.
func (s *Server) callBeforeTask(ctx context.Context, r *request, t *tool, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if err := s.openRounds(r, p.Name, p.Arguments, nil, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	// Until it is a task, the handler lives as long as the request.
	stopRequestCancel := context.AfterFunc(ctx, cancel)
	type answer struct {
		res      *mcp.CallToolResult
		err      error
		panicked bool
	}
	started := make(chan *taskRun, 1)
	returned := make(chan answer, 1)
	r.starter = &taskStarter{start: func() error {
		if !stopRequestCancel() {
			return context.Cause(ctx) // the request has ended: nobody to hand a task to
		}
		run, err := s.newTask(ctx, r, p)
		if err != nil {
			context.AfterFunc(ctx, cancel)
			return err
		}
		run.cancel = cancel
		r.task, r.input, r.out, r.progressToken = run, nil, nil, nil
		started <- run
		return nil
	}}
	s.taskWG.Go(func() {
		res, err, panicked := s.invoke(hctx, t, p)
		if run := r.task; run != nil {
			defer run.end()
			run.set(s.settle(r, t, p, res, err, panicked))
			return
		}
		returned <- answer{res, err, panicked}
	})
	select {
	case run := <-started:
		return nil, run.handle()
	case a := <-returned:
		stopRequestCancel()
		cancel()
		if a.panicked {
			a.res, a.err = nil, fmt.Errorf("tool %s failed: internal error", p.Name)
		}
		return s.answerCall(r, t, p, a.res, a.err)
	}
}

// newTask records a new task for the request and returns its run, which
// holds one of the slots of running tasks until it ends.
func (s *Server) newTask(ctx context.Context, r *request, p *mcp.CallToolRequestParams) (*taskRun, error) {
	legacy := !r.modern()
	ttl := s.opts.taskTTL()
	if legacy && p.Task != nil && p.Task.TTL > 0 {
		ttl = time.Duration(p.Task.TTL) * time.Millisecond
	}
	if !s.reserveTask() {
		return nil, jsonrpc.ErrInternal("server busy: " + strconv.Itoa(s.opts.maxRunningTasks()) + " tasks are running; try again later")
	}
	owner := taskOwner(r)
	rec, err := s.taskStore.Create(ctx, owner, tasks.CreateParams{TTL: ttl, PollInterval: s.opts.taskPollInterval()})
	if err != nil {
		s.tasksMu.Lock()
		s.starting--
		s.tasksMu.Unlock()
		if errors.Is(err, tasks.ErrLimit) {
			return nil, jsonrpc.ErrInternal("too many tasks: " + err.Error() + "; fetch or cancel finished ones, or wait for them to expire")
		}
		s.log.Error("the task store failed", "op", "create", "error", err)
		return nil, jsonrpc.ErrInternal("cannot create the task: the task store failed")
	}
	run := &taskRun{srv: s, id: rec.ID, owner: owner, legacy: legacy, session: r.session,
		cancel: func() {}, done: make(chan struct{}), status: rec.Status, rec: rec}
	s.tasksMu.Lock()
	s.starting--
	s.running[run.id] = run
	s.tasksMu.Unlock()
	if lease := s.opts.taskLease(); lease > 0 {
		s.taskWG.Go(func() { run.keepAlive(lease) })
	}
	return run, nil
}

// end releases the run once its handler has returned and its record is
// final.
func (run *taskRun) end() {
	run.cancel()
	s := run.srv
	s.tasksMu.Lock()
	delete(s.running, run.id)
	s.tasksMu.Unlock()
	close(run.done)
}

// reserveTask takes one of the slots of running tasks, or reports that
// none is free or the server is closed.
func (s *Server) reserveTask() bool {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if s.tasksClosed || len(s.running)+s.starting >= s.opts.maxRunningTasks() {
		return false
	}
	s.starting++
	return true
}

// localTask returns the run of owner's task id if this process runs it.
func (s *Server) localTask(owner, id string) *taskRun {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	run := s.running[id]
	if run == nil || run.owner != owner {
		return nil
	}
	return run
}

// Close cancels every task the server runs and waits for their handlers
// to return, or for ctx to end. Tasks still running then are left to
// stop on their own; their records say cancelled. New calls can no longer
// start tasks.
func (s *Server) Close(ctx context.Context) error {
	s.tasksMu.Lock()
	s.tasksClosed = true
	runs := make([]*taskRun, 0, len(s.running))
	for _, run := range s.running {
		runs = append(runs, run)
	}
	s.tasksMu.Unlock()
	for _, run := range runs {
		run.stop("the server shut down")
	}
	done := make(chan struct{})
	go func() {
		s.taskWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// invoke runs a tool's handler, recovering a panic, which it reports.
func (s *Server) invoke(ctx context.Context, t *tool, p *mcp.CallToolRequestParams) (res *mcp.CallToolResult, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("tool handler panicked", "tool", p.Name, "task", TaskID(ctx), principalAttr(PrincipalFrom(ctx)), "panic", v, "stack", string(debug.Stack()))
			res, err, panicked = nil, nil, true
		}
	}()
	res, err = t.handler(ctx, p)
	return res, err, false
}

// settle says how a task ends, from what its handler returned: a result
// (an error the handler returned is an isError result, as in a
// synchronous call) completes it; a protocol error, a panic, or a result
// that breaks the tool's output schema fails it.
func (s *Server) settle(r *request, t *tool, p *mcp.CallToolRequestParams, res *mcp.CallToolResult, err error, panicked bool) tasks.Change {
	if panicked {
		return failed(jsonrpc.ErrInternal("tool " + p.Name + " failed: internal error"))
	}
	if err != nil {
		if ce, ok := errors.AsType[*CapabilityError](err); ok && r.modern() {
			return failed(missingCapability(ce.Capability))
		}
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
			return failed(s.outgoingError(r, e))
		}
		res = errorResult(err.Error())
	}
	if res == nil {
		return failed(jsonrpc.ErrInternal("tool " + p.Name + " returned no result"))
	}
	if err := t.checkOutput(res); err != nil {
		s.log.Error("tool result does not match its output schema", "tool", p.Name, principalAttr(r.principal), "error", err)
		return failed(jsonrpc.ErrInternal("tool " + p.Name + " returned a result that does not match its outputSchema"))
	}
	var msg mcp.Message = res
	if r.modern() {
		msg = s.finish(r, res)
	}
	raw, err := mcp.AppendJSON(nil, msg)
	if err != nil {
		return failed(jsonrpc.ErrInternal("the result of tool " + p.Name + " does not encode: " + err.Error()))
	}
	return tasks.Change{Status: tasks.StatusCompleted, Result: raw}
}

// failed is the change of a task that ended with a protocol error.
func failed(err error) tasks.Change {
	e, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok {
		e = jsonrpc.ErrInternal(err.Error())
	}
	return tasks.Change{Status: tasks.StatusFailed, Message: e.Message,
		Error: &tasks.Error{Code: e.Code, Message: e.Message, Data: json.RawMessage(e.Data)}}
}

// set stores a change of the task's status, from the status the run last
// stored, and tells a legacy session's client. A conflict means the record
// left the run's hands (cancelled, deleted, expired): the run stops its
// handler and stores nothing more.
func (run *taskRun) set(c tasks.Change) {
	run.mu.Lock()
	rec, ok := run.setLocked(c)
	run.mu.Unlock()
	if ok {
		run.notify(rec)
	}
}

// setLocked is set's store step, with run.mu held; it returns the record
// as stored, and whether it was.
func (run *taskRun) setLocked(c tasks.Change) (tasks.Task, bool) {
	if run.gone {
		return tasks.Task{}, false
	}
	rec, err := run.srv.taskStore.Update(context.Background(), run.owner, run.id, run.status, c)
	if err != nil {
		if !errors.Is(err, tasks.ErrConflict) && !errors.Is(err, tasks.ErrNotFound) {
			run.srv.log.Error("the task store failed", "op", "update", "task", run.id, "error", err)
		}
		run.gone = true
		run.cancel()
		return tasks.Task{}, false
	}
	run.status, run.message, run.inputs = rec.Status, c.Message, c.InputRequests
	run.srv.taskChanged(run.id)
	return rec, true
}

// notifyTimeout bounds how long a status notification waits for a legacy
// session's client to take it.
const notifyTimeout = 5 * time.Second

// notify tells a legacy session's client that the task's status changed,
// without run.mu held: a client slow to read holds up only this.
func (run *taskRun) notify(rec tasks.Task) {
	if run.session == nil {
		return
	}
	t := legacyTask(rec)
	p := mcp.TaskStatusNotificationParams{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval}
	raw, err := p.MarshalJSON()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	// Best effort: a session that has gone away has no one to tell.
	_ = run.session.notify(ctx, mcp.MethodTaskStatusNotification, raw)
}

// stop cancels the task: its record says cancelled, and its handler's ctx
// ends.
func (run *taskRun) stop(message string) {
	run.mu.Lock()
	var (
		rec tasks.Task
		ok  bool
	)
	if !run.status.Terminal() {
		rec, ok = run.setLocked(tasks.Change{Status: tasks.StatusCancelled, Message: message})
	}
	run.gone = true
	run.mu.Unlock()
	run.cancel()
	if ok {
		run.notify(rec)
	}
}

// ask puts a question to the client of a 2026-07-28 task and waits for
// tasks/update to answer it: the task is input_required, listing every
// question its handler waits on, until all are answered.
func (run *taskRun) ask(ctx context.Context, kind string, req mcp.InputRequestVariant, opts []InputOption) ([]byte, error) {
	var o inputOptions
	for _, opt := range opts {
		opt(&o)
	}
	q := &question{req: mcp.InputRequest{Value: req}, answer: make(chan json.RawMessage, 1)}
	run.mu.Lock()
	key := o.key
	if key == "" {
		run.keys++
		key = kind + "-" + strconv.Itoa(run.keys)
	}
	if _, dup := run.pending[key]; dup {
		run.mu.Unlock()
		return nil, fmt.Errorf("server: input key %q is used for two questions at once", key)
	}
	if run.pending == nil {
		run.pending = map[string]*question{}
	}
	run.pending[key] = q
	run.publishLocked()
	run.mu.Unlock()
	select {
	case raw := <-q.answer:
		return raw, nil
	case <-ctx.Done():
		run.mu.Lock()
		delete(run.pending, key)
		run.mu.Unlock()
		return nil, ctx.Err()
	}
}

// publishLocked stores the questions the task waits on: input_required
// with them, or working again once none is left.
func (run *taskRun) publishLocked() {
	if len(run.pending) == 0 {
		if run.status == tasks.StatusInputRequired {
			run.setLocked(tasks.Change{Status: tasks.StatusWorking})
		}
		return
	}
	reqs := make(mcp.InputRequests, len(run.pending))
	for k, q := range run.pending {
		reqs[k] = q.req
	}
	raw, err := reqs.MarshalJSON()
	if err != nil {
		run.srv.log.Error("a task's input requests do not encode", "task", run.id, "error", err)
		return
	}
	run.setLocked(tasks.Change{Status: tasks.StatusInputRequired, InputRequests: raw})
}

// answer hands the handler the answers of tasks/update to questions it
// waits on; answers to keys it does not wait on are ignored.
func (run *taskRun) answer(responses map[string]json.RawMessage) {
	run.mu.Lock()
	defer run.mu.Unlock()
	answered := false
	for key, raw := range responses {
		q, ok := run.pending[key]
		if !ok {
			continue
		}
		delete(run.pending, key)
		q.answer <- raw
		answered = true
	}
	if answered {
		run.publishLocked()
	}
}

// askTask is ask's path for a question of a running 2026-07-28 task: it
// waits for the answer, and asks again, a few times, while the answer
// does not fit the question.
func askTask[R any, PR answer[R]](ctx context.Context, run *taskRun, r *request, capability string, question func() mcp.InputRequestVariant, opts []InputOption) (PR, error) {
	const attempts = 3
	for range attempts {
		raw, err := run.ask(ctx, capability, question(), opts)
		if err != nil {
			return nil, err
		}
		res := PR(new(R))
		if res.UnmarshalJSON(raw) == nil && res.ValidateVersion(r.version) == nil {
			return res, nil
		}
	}
	return nil, errors.New("server: the client's answers do not fit the question")
}

// created is the task handle a tools/call is answered with, in the era
// of the call.
func (run *taskRun) created() (mcp.Message, error) {
	run.mu.Lock()
	rec := run.rec
	run.mu.Unlock()
	if run.legacy {
		return &mcp.CreateTaskResult{Task: legacyTask(rec)}, nil
	}
	t := modernTask(rec)
	return asResult(&mcptasks.CreateTaskResult{Meta: run.srv.resultMeta(nil), TaskID: t.TaskID,
		Status: mcptasks.CreateTaskResultStatus(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs})
}

// handle is the *taskCreated that ends the call that created the task.
func (run *taskRun) handle() error {
	res, err := run.created()
	if err != nil {
		return err
	}
	return &taskCreated{result: res}
}

// asResult carries a result of the extension's package as an mcp.Result,
// whose unnamed members it becomes: the engine's results are mcp
// messages. It costs one more encode, on the tasks methods only.
func asResult(m mcptasks.Message) (mcp.Message, error) {
	raw, err := mcptasks.AppendJSON(nil, m)
	if err == nil {
		var res mcp.Result
		if err = res.UnmarshalJSON(raw); err == nil {
			return &res, nil
		}
	}
	return nil, jsonrpc.ErrInternal("a tasks result does not encode: " + err.Error())
}

// wireTime is a task's time as both eras write it: ISO 8601 in UTC.
func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// modernTask is the extension's view of a record.
func modernTask(rec tasks.Task) mcptasks.Task {
	ttl := rec.TTL.Milliseconds()
	return mcptasks.Task{TaskID: rec.ID, Status: mcptasks.TaskStatus(rec.Status), StatusMessage: rec.Message,
		CreatedAt: wireTime(rec.Created), LastUpdatedAt: wireTime(rec.Updated), TTLMs: &ttl,
		PollIntervalMs: rec.PollInterval.Milliseconds()}
}

// legacyTask is the 2025-11-25 view of a record.
func legacyTask(rec tasks.Task) mcp.Task {
	ttl := rec.TTL.Milliseconds()
	return mcp.Task{TaskID: rec.ID, Status: mcp.TaskStatus(rec.Status), StatusMessage: rec.Message,
		CreatedAt: wireTime(rec.Created), LastUpdatedAt: wireTime(rec.Updated), TTL: &ttl,
		PollInterval: rec.PollInterval.Milliseconds()}
}
