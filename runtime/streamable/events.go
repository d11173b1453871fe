package streamable

import (
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

// DefaultEventBytes bounds the events a MemoryEventStore keeps per session
// when NewMemoryEventStore is given zero.
const DefaultEventBytes = 256 << 10

// eventOverhead is what an Event costs besides its data, counted against
// the bound so that many tiny events are bounded too.
const eventOverhead = 48

// MemoryEventStore is an EventStore in this process's memory, bounded per
// session: past the bound it drops a session's oldest events.
type MemoryEventStore struct {
	max      int
	mu       sync.Mutex
	sessions map[string]*eventLog
	peak     int // the most sessions held, for deleteShrink
}

type eventLog struct {
	events []Event
	bytes  int
}

// NewMemoryEventStore returns a MemoryEventStore that keeps at most
// maxBytes of events per session (counting a small overhead per event);
// zero or less means DefaultEventBytes.
func NewMemoryEventStore(maxBytes int) *MemoryEventStore {
	if maxBytes <= 0 {
		maxBytes = DefaultEventBytes
	}
	return &MemoryEventStore{max: maxBytes, sessions: make(map[string]*eventLog)}
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, session string, e Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.sessions[session]
	if l == nil {
		l = &eventLog{}
		m.sessions[session] = l
	}
	l.events = append(l.events, e)
	l.bytes += len(e.Data) + eventOverhead
	drop := 0
	for l.bytes > m.max && drop < len(l.events) {
		l.bytes -= len(l.events[drop].Data) + eventOverhead
		drop++
	}
	if drop > 0 {
		// Copy rather than reslice, so the dropped events' data is freed.
		l.events = append(l.events[:0:0], l.events[drop:]...)
	}
	return nil
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
	for _, e := range l.events {
		if e.Stream == stream && e.Seq > seq {
			out = append(out, e)
		}
	}
	return out, nil
}

// Forget implements EventStore.
func (m *MemoryEventStore) Forget(_ context.Context, session string) error {
	m.mu.Lock()
	m.sessions = deleteShrink(m.sessions, session, &m.peak)
	m.mu.Unlock()
	return nil
}

// Len returns how many events the store holds for the session.
func (m *MemoryEventStore) Len(session string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.sessions[session]; l != nil {
		return len(l.events)
	}
	return 0
}

// errUnknownEvent is the answer to a Last-Event-ID this session never gave.
var errUnknownEvent = errors.New("unknown Last-Event-ID")
