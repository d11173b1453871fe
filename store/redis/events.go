package redis

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// The defaults of EventOptions.
const (
	DefaultEventPrefix = "mcpgen:events:"
	// DefaultEventMaxLen bounds the events kept per stream.
	DefaultEventMaxLen = 1000
	// DefaultEventTTL is how long a session's events outlive its last
	// Append.
	DefaultEventTTL = time.Hour
)

// EventOptions configure an EventStore.
type EventOptions struct {
	// Prefix starts every key; empty means DefaultEventPrefix.
	Prefix string
	// MaxLen bounds the events kept per stream of a session: past it,
	// Append drops the stream's oldest. Zero or less means
	// DefaultEventMaxLen.
	MaxLen int64
	// TTL is how long a session's events are kept after its last Append;
	// zero or less means DefaultEventTTL. It drops the events of sessions
	// whose replica died before it could Forget them.
	TTL time.Duration
}

// EventStore is a streamable.EventStore in Redis, so that a client can
// resume a stream with Last-Event-ID on any replica.
//
// Each SSE stream of a session is a Redis stream whose entry ids are the
// events' Seq ("<seq>-0"), trimmed to MaxLen entries, and a set lists the
// streams a session has, for Forget. A session's keys share the hash tag
// of its id. Append is one script, After one XRANGE, and Forget one
// script.
//
// It bounds events by count per stream, not by bytes as the memory store
// does: Redis has no byte bound per key, and MaxLen times the largest
// message is the bound to plan memory with.
type EventStore struct {
	client goredis.UniversalClient
	opts   EventOptions
}

var _ streamable.EventStore = (*EventStore)(nil)

// NewEventStore returns an EventStore that keeps events through client.
// The caller owns client and closes it after the store's last use.
func NewEventStore(client goredis.UniversalClient, opts EventOptions) *EventStore {
	if opts.Prefix == "" {
		opts.Prefix = DefaultEventPrefix
	}
	if opts.MaxLen <= 0 {
		opts.MaxLen = DefaultEventMaxLen
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultEventTTL
	}
	return &EventStore{client: client, opts: opts}
}

func (s *EventStore) streamKey(session string, stream uint64) string {
	return s.opts.Prefix + "{" + session + "}:" + strconv.FormatUint(stream, 10)
}

func (s *EventStore) setKey(session string) string {
	return s.opts.Prefix + "{" + session + "}:streams"
}

// Append implements streamable.EventStore.
func (s *EventStore) Append(ctx context.Context, session string, e streamable.Event) error {
	if e.Seq == 0 {
		return fmt.Errorf("append event %s to session %s: Seq starts at 1", e.ID(), session)
	}
	last := "0"
	if e.Last {
		last = "1"
	}
	err := appendScript.Run(ctx, s.client, []string{s.streamKey(session, e.Stream), s.setKey(session)},
		strconv.FormatUint(e.Seq, 10)+"-0", s.opts.MaxLen, s.opts.TTL.Milliseconds(), e.Stream, e.Data, last).Err()
	if err != nil {
		return fmt.Errorf("append event %s to session %s: redis: %w", e.ID(), session, err)
	}
	return nil
}

// After implements streamable.EventStore.
func (s *EventStore) After(ctx context.Context, session string, stream, seq uint64) ([]streamable.Event, error) {
	if seq == math.MaxUint64 {
		return nil, nil
	}
	msgs, err := s.client.XRange(ctx, s.streamKey(session, stream), strconv.FormatUint(seq+1, 10)+"-0", "+").Result()
	if err != nil {
		return nil, fmt.Errorf("events of session %s stream %d after %d: redis: %w", session, stream, seq, err)
	}
	out := make([]streamable.Event, 0, len(msgs))
	for _, m := range msgs {
		ms, _, _ := strings.Cut(m.ID, "-")
		n, err := strconv.ParseUint(ms, 10, 64)
		data, ok := m.Values["d"].(string)
		if err != nil || !ok {
			return nil, fmt.Errorf("events of session %s stream %d: malformed entry %s", session, stream, m.ID)
		}
		_, last := m.Values["l"]
		out = append(out, streamable.Event{Stream: stream, Seq: n, Data: []byte(data), Last: last})
	}
	return out, nil
}

// appendScript: KEYS the stream and the session's set of streams; ARGV
// the entry id, MaxLen, the TTL in milliseconds, the stream's number, the
// data and "1" for the stream's last event. One command where a MULTI/EXEC
// of four costs the replica more to write and Redis more to parse.
var appendScript = goredis.NewScript(`
if ARGV[6] == '1' then
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], ARGV[1], 'd', ARGV[5], 'l', '1')
else
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], ARGV[1], 'd', ARGV[5])
end
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 0
`)

// forgetScript: KEYS the session's set of streams; ARGV the prefix of
// its stream keys. Deletes every stream the set names, then the set.
var forgetScript = goredis.NewScript(`
for _, stream in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  redis.call('DEL', ARGV[1] .. stream)
end
return redis.call('DEL', KEYS[1])
`)

// Forget implements streamable.EventStore.
func (s *EventStore) Forget(ctx context.Context, session string) error {
	err := forgetScript.Run(ctx, s.client, []string{s.setKey(session)}, s.opts.Prefix+"{"+session+"}:").Err()
	if err != nil {
		return fmt.Errorf("forget events of session %s: redis: %w", session, err)
	}
	return nil
}
