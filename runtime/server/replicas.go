package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/bus"
)

// Replicas of one server behind a load balancer each hold their own
// sessions and subscriptions/listen requests, while a change (a tool
// added, a resource updated, a task's status moved) happens on one of
// them. JoinBus links the replicas through a bus.Bus: each change is told
// to the local clients at once, as without a bus, and published as a
// small message; every other replica tells its own clients as if the
// change were its own. The bus is fire and forget: a replica cut off from
// it misses what was published meanwhile, and its clients learn of those
// changes only when they list or read again.

// MaxBusMessage bounds a message taken from the bus; a longer one is
// dropped. A change message holds an origin, a kind and one method, URI
// or task id; the answers of a tasks/update relayed to the replica
// running the task make the longest.
const MaxBusMessage = 1 << 20

// busQueue bounds the changes waiting to be published; a change that
// finds the queue full reaches only the local clients.
const busQueue = 1024

// busPublishTimeout bounds one Publish, so that a bus that hangs holds up
// only the changes behind it, never the change itself.
const busPublishTimeout = 5 * time.Second

// busLogEvery is how often at most the receiving side logs the messages
// it drops, and the publishing side the changes its full queue drops.
const busLogEvery = time.Minute

// busVersion is the version of the change message; a message of another
// version is dropped.
const busVersion = 1

// The kinds of change message.
const (
	changeList     = "list"     // a list changed: Method is its list_changed notification
	changeResource = "resource" // a resource changed: URI
	changeTask     = "task"     // a task's status changed: Task is its id
	// A client's tasks/cancel or tasks/update reached a replica that does
	// not run the task: Task and Owner name it, Responses are the answers
	// of an update. The replica running it acts on it.
	changeTaskCancel = "task-cancel"
	changeTaskUpdate = "task-update"
)

// change is the message replicas exchange on the bus.
type change struct {
	V      int    `json:"v"`
	Origin string `json:"origin"`
	Kind   string `json:"kind"`
	Method string `json:"method,omitempty"`
	URI    string `json:"uri,omitempty"`
	Task   string `json:"task,omitempty"`
	Owner  string `json:"owner,omitempty"`
	// Responses are a tasks/update's inputResponses.
	Responses map[string]json.RawMessage `json:"responses,omitempty"`
}

// listChangedMethods are the methods a list change message may carry.
var listChangedMethods = map[string]bool{
	mcp.MethodToolListChangedNotification:     true,
	mcp.MethodPromptListChangedNotification:   true,
	mcp.MethodResourceListChangedNotification: true,
}

// decodeChange reads a message from the bus, refusing what this version
// of the server would not send.
func decodeChange(msg []byte) (change, error) {
	var c change
	if len(msg) > MaxBusMessage {
		return c, fmt.Errorf("%d bytes, more than %d", len(msg), MaxBusMessage)
	}
	if err := json.Unmarshal(msg, &c); err != nil {
		return c, err
	}
	if c.V != busVersion {
		return c, fmt.Errorf("version %d, want %d", c.V, busVersion)
	}
	if c.Origin == "" {
		return c, errors.New("no origin")
	}
	switch {
	case c.Kind == changeList && listChangedMethods[c.Method]:
	case c.Kind == changeResource && c.URI != "":
	case c.Kind == changeTask && c.Task != "":
	case c.Kind == changeTaskCancel && c.Task != "" && c.Owner != "":
	case c.Kind == changeTaskUpdate && c.Task != "" && c.Owner != "" && c.Responses != nil:
	default:
		return c, fmt.Errorf("kind %q with method %q, uri %q, task %q", c.Kind, c.Method, c.URI, c.Task)
	}
	return c, nil
}

// busLink is the Server's membership of a bus, from JoinBus to its leave.
type busLink struct {
	bus    bus.Bus
	topic  string
	origin string          // this Server's id on the bus (bus.NewOrigin)
	ctx    context.Context // ends with leave or JoinBus's ctx
	queue  chan []byte     // encoded changes waiting to be published
	done   chan struct{}   // closed when the publisher returns

	down     bool // the last Publish failed; only the publisher touches it
	failed   int  // changes not published since the bus went down
	queueLog rareLog
	recvLog  rareLog
}

