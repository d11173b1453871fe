package streamable

import (
	"context"
	"errors"
	"sync"
	"time"
)

// SessionRecord is what a SessionStore keeps of a session: what a replica
// needs to know of a session it does not run. The live goroutine and its
// transport stay with the replica that runs them.
type SessionRecord struct {
	ID string
	// ProtocolVersion is the version initialize negotiated, "" until the
	// server answered it.
	ProtocolVersion string
	// Initialize is the raw params of the client's initialize request:
	// enough to bring an equivalent engine session up elsewhere.
	Initialize []byte
	Created    time.Time
	// Owner names the identity that started the session, alike on every
	// replica (see ownerKey); "" for none.
	Owner string
	// Unshared marks a session whose owner has no such name: no other
	// replica may serve it.
	Unshared bool
	// LogLevel is the level of the client's last logging/setLevel, ""
	// before one.
	LogLevel string
	// Subscriptions are the URIs of the client's resources/subscribe
	// requests still in force, in the order it made them.
	Subscriptions []string
}

// ErrUnknownSession is returned by a SessionStore for an id it does not
// hold.
var ErrUnknownSession = errors.New("streamable: unknown session")

// SessionStore keeps the records of live sessions. Its methods may be
// called concurrently.
type SessionStore interface {
	// Create records a new session.
	Create(ctx context.Context, rec SessionRecord) error
	// Get returns the record of the session, or ErrUnknownSession.
	Get(ctx context.Context, id string) (SessionRecord, error)
	// Update replaces the record of a session.
	Update(ctx context.Context, rec SessionRecord) error
	// Delete forgets a session. Deleting an unknown id is not an error.
	Delete(ctx context.Context, id string) error
}

// MemorySessionStore is a SessionStore in this process's memory.
type MemorySessionStore struct {
	mu      sync.Mutex
	records map[string]SessionRecord
	peak    int // the most records held, for deleteShrink
}

// NewMemorySessionStore returns an empty MemorySessionStore.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{records: make(map[string]SessionRecord)}
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, rec SessionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.records[rec.ID]; dup {
		return errors.New("streamable: session " + rec.ID + " already exists")
	}
	m.records[rec.ID] = rec
	return nil
}

// Get implements SessionStore.
func (m *MemorySessionStore) Get(_ context.Context, id string) (SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[id]
	if !ok {
		return SessionRecord{}, ErrUnknownSession
	}
	return rec, nil
}

// Update implements SessionStore.
func (m *MemorySessionStore) Update(_ context.Context, rec SessionRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.records[rec.ID]; !ok {
		return ErrUnknownSession
	}
	m.records[rec.ID] = rec
	return nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	m.records = deleteShrink(m.records, id, &m.peak)
	m.mu.Unlock()
	return nil
}

// Len returns how many sessions the store holds.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}
