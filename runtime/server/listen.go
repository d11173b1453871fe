package server

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// ErrShutdown is the cause a transport gives the ctx of the requests it
// ends because the server is shutting down (context.WithCancelCause). A
// subscriptions/listen request ended that way answers with its graceful
// completion result, so the client can tell a shutdown from a dropped
// connection.
var ErrShutdown = errors.New("server: shutting down")

// listener is one open subscriptions/listen request: the notifications
// its client opted in to, and those waiting to be sent. What waits is a
// set, not a queue: three flags and the subscribed URIs. A burst of
// changes collapses into one notification of each kind, so a slow client
// costs a bounded amount of memory however fast things change.
type listener struct {
	filter mcp.SubscriptionFilter  // what the server agreed to send
	wake   chan struct{}           // signalled when something is pending
	out    Notifier                // where its notifications go
	end    context.CancelCauseFunc // ends the request; ErrShutdown for its graceful completion

	mu      sync.Mutex
	tools   bool
	prompts bool
	list    bool            // resources/list_changed
	updated map[string]bool // URIs changed since the last send

	// tasks are the ids of the tasks whose status the listener reports,
	// sorted, and taskOwner their requestor (see tasklisten.go);
	// changedTasks are those changed since the last send.
	tasks        []string
	taskOwner    string
	changedTasks map[string]bool
}

func (l *listener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// changed records a list-changed notification for the listener, when it
// asked for that kind.
func (l *listener) changed(method string) {
	l.mu.Lock()
	switch {
	case method == mcp.MethodToolListChangedNotification && l.filter.ToolsListChanged:
		l.tools = true
	case method == mcp.MethodPromptListChangedNotification && l.filter.PromptsListChanged:
		l.prompts = true
	case method == mcp.MethodResourceListChangedNotification && l.filter.ResourcesListChanged:
		l.list = true
	default:
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	l.signal()
}

// resourceUpdated records a change of uri, when the listener watches it.
func (l *listener) resourceUpdated(uri string) {
	if !slices.Contains(l.filter.ResourceSubscriptions, uri) {
		return
	}
	l.mu.Lock()
	if l.updated == nil {
		l.updated = map[string]bool{}
	}
	l.updated[uri] = true
	l.mu.Unlock()
	l.signal()
}

// take returns the pending notifications, in a fixed order, and clears
// them.
func (l *listener) take() (methods, uris, taskIDs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tools {
		methods = append(methods, mcp.MethodToolListChangedNotification)
	}
	if l.prompts {
		methods = append(methods, mcp.MethodPromptListChangedNotification)
	}
	if l.list {
		methods = append(methods, mcp.MethodResourceListChangedNotification)
	}
	for _, u := range l.filter.ResourceSubscriptions {
		if l.updated[u] {
			uris = append(uris, u)
		}
	}
	for _, id := range l.tasks {
		if l.changedTasks[id] {
			taskIDs = append(taskIDs, id)
		}
	}
	l.tools, l.prompts, l.list, l.updated, l.changedTasks = false, false, false, nil, nil
	return methods, uris, taskIDs
}

// SubscriptionsListen serves subscriptions/listen: it acknowledges the
// notifications the server will send, then sends them as they happen,
// each tagged with the request's id, until the client cancels (closing
// the stream on HTTP, notifications/cancelled on stdio) or the server
// shuts down.
func (d dispatcher) SubscriptionsListen(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	s := d.srv
	r := requestOf(ctx)
	if r.session == nil && r.out == nil {
		// Its changes would be dropped: the listen would wait in silence.
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "subscriptions/listen needs a transport that carries notifications, and this one carries none")
	}
	subID := requestID(r.id)
	ctx, end := context.WithCancelCause(ctx)
	defer end(nil)
	l := &listener{filter: s.honoredFilter(p.Notifications), wake: make(chan struct{}, 1), out: r.out, end: end}
	taskIDs, asked, err := s.listenTasks(ctx, r, p.Notifications)
	if err != nil {
		return nil, err
	}
	agreed := l.filter
	if asked {
		l.tasks, l.taskOwner = taskIDs, taskOwner(r)
		if agreed, err = withTaskIDs(agreed, taskIDs); err != nil {
			return nil, jsonrpc.ErrInternal("cannot encode the acknowledgement: " + err.Error())
		}
	}
	meta := &mcp.NotificationMetaObject{SubscriptionID: subID}
	ack := &mcp.SubscriptionsAcknowledgedNotificationParams{Meta: meta, Notifications: agreed}
	params, err := ack.MarshalJSON()
	if err != nil {
		return nil, jsonrpc.ErrInternal("cannot encode the acknowledgement: " + err.Error())
	}
	metaJSON, err := meta.MarshalJSON()
	if err != nil {
		return nil, jsonrpc.ErrInternal("cannot encode a notification's _meta: " + err.Error())
	}
	// Listening starts before the acknowledgement goes out, so that no
	// change between the two is lost; none is sent before it.
	s.addListener(l)
	defer s.removeListener(l)
	if err := r.notify(ctx, mcp.MethodSubscriptionsAcknowledgedNotification, params); err != nil {
		return nil, err
	}
	// The tasks' states as they are now, after the acknowledgement: a
	// change made before listening began is not missed.
	for _, id := range l.tasks {
		l.taskChanged(id)
	}
	for {
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), ErrShutdown) {
				return &mcp.SubscriptionsListenResult{Meta: mcp.SubscriptionsListenResultMetaObject{SubscriptionID: subID}}, nil
			}
			return nil, ctx.Err()
		case <-l.wake:
		}
		methods, uris, taskIDs := l.take()
		for _, m := range methods {
			note := &mcp.NotificationParams{Meta: &mcp.NotificationMetaObject{SubscriptionID: subID}}
			if err := s.sendTagged(ctx, r, m, note); err != nil {
				return nil, err
			}
		}
		for _, u := range uris {
			note := &mcp.ResourceUpdatedNotificationParams{URI: u, Meta: &mcp.NotificationMetaObject{SubscriptionID: subID}}
			if err := s.sendTagged(ctx, r, mcp.MethodResourceUpdatedNotification, note); err != nil {
				return nil, err
			}
		}
		for _, id := range taskIDs {
			if err := s.sendTaskStatus(ctx, r, l, id, metaJSON); err != nil {
				return nil, err
			}
		}
	}
}

