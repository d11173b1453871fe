package streamable

import (
	"container/heap"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Event is one SSE event of a session's stream, kept so that a client that
// lost its connection can ask for it again with Last-Event-ID.
type Event struct {
	Stream uint64 // the stream within the session; 0 is the standalone GET stream
	Seq    uint64 // the event's place in its stream, from 1
	Data   []byte // one JSON-RPC message or batch
	// Last marks the final event of a POST's stream, the one that
	// carried its last response: a replica resuming another replica's
	// stream knows from it that nothing follows.
	Last bool
}

// ID returns the SSE event id of e, which names its stream and its place
// in it: "<stream>-<seq>".
func (e Event) ID() string { return eventID(e.Stream, e.Seq) }

func eventID(stream, seq uint64) string {
	b := make([]byte, 0, 24)
	b = strconv.AppendUint(b, stream, 10)
	b = append(b, '-')
	b = strconv.AppendUint(b, seq, 10)
	return string(b)
}

// parseEventID reads an id made by eventID. It refuses the other spellings
// of the same numbers ("01-2"), so that each event has one id.
func parseEventID(id string) (stream, seq uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	stream, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || eventID(stream, seq) != id {
		return 0, 0, false
	}
	return stream, seq, true
}

// EventStore keeps the events sent on a session's SSE streams, so that a
// stream can be resumed, on this replica or another. Its methods may be
// called concurrently; the Handler calls Append while it holds a session's
// lock, so Append must not call back into the Handler.
type EventStore interface {
	// Append keeps an event of the session. It owns e.Data, which nothing
	// modifies afterwards.
	Append(ctx context.Context, session string, e Event) error
	// After returns the events of one stream of the session whose Seq is
	// greater than seq, in order. A bounded store may have dropped some;
	// it returns those it still holds.
	After(ctx context.Context, session string, stream, seq uint64) ([]Event, error)
	// Forget drops every event of the session.
	Forget(ctx context.Context, session string) error
}

// Defaults of NewMemoryEventStore's bounds.
const (
	// DefaultEventBytes bounds the events a MemoryEventStore keeps per
	// session.
	DefaultEventBytes = 256 << 10
	// DefaultEventTotalBytes bounds the events a MemoryEventStore keeps
	// in all: without it, DefaultMaxSessions sessions could hold 2.5 GB.
	DefaultEventTotalBytes = 64 << 20
)

// eventOverhead is what an Event costs besides its data, counted against
// the bounds so that many tiny events are bounded too.
const eventOverhead = 48

// MemoryEventStore is an EventStore in this process's memory, bounded per
// session and in all. Past a session's bound it drops that session's
// oldest events; past the total bound, the oldest events of any session.
type MemoryEventStore struct {
	perSession, total int

	mu       sync.Mutex
	sessions map[string]*eventLog
	peak     int     // the most sessions held, for deleteShrink
	oldest   logHeap // the logs holding events, oldest first event first
	bytes    int     // what every log holds, overhead included
	appended uint64  // events appended so far: the age of each
}

// eventLog is the events of one session, oldest first: events[head:].
type eventLog struct {
	events []storedEvent
	head   int
	bytes  int
	index  int // in MemoryEventStore.oldest; -1 while it holds no events
}

type storedEvent struct {
	Event
	n uint64 // the store's count of events when it was appended
}

func cost(e Event) int { return len(e.Data) + eventOverhead }

// NewMemoryEventStore returns a MemoryEventStore that keeps at most
// perSession bytes of events per session and total bytes in all, counting
// a small overhead per event; zero or less means DefaultEventBytes and
// DefaultEventTotalBytes.
func NewMemoryEventStore(perSession, total int) *MemoryEventStore {
	if perSession <= 0 {
		perSession = DefaultEventBytes
	}
	if total <= 0 {
		total = DefaultEventTotalBytes
	}
	return &MemoryEventStore{perSession: perSession, total: total, sessions: make(map[string]*eventLog)}
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, session string, e Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.sessions[session]
	if l == nil {
		l = &eventLog{index: -1}
		m.sessions[session] = l
	}
	m.appended++
	l.events = append(l.events, storedEvent{e, m.appended})
	l.bytes += cost(e)
	m.bytes += cost(e)
	if l.index < 0 {
		heap.Push(&m.oldest, l)
	}
	for l.bytes > m.perSession {
		m.dropOldest(l)
	}
	for m.bytes > m.total {
		m.dropOldest(m.oldest[0])
	}
	return nil
}

// dropOldest drops the oldest event of a log that holds some. m.mu is
// held.
func (m *MemoryEventStore) dropOldest(l *eventLog) {
	c := cost(l.events[l.head].Event)
	l.events[l.head] = storedEvent{} // free its data now
	l.head++
	l.bytes -= c
	m.bytes -= c
	switch {
	case l.head == len(l.events):
		l.events, l.head = nil, 0
		heap.Remove(&m.oldest, l.index)
	case l.head*2 >= len(l.events):
		// Copy the live half down, so that a log's array stays within
		// twice what it holds.
		l.events, l.head = append([]storedEvent(nil), l.events[l.head:]...), 0
		heap.Fix(&m.oldest, l.index)
	default:
		heap.Fix(&m.oldest, l.index)
	}
}

// After implements EventStore.
func (m *MemoryEventStore) After(_ context.Context, session string, stream, seq uint64) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.sessions[session]
	if l == nil {
		return nil, nil
	}
	var out []Event
	for _, e := range l.events[l.head:] {
		if e.Stream == stream && e.Seq > seq {
			out = append(out, e.Event)
		}
	}
	return out, nil
}

// Forget implements EventStore.
func (m *MemoryEventStore) Forget(_ context.Context, session string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.sessions[session]
	if l == nil {
		return nil
	}
	if l.index >= 0 {
		heap.Remove(&m.oldest, l.index)
	}
	m.bytes -= l.bytes
	m.sessions = deleteShrink(m.sessions, session, &m.peak)
	return nil
}

// Len returns how many events the store holds for the session.
func (m *MemoryEventStore) Len(session string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.sessions[session]; l != nil {
		return len(l.events) - l.head
	}
	return 0
}

// Bytes returns what the store holds in all, counting the overhead per
// event that its bounds count.
func (m *MemoryEventStore) Bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// logHeap orders the logs that hold events by the age of their oldest
// one, for container/heap.
type logHeap []*eventLog

func (h logHeap) Len() int { return len(h) }
func (h logHeap) Less(i, j int) bool {
	return h[i].events[h[i].head].n < h[j].events[h[j].head].n
}
func (h logHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *logHeap) Push(x any) {
	l := x.(*eventLog)
	l.index = len(*h)
	*h = append(*h, l)
}
func (h *logHeap) Pop() any {
	old := *h
	l := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	l.index = -1
	return l
}

// errUnknownEvent is the answer to a Last-Event-ID this session never gave.
var errUnknownEvent = errors.New("unknown Last-Event-ID")