// JoinBus makes the Server one of the replicas sharing b on topic: from
// its return, every list change and every ResourceUpdated, and every
// change of a task's status, is published on b with an origin id of this
// Server's own, besides being told to local clients as always; and each
// such message another replica publishes on topic is told to this
// Server's sessions and subscriptions/listen requests as a local change
// would be, without being published again. The Server ignores its own
// messages. A task change is published as the task's id alone: the
// replica receiving it reads the task from its own TaskStore, which the
// replicas must share, before it notifies a listener.
//
// A local change never waits for the bus: it is queued for a publisher
// goroutine, and dropped from the bus (it still reaches local clients)
// when the queue is full. When Publish fails, as it does while Redis is
// down, the failure is logged once, and the return to health once more
// with the count of changes lost; messages from the bus that are
// malformed or longer than MaxBusMessage are dropped and logged at most
// once a minute.
//
// JoinBus subscribes to topic before it returns; a failure to subscribe
// is its error. The membership lasts until ctx ends or leave is called;
// leave ends the subscription and the publisher goroutine, waits for
// both, and drops the changes not yet published; it may be called more
// than once. A Server is on at most one bus at a time: JoinBus fails
// while a membership lasts.
func (s *Server) JoinBus(ctx context.Context, b bus.Bus, topic string) (leave func(), err error) {
	if b == nil || topic == "" {
		return nil, errors.New("server: JoinBus needs a bus and a topic")
	}
	s.busMu.Lock()
	defer s.busMu.Unlock()
	if old := s.bus.Load(); old != nil && old.ctx.Err() == nil {
		return nil, errors.New("server: already on a bus")
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &busLink{bus: b, topic: topic, origin: bus.NewOrigin(), ctx: ctx,
		queue: make(chan []byte, busQueue), done: make(chan struct{})}
	unsubscribe, err := b.Subscribe(ctx, topic, func(msg []byte) { s.received(l, msg) })
	if err != nil {
		cancel()
		return nil, fmt.Errorf("server: join bus topic %s: %w", topic, err)
	}
	go s.publishChanges(l)
	s.bus.Store(l)
	return sync.OnceFunc(func() {
		cancel()
		unsubscribe()
		<-l.done
		s.bus.CompareAndSwap(l, nil)
	}), nil
}

// broadcast queues a change of this Server for the other replicas, when
// it is on a bus.
func (s *Server) broadcast(c change) {
	l := s.bus.Load()
	if l == nil || l.ctx.Err() != nil {
		return
	}
	c.V, c.Origin = busVersion, l.origin
	msg, err := json.Marshal(c)
	if err != nil {
		s.log.Error("a bus message does not encode", "kind", c.Kind, "error", err)
		return
	}
	select {
	case l.queue <- msg:
	default:
		if skipped, ok := l.queueLog.allow(time.Now()); ok {
			s.log.Warn("bus: changes are coming faster than they are published; dropped from the bus (local clients have them)",
				"topic", l.topic, "dropped", skipped+1)
		}
	}
}

// publishChanges publishes what broadcast queues until l's ctx ends.
func (s *Server) publishChanges(l *busLink) {
	defer close(l.done)
	for {
		var msg []byte
		select {
		case <-l.ctx.Done():
			return
		case msg = <-l.queue:
		}
		ctx, cancel := context.WithTimeout(l.ctx, busPublishTimeout)
		err := l.bus.Publish(ctx, l.topic, msg)
		cancel()
		switch {
		case err != nil && l.ctx.Err() != nil:
			return
		case err != nil:
			if !l.down {
				s.log.Error("bus: publish failed; this replica's changes do not reach the others until it works again",
					"topic", l.topic, "error", err)
			}
			l.down = true
			l.failed++
		case l.down:
			s.log.Info("bus: publishing works again", "topic", l.topic, "lost", l.failed)
			l.down, l.failed = false, 0
		}
	}
}

// received tells the local clients of a change another replica
// published.
func (s *Server) received(l *busLink, msg []byte) {
	c, err := decodeChange(msg)
	if err != nil {
		if skipped, ok := l.recvLog.allow(time.Now()); ok {
			s.log.Warn("bus: dropped a malformed message", "topic", l.topic, "error", err, "dropped before", skipped)
		}
		return
	}
	if c.Origin == l.origin {
		return
	}
	switch c.Kind {
	case changeList:
		s.tellListChanged(c.Method)
	case changeResource:
		s.tellResourceUpdated(c.URI)
	case changeTask:
		s.tellTaskChanged(c.Task)
	case changeTaskCancel:
		// Both store the task's new status, which must not hold up the
		// bus: the task's goroutines, which Close waits for, do it.
		if run := s.localTask(c.Owner, c.Task); run != nil {
			s.taskWG.Go(func() { run.stop("cancelled by the client") })
		}
	case changeTaskUpdate:
		if run := s.localTask(c.Owner, c.Task); run != nil {
			s.taskWG.Go(func() { run.answer(c.Responses) })
		}
	}
}

// rareLog lets a log line through at most once every busLogEvery, and
// counts those it held back.
type rareLog struct {
	mu      sync.Mutex
	next    time.Time
	skipped int
}

// allow reports whether to log now and how many lines were held back
// since the last one.
func (r *rareLog) allow(now time.Time) (skipped int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Before(r.next) {
		r.skipped++
		return 0, false
	}
	skipped, r.skipped, r.next = r.skipped, 0, now.Add(busLogEvery)
	return skipped, true
}
