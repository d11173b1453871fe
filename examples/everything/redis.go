package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
	"github.com/mcpgen/mcpgen/store/redis"
)

// shared is the state replicas keep in Redis with -redis: the tasks, the
// Streamable HTTP handler's session records and SSE events, the token
// buckets of the rate limits, and the bus on which the replicas tell each
// other's clients of list changes, resource updates and task changes and
// relay the messages of the legacy sessions they all serve. A nil *shared
// is the in-memory server of one process.
type shared struct {
	client   *goredis.Client
	tasks    *redis.TaskStore
	sessions *redis.SessionStore
	events   *redis.EventStore
	rates    *redis.RateLimitStore
	bus      *redis.Bus
}

// busTopic is the topic on which the replicas of everything share their
// changes.
const busTopic = "everything"

// redisTimeout bounds the first PING, which tells an unreachable Redis at
// start from one that is up.
const redisTimeout = 5 * time.Second

// openShared connects to the Redis of rawURL (redis://HOST:PORT/DB, or
// rediss:// for TLS) and checks that it answers. stateKeys are the
// EVERYTHING_STATE_KEY keys, nil when it is unset: the first one also
// authenticates the task store's list cursors, so that a cursor made on
// one replica pages on all. Errors never carry the URL's password.
func openShared(ctx context.Context, rawURL string, stateKeys [][]byte) (*shared, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the whole URL, password and all.
		return nil, parseError("-redis: not a URL (want redis://HOST:PORT/DB)")
	}
	safe := u.Redacted()
	opts, err := goredis.ParseURL(rawURL)
	if err != nil {
		msg := err.Error()
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
		return nil, parseError(fmt.Sprintf("-redis %s: %s", safe, msg))
	}
	opts.DialTimeout = redisTimeout
	// While Redis is down, a request that needs it should fail in about
	// a second, not after go-redis's defaults (3 s reads, 3 retries with
	// backoff): a URL's read_timeout, write_timeout or max_retries win.
	q := u.Query()
	if !q.Has("read_timeout") {
		opts.ReadTimeout = time.Second
	}
	if !q.Has("write_timeout") {
		opts.WriteTimeout = time.Second
	}
	if !q.Has("max_retries") {
		opts.MaxRetries = 1
	}
	c := goredis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("-redis %s: Redis does not answer: %w", safe, err)
	}
	var cursorKey []byte
	if len(stateKeys) > 0 {
		// A key of its own, derived from the sealing key, not that key.
		m := hmac.New(sha256.New, stateKeys[0])
		m.Write([]byte("mcpgen-everything task list cursors"))
		cursorKey = m.Sum(nil)
	}
	return &shared{
		client:   c,
		tasks:    redis.NewTaskStore(c, redis.TaskOptions{CursorKey: cursorKey}),
		sessions: redis.NewSessionStore(c, redis.SessionOptions{}),
		events:   redis.NewEventStore(c, redis.EventOptions{}),
		rates:    redis.NewRateLimitStore(c, redis.RateLimitOptions{}),
		bus:      redis.NewBus(c, redis.BusOptions{}),
	}, nil
}

// joinBus puts srv on sh's bus until ctx ends or leave is called, which
// must come before close. Without sh there is nothing to join.
func (sh *shared) joinBus(ctx context.Context, srv *server.Server) (leave func(), err error) {
	if sh == nil {
		return func() {}, nil
	}
	return srv.JoinBus(ctx, sh.bus, busTopic)
}

// handlerOptions are the Streamable HTTP handler's options: with sh, its
// session records and SSE events are kept in Redis.
func (sh *shared) handlerOptions(opts *streamable.HandlerOptions) *streamable.HandlerOptions {
	if sh != nil {
		opts.Sessions = sh.sessions
		opts.Events = sh.events
		// Any replica serves any legacy session: no sticky routing.
		opts.Bus, opts.BusTopic = sh.bus, busTopic+":sessions"
	}
	return opts
}

// close closes the Redis client, if any.
func (sh *shared) close() error {
	if sh == nil {
		return nil
	}
	return sh.client.Close()
}

// parseError is a -redis URL that cannot be used: a usage error (exit
// code 2), where a Redis that does not answer is a failure (1).
type parseError string

func (e parseError) Error() string { return string(e) }
