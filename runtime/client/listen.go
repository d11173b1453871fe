package client

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/generated/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Subscriptions of the 2026-07-28 era: subscriptions/listen is a request
// whose response is a stream of the change notifications the client opted
// in to, each tagged with the request's id, until the client cancels. A
// Subscription keeps one such request open: when the stream breaks before
// the server ended it, it sends the request again with a new id (the era
// has no stream resumption), until Close.

// ErrSubscriptionEnded is returned by Subscription.Next once the
// subscription is over: closed by the caller, or ended by the server.
var ErrSubscriptionEnded = errors.New("client: the subscription has ended")

// Change is one notification of a subscription: a list that changed
// (Method is notifications/tools/list_changed, prompts/list_changed or
// resources/list_changed), a resource that was updated (Method is
// notifications/resources/updated, with its URI), or a task whose status
// changed (Method is notifications/tasks, with its TaskID; the task's
// state is Subscription.TaskState's).
type Change struct {
	Method string
	URI    string
	TaskID string
}

// Subscription is an open subscriptions/listen request.
type Subscription struct {
	s      *Session
	params []byte
	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned
	acked  chan struct{} // closed at the first acknowledgement

	mu      sync.Mutex
	ack     mcp.SubscriptionFilter
	ackOnce bool
	pending []Change // waiting for Next; a set, in arrival order
	// tasks holds the latest state of each task a notification reported,
	// bounded by the task ids the server acknowledged.
	tasks map[string]tasks.DetailedTask
	wake  chan struct{}
	err   error // why the subscription ended, once it has
}

// Listen opens a subscription to the changes filter names, and returns
// once the server has acknowledged it (the subset it agreed to send is
// Acknowledged), or with the error that refused it. ctx bounds the wait
// for the acknowledgement; the subscription lasts until Close or until
// the server ends it.
func (s *Session) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (*Subscription, error) {
	if !s.modern {
		return nil, errNotModern
	}
	params, err := (&mcp.SubscriptionsListenRequestParams{Notifications: filter}).MarshalJSON()
	if err != nil {
		return nil, err
	}
	// The typed params require a _meta, which the Session fills in: drop
	// the empty one the encoder writes.
	top, err := members(params)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{s: s, params: object(set(top, "_meta", nil)), done: make(chan struct{}), acked: make(chan struct{}), wake: make(chan struct{}, 1)}
	sub.ctx, sub.cancel = context.WithCancel(s.ctx)
	if _, ok := filter.Extra["taskIds"]; ok {
		// Task notifications need the extension declared on the request.
		sub.ctx = context.WithValue(sub.ctx, taskKey{}, true)
	}
	go sub.run()
	select {
	case <-sub.acked:
		return sub, nil
	case <-sub.done:
		return nil, sub.err
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
}

// Acknowledged returns the notifications the server agreed to send.
func (sub *Subscription) Acknowledged() mcp.SubscriptionFilter {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.ack
}

// WithTaskIDs returns f asking also for the status notifications of the
// tasks ids names (the tasks extension's notifications.taskIds); the
// subscription then declares the extension.
func WithTaskIDs(f mcp.SubscriptionFilter, ids ...string) mcp.SubscriptionFilter {
	raw, _ := json.Marshal(append([]string{}, ids...)) // strings always encode
	f.Extra = maps.Clone(f.Extra)
	if f.Extra == nil {
		f.Extra = map[string]json.RawMessage{}
	}
	f.Extra["taskIds"] = raw
	return f
}

// TaskIDs returns the ids of the tasks whose status notifications the
// server agreed to send.
func (sub *Subscription) TaskIDs() []string {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	var ids []string
	json.Unmarshal(sub.ack.Extra["taskIds"], &ids) // none when it does not decode
	return ids
}

// TaskState returns the latest state a status notification reported of
// task id, with its result, error or questions inline.
func (sub *Subscription) TaskState(id string) (tasks.DetailedTask, bool) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	d, ok := sub.tasks[id]
	return d, ok
}

// ended reports whether the subscription is over.
func (sub *Subscription) ended() bool {
	select {
	case <-sub.done:
		return true
	default:
		return false
	}
}

// Next returns the next change, waiting for one until ctx ends. Changes
// of the same kind (the same URI) that arrive before Next takes the first
// come out as one. Once the subscription has ended, and what it had
// received is taken, Next returns ErrSubscriptionEnded, wrapping the
// error that ended it, if any.
func (sub *Subscription) Next(ctx context.Context) (Change, error) {
	for {
		sub.mu.Lock()
		if len(sub.pending) > 0 {
			c := sub.pending[0]
			sub.pending = sub.pending[1:]
			sub.mu.Unlock()
			return c, nil
		}
		err := sub.err
		sub.mu.Unlock()
		if err != nil {
			return Change{}, err
		}
		select {
		case <-sub.wake:
		case <-sub.done:
		case <-ctx.Done():
			return Change{}, ctx.Err()
		}
	}
}

