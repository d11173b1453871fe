package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// incoming is the jsonrpc.Handler of a Session: the server's requests go
// through the generated dispatch to the Client's handlers, its
// notifications to the callbacks.
type incoming struct{ s *Session }

func (in incoming) Handle(ctx context.Context, req *jsonrpc.Request) ([]byte, error) {
	if req.ID.IsZero() {
		in.s.notification(req.Method, req.Params)
		return nil, nil
	}
	res, err := mcp.DispatchClientRequest(ctx, handler{in.s.client}, in.s.ProtocolVersion(), req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	return res.MarshalJSON()
}

// notification handles one notification from the server. It runs on the
// Conn's read loop, so what takes time is left to the callbacks' queue.
func (s *Session) notification(method string, params []byte) {
	o := &s.client.opts
	if s.subs.route(method, params) {
		return // an acknowledgement, which only its Subscription wants
	}
	switch method {
	case mcp.MethodProgressNotification:
		p := new(mcp.ProgressNotificationParams)
		if !s.decode(method, params, p) {
			return
		}
		s.progressed(p.ProgressToken)
		if o.OnProgress != nil {
			s.notes.push(func() { o.OnProgress(p) })
		}
	case mcp.MethodCancelledNotification:
		p := new(mcp.CancelledNotificationParams)
		if !s.decode(method, params, p) {
			return
		}
		if n, ok := p.RequestID.AsInteger(); ok {
			s.conn.CancelIncoming(jsonrpc.IntID(n))
		} else if str, ok := p.RequestID.AsString(); ok {
			s.conn.CancelIncoming(jsonrpc.StringID(str))
		}
	case mcp.MethodLoggingMessageNotification:
		p := new(mcp.LoggingMessageNotificationParams)
		if o.OnLog != nil && s.decode(method, params, p) {
			s.notes.push(func() { o.OnLog(p) })
		}
	case mcp.MethodResourceUpdatedNotification:
		p := new(mcp.ResourceUpdatedNotificationParams)
		if s.decode(method, params, p) {
			s.cache.invalidate(mcp.MethodReadResource + "\x00uri=" + string(jsonrpc.AppendString(nil, p.URI)))
			if o.OnResourceUpdated != nil {
				s.notes.push(func() { o.OnResourceUpdated(p.URI) })
			}
		}
	case mcp.MethodToolListChangedNotification:
		s.cache.invalidate(mcp.MethodListTools)
		s.notes.push(o.OnToolsListChanged)
	case mcp.MethodPromptListChangedNotification:
		s.cache.invalidate(mcp.MethodListPrompts)
		s.notes.push(o.OnPromptsListChanged)
	case mcp.MethodResourceListChangedNotification:
		s.cache.invalidate(mcp.MethodListResources, mcp.MethodListResourceTemplates)
		s.notes.push(o.OnResourcesListChanged)
	default:
		s.client.log.Debug("client: notification ignored", "method", method)
	}
}

// decode decodes and validates the params of a notification for the
// version in use, logging a failure.
func (s *Session) decode(method string, params []byte, p mcp.Message) bool {
	err := json.Unmarshal(params, p)
	if err == nil {
		err = p.ValidateVersion(s.ProtocolVersion())
	}
	if err != nil {
		s.client.log.Warn("client: notification dropped: bad params", "method", method, "err", err)
		return false
	}
	return true
}

// handler is the mcp.ClientHandler of a Client, over its Options.
type handler struct{ c *Client }

func (h handler) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	if h.c.opts.CreateMessage == nil {
		return nil, jsonrpc.ErrMethodNotFound(mcp.MethodCreateMessage)
	}
	return h.c.opts.CreateMessage(ctx, p)
}

func (h handler) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	if h.c.opts.Elicit == nil {
		return nil, jsonrpc.ErrMethodNotFound(mcp.MethodElicit)
	}
	return h.c.opts.Elicit(ctx, p)
}

func (h handler) ListRoots(ctx context.Context, _ *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	if h.c.opts.Roots == nil {
		return nil, jsonrpc.ErrMethodNotFound(mcp.MethodListRoots)
	}
	roots, err := h.c.opts.Roots(ctx)
	if err != nil {
		return nil, err
	}
	if roots == nil {
		roots = []mcp.Root{}
	}
	return &mcp.ListRootsResult{Roots: roots}, nil
}

func (h handler) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

func (h handler) CancelTask(context.Context, *mcp.CancelTaskRequestParams) (*mcp.CancelTaskResult, error) {
	return nil, jsonrpc.ErrMethodNotFound(mcp.MethodCancelTask)
}

func (h handler) GetTask(context.Context, *mcp.GetTaskRequestParams) (*mcp.GetTaskResult, error) {
	return nil, jsonrpc.ErrMethodNotFound(mcp.MethodGetTask)
}

func (h handler) ListTasks(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListTasksResult, error) {
	return nil, jsonrpc.ErrMethodNotFound(mcp.MethodListTasks)
}

func (h handler) GetTaskPayload(context.Context, *mcp.GetTaskPayloadRequestParams) (*mcp.GetTaskPayloadResult, error) {
	return nil, jsonrpc.ErrMethodNotFound(mcp.MethodGetTaskPayload)
}

// queue runs callbacks one at a time, in order, on its own goroutine, so
// that the Conn's read loop never waits for them and they may call the
// Session back.
type queue struct {
	log  *slog.Logger
	wake chan struct{} // holds a token when there may be work
	done chan struct{} // closed when run has returned

	mu     sync.Mutex
	items  []func()
	busy   bool // run is running items it took
	closed bool
}

func newQueue(log *slog.Logger) *queue {
	return &queue{log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push adds f, unless it is nil or the queue is closed.
func (q *queue) push(f func()) {
	if f == nil {
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, f)
	}
	q.mu.Unlock()
	q.signal()
}

// flush waits until run has run everything pushed before it, or has
// returned, or ctx ends. The func it pushes runs in order with the
// callbacks.
func (q *queue) flush(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy && len(q.items) == 0 {
		q.mu.Unlock()
		return nil // nothing queued or running: most calls, at no cost
	}
	ran := make(chan struct{})
	closed := q.closed
	if !closed {
		q.items = append(q.items, func() { close(ran) })
	}
	q.mu.Unlock()
	if closed {
		ran = nil // run runs what was queued before it returns
	} else {
		q.signal()
	}
	select {
	case <-ran:
		return nil
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close makes run return once it has run what is queued.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items = nil
		q.busy = len(items) > 0
		q.mu.Unlock()
		for _, f := range items {
			q.call(f)
		}
		if len(items) > 0 {
			q.mu.Lock()
			q.busy = false
			q.mu.Unlock()
		}
		if len(items) == 0 {
			if closed {
				return
			}
			<-q.wake
		}
	}
}

// call runs f, logging a panic rather than letting it end the process.
func (q *queue) call(f func()) {
	defer func() {
		if v := recover(); v != nil {
			q.log.Error("client: notification callback panicked", "panic", v, "stack", string(debug.Stack()))
		}
	}()
	f()
}
