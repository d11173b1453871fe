package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// DefaultSessionPrefix starts every key of a SessionStore whose options
// give no Prefix.
const DefaultSessionPrefix = "mcpgen:session:"

// DefaultSessionIdleTTL is how long a session record outlives its last
// Create, Get or Update when SessionOptions give no IdleTTL.
const DefaultSessionIdleTTL = 24 * time.Hour

// SessionOptions configure a SessionStore.
type SessionOptions struct {
	// Prefix starts every key; empty means DefaultSessionPrefix.
	Prefix string
	// IdleTTL is how long a record is kept after its last Create, Get or
	// Update; zero or less means DefaultSessionIdleTTL. A replica reads
	// the record of a session in use every ten minutes, so an IdleTTL
	// well above that only drops the records of sessions whose replicas
	// ended without a Delete.
	IdleTTL time.Duration
}

// SessionStore is a streamable.SessionStore in Redis: each record is one
// JSON string key with an idle expiry. Every method is one round trip
// (SET NX, GETEX, SET XX, DEL).
type SessionStore struct {
	client goredis.UniversalClient
	opts   SessionOptions
}

var _ streamable.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore that keeps its records through
// client. The caller owns client and closes it after the store's last use.
func NewSessionStore(client goredis.UniversalClient, opts SessionOptions) *SessionStore {
	if opts.Prefix == "" {
		opts.Prefix = DefaultSessionPrefix
	}
	if opts.IdleTTL <= 0 {
		opts.IdleTTL = DefaultSessionIdleTTL
	}
	return &SessionStore{client: client, opts: opts}
}

// sessionJSON is a SessionRecord as stored; the id is in the key.
type sessionJSON struct {
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	Initialize      []byte    `json:"initialize,omitempty"`
	Created         time.Time `json:"created"`
	Owner           string    `json:"owner,omitempty"`
	Unshared        bool      `json:"unshared,omitempty"`
	LogLevel        string    `json:"logLevel,omitempty"`
	Subscriptions   []string  `json:"subscriptions,omitempty"`
}

func (s *SessionStore) key(id string) string { return s.opts.Prefix + id }

func encodeSession(rec streamable.SessionRecord) ([]byte, error) {
	return json.Marshal(sessionJSON{
		ProtocolVersion: rec.ProtocolVersion, Initialize: rec.Initialize, Created: rec.Created,
		Owner: rec.Owner, Unshared: rec.Unshared, LogLevel: rec.LogLevel, Subscriptions: rec.Subscriptions,
	})
}

// Create implements streamable.SessionStore.
func (s *SessionStore) Create(ctx context.Context, rec streamable.SessionRecord) error {
	b, err := encodeSession(rec)
	if err != nil {
		return fmt.Errorf("create session %s: %w", rec.ID, err)
	}
	ok, err := s.client.SetNX(ctx, s.key(rec.ID), b, s.opts.IdleTTL).Result()
	if err != nil {
		return fmt.Errorf("create session %s: redis: %w", rec.ID, err)
	}
	if !ok {
		return fmt.Errorf("create session %s: it already exists", rec.ID)
	}
	return nil
}

// Get implements streamable.SessionStore. It restarts the record's idle
// expiry.
func (s *SessionStore) Get(ctx context.Context, id string) (streamable.SessionRecord, error) {
	b, err := s.client.GetEx(ctx, s.key(id), s.opts.IdleTTL).Bytes()
	if errors.Is(err, goredis.Nil) {
		return streamable.SessionRecord{}, streamable.ErrUnknownSession
	}
	if err != nil {
		return streamable.SessionRecord{}, fmt.Errorf("get session %s: redis: %w", id, err)
	}
	var v sessionJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return streamable.SessionRecord{}, fmt.Errorf("get session %s: malformed record: %w", id, err)
	}
	return streamable.SessionRecord{
		ID: id, ProtocolVersion: v.ProtocolVersion, Initialize: v.Initialize, Created: v.Created,
		Owner: v.Owner, Unshared: v.Unshared, LogLevel: v.LogLevel, Subscriptions: v.Subscriptions,
	}, nil
}

// Update implements streamable.SessionStore. It restarts the record's idle
// expiry.
func (s *SessionStore) Update(ctx context.Context, rec streamable.SessionRecord) error {
	b, err := encodeSession(rec)
	if err != nil {
		return fmt.Errorf("update session %s: %w", rec.ID, err)
	}
	ok, err := s.client.SetXX(ctx, s.key(rec.ID), b, s.opts.IdleTTL).Result()
	if err != nil {
		return fmt.Errorf("update session %s: redis: %w", rec.ID, err)
	}
	if !ok {
		return streamable.ErrUnknownSession
	}
	return nil
}

// Delete implements streamable.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.client.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("delete session %s: redis: %w", id, err)
	}
	return nil
}