// Close ends the subscription: on stdio the server is told with
// notifications/cancelled, on HTTP the stream is closed. It waits for the
// subscription's goroutine to return.
func (sub *Subscription) Close() {
	sub.cancel()
	<-sub.done
}

// run keeps the subscriptions/listen request open until Close or the
// server's end of it.
func (sub *Subscription) run() {
	defer close(sub.done)
	backoff := 100 * time.Millisecond
	for {
		var id jsonrpc.ID
		ctx := jsonrpc.WithCallID(sub.ctx, func(i jsonrpc.ID) {
			id = i
			sub.s.subs.add(i, sub)
		})
		_, _, err := sub.s.callModern(ctx, mcp.MethodSubscriptionsListen, sub.params)
		sub.s.subs.remove(id)
		switch {
		case err == nil:
			sub.end(ErrSubscriptionEnded) // the server ended it gracefully
			return
		case sub.ctx.Err() != nil:
			sub.end(ErrSubscriptionEnded)
			return
		}
		if _, refused := errors.AsType[*jsonrpc.Error](err); refused || errors.Is(err, jsonrpc.ErrClosed) {
			sub.end(errors.Join(ErrSubscriptionEnded, err))
			return
		}
		// The stream broke: the request is lost, and is sent again.
		sub.s.client.log.Debug("client: subscriptions/listen broke; sending it again", "err", err)
		if !sleepCtx(sub.ctx, backoff) {
			sub.end(ErrSubscriptionEnded)
			return
		}
		backoff = min(backoff*2, 30*time.Second)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (sub *Subscription) end(err error) {
	sub.mu.Lock()
	sub.err = err
	sub.mu.Unlock()
	sub.signal()
}

func (sub *Subscription) signal() {
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// deliver takes one notification tagged with the subscription's id.
func (sub *Subscription) deliver(method string, params []byte) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	switch method {
	case mcp.MethodSubscriptionsAcknowledgedNotification:
		var p mcp.SubscriptionsAcknowledgedNotificationParams
		if p.UnmarshalJSON(params) == nil {
			sub.ack = p.Notifications
		}
		if !sub.ackOnce {
			sub.ackOnce = true
			close(sub.acked)
		}
		return
	case mcp.MethodToolListChangedNotification, mcp.MethodPromptListChangedNotification, mcp.MethodResourceListChangedNotification:
		sub.queue(Change{Method: method})
	case mcp.MethodResourceUpdatedNotification:
		var p mcp.ResourceUpdatedNotificationParams
		if p.UnmarshalJSON(params) == nil {
			sub.queue(Change{Method: method, URI: p.URI})
		}
	case tasks.MethodTaskStatusNotification:
		var d tasks.DetailedTask
		id := taskIDOf(params)
		if d.UnmarshalJSON(params) != nil || !sub.acknowledgedTask(id) {
			return // what it does not understand, or did not ask for, is dropped
		}
		if sub.tasks == nil {
			sub.tasks = map[string]tasks.DetailedTask{}
		}
		sub.tasks[id] = d
		sub.queue(Change{Method: method, TaskID: id})
	}
}

// acknowledgedTask reports whether the server agreed to report task id;
// sub.mu is held.
func (sub *Subscription) acknowledgedTask(id string) bool {
	var ids []string
	json.Unmarshal(sub.ack.Extra["taskIds"], &ids)
	return id != "" && slices.Contains(ids, id)
}

// taskIDOf returns the taskId member of a notification's params.
func taskIDOf(params []byte) string {
	var id string
	json.Unmarshal(memberOf(params, "taskId"), &id)
	return id
}

// queue adds c unless the same change already waits: the queue holds at
// most one entry per kind and URI, however fast the server sends.
func (sub *Subscription) queue(c Change) {
	for _, p := range sub.pending {
		if p == c {
			return
		}
	}
	sub.pending = append(sub.pending, c)
	sub.signal()
}

// subscriptions routes tagged notifications to their Subscription.
type subscriptions struct {
	mu   sync.Mutex
	byID map[jsonrpc.ID]*Subscription
}

func (r *subscriptions) add(id jsonrpc.ID, sub *Subscription) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[jsonrpc.ID]*Subscription{}
	}
	r.byID[id] = sub
}

func (r *subscriptions) remove(id jsonrpc.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byID, id)
}

// route hands a notification to the subscription its _meta names,
// reporting whether there was one.
func (r *subscriptions) route(method string, params []byte) bool {
	raw := memberOf(memberOf(params, "_meta"), "io.modelcontextprotocol/subscriptionId")
	if raw == nil {
		return false
	}
	id, err := jsonrpc.ParseID(raw)
	if err != nil {
		return false
	}
	r.mu.Lock()
	sub := r.byID[id]
	r.mu.Unlock()
	if sub == nil {
		return method == mcp.MethodSubscriptionsAcknowledgedNotification // for a subscription already closed
	}
	sub.deliver(method, params)
	return method == mcp.MethodSubscriptionsAcknowledgedNotification
}
