// Package bus carries messages between the replicas of one server: the
// list changes and resource updates every replica's clients must hear of,
// and the messages of a legacy session that one replica received and
// another must act on.
//
// A Bus is fire and forget, like Redis pub/sub: a message reaches the
// replicas subscribed when it is published, at most once, and a replica
// that was cut off meanwhile misses it. What must not be lost (tasks,
// session records, stored events) lives in the stores, not on the bus.
package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
)

// Bus delivers each message published on a topic to every subscriber of
// that topic, in this process and in the other replicas sharing the bus,
// the publisher's own subscribers included. Its methods may be called
// concurrently.
type Bus interface {
	// Publish sends msg to the topic's subscribers. It returns once the
	// bus took the message, not once anyone received it. The bus owns
	// msg afterwards.
	Publish(ctx context.Context, topic string, msg []byte) error
	// Subscribe calls deliver with each message published on topic from
	// the moment it returns until ctx ends or the returned stop is
	// called; then no deliver call is running or will start. deliver is
	// called from one goroutine at a time, in the order the bus received
	// the messages; it must not block for long, for a bus may drop what a
	// slow subscriber leaves queued. deliver must not modify msg, and
	// must not call stop, which waits for deliver to return.
	Subscribe(ctx context.Context, topic string, deliver func(msg []byte)) (stop func(), err error)
}

// Counter is a Bus that can say how many subscriptions a message was
// handed to, as Redis's PUBLISH does: a publisher that needs every
// subscriber to act before it goes on (a session ended on every replica
// before its DELETE is answered) waits for that many replies. The count
// takes in subscriptions the bus gave the message to, not those that
// will have delivered it: a subscriber's queue may still drop it.
type Counter interface {
	Bus
	// PublishCount is Publish, and returns how many subscriptions took
	// msg, the publisher's own among them.
	PublishCount(ctx context.Context, topic string, msg []byte) (int, error)
}

// NewOrigin returns a random id naming one replica, for its messages to
// carry so that it can tell its own from the others'.
func NewOrigin() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// DefaultMemoryQueue is how many messages a Memory subscriber may have
// waiting when NewMemory is given no bound.
const DefaultMemoryQueue = 1024

// Memory is a Bus within one process: several Handlers or Servers sharing
// one Memory behave as replicas sharing a Redis would, which makes it the
// bus of tests. Each subscriber has a queue of at most the bound given to
// NewMemory; a message that finds it full is dropped for that subscriber,
// as a network bus would drop it for a slow reader.
type Memory struct {
	max     int
	mu      sync.Mutex
	closed  bool
	topics  map[string]map[*memorySub]struct{}
	dropped int
}

type memorySub struct {
	queue chan []byte
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

var _ Counter = (*Memory)(nil)

// NewMemory returns an empty Memory whose subscribers each queue at most
// queue messages; zero or less means DefaultMemoryQueue.
func NewMemory(queue int) *Memory {
	if queue <= 0 {
		queue = DefaultMemoryQueue
	}
	return &Memory{max: queue, topics: make(map[string]map[*memorySub]struct{})}
}

// ErrClosed is returned by a closed bus.
var ErrClosed = errors.New("bus: closed")

// Publish implements Bus.
func (m *Memory) Publish(ctx context.Context, topic string, msg []byte) error {
	_, err := m.PublishCount(ctx, topic, msg)
	return err
}

// PublishCount implements Counter: it counts the subscribers whose queue
// took msg, not those whose full queue dropped it.
func (m *Memory) PublishCount(ctx context.Context, topic string, msg []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	n := 0
	for sub := range m.topics[topic] {
		select {
		case sub.queue <- msg:
			n++
		default:
			m.dropped++
		}
	}
	return n, nil
}

// Subscribe implements Bus. Its goroutine ends with ctx, stop or Close.
func (m *Memory) Subscribe(ctx context.Context, topic string, deliver func(msg []byte)) (func(), error) {
	sub := &memorySub{queue: make(chan []byte, m.max), stop: make(chan struct{}), done: make(chan struct{})}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if m.topics[topic] == nil {
		m.topics[topic] = make(map[*memorySub]struct{})
	}
	m.topics[topic][sub] = struct{}{}
	m.mu.Unlock()
	go func() {
		defer close(sub.done)
		defer m.remove(topic, sub)
		for {
			select {
			case msg := <-sub.queue:
				deliver(msg)
			case <-sub.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	stop := func() {
		sub.once.Do(func() { close(sub.stop) })
		<-sub.done
	}
	return stop, nil
}

func (m *Memory) remove(topic string, sub *memorySub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.topics[topic], sub)
	if len(m.topics[topic]) == 0 {
		delete(m.topics, topic)
	}
}

// Dropped returns how many deliveries were dropped on a full queue.
func (m *Memory) Dropped() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped
}

// Close stops every subscription and refuses what comes after; it returns
// once no deliver call is running.
func (m *Memory) Close() error {
	m.mu.Lock()
	m.closed = true
	var subs []*memorySub
	for _, set := range m.topics {
		for sub := range set {
			subs = append(subs, sub)
		}
	}
	m.mu.Unlock()
	for _, sub := range subs {
		sub.once.Do(func() { close(sub.stop) })
		<-sub.done
	}
	return nil
}