func (s *Server) sendTagged(ctx context.Context, r *request, method string, params mcp.Message) error {
	raw, err := params.MarshalJSON()
	if err != nil {
		return jsonrpc.ErrInternal("cannot encode " + method + ": " + err.Error())
	}
	return r.notify(ctx, method, raw)
}

// honoredFilter is the part of a subscription filter the server can keep:
// list changes of what it offers, and updates of resources.
func (s *Server) honoredFilter(want mcp.SubscriptionFilter) mcp.SubscriptionFilter {
	caps := s.capabilities()
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = want.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = want.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	if caps.Resources != nil {
		f.ResourcesListChanged = want.ResourcesListChanged && caps.Resources.ListChanged
		if caps.Resources.Subscribe {
			f.ResourceSubscriptions = slices.Compact(slices.Sorted(slices.Values(want.ResourceSubscriptions)))
		}
	}
	return f
}

func (s *Server) addListener(l *listener) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	if s.listeners == nil {
		s.listeners = map[*listener]struct{}{}
	}
	s.listeners[l] = struct{}{}
}

func (s *Server) removeListener(l *listener) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	delete(s.listeners, l)
	if len(s.listeners) == 0 {
		s.listeners = nil // an emptied map keeps its buckets
	}
}

// eachListener calls f for every open subscription.
func (s *Server) eachListener(f func(*listener)) {
	s.listenMu.Lock()
	ls := make([]*listener, 0, len(s.listeners))
	for l := range s.listeners {
		ls = append(ls, l)
	}
	s.listenMu.Unlock()
	for _, l := range ls {
		f(l)
	}
}

// requestID converts a JSON-RPC id to the protocol package's RequestId.
func requestID(id jsonrpc.ID) mcp.RequestId {
	if n, ok := id.Int(); ok {
		return mcp.RequestIdFromInteger(n)
	}
	str, _ := id.Str()
	return mcp.RequestIdFromString(str)
}
