package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

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

// joinBus puts e's engine on sh's bus, and e on the topic of the dynamic
// entries, until ctx ends or leave is called, which must come before
// close; e lists the dynamic entries Redis says are listed. Without sh
// there is nothing to join.
func (sh *shared) joinBus(ctx context.Context, e *everything) (leave func(), err error) {
	if sh == nil {
		return func() {}, nil
	}
	leaveServer, err := e.srv.JoinBus(ctx, sh.bus, busTopic)
	if err != nil {
		return nil, err
	}
	stop, err := sh.bus.Subscribe(ctx, dynamicTopic, func(msg []byte) { sh.follow(ctx, e, string(msg)) })
	if err != nil {
		leaveServer()
		return nil, fmt.Errorf("subscribe to %s: %w", dynamicTopic, err)
	}
	for _, name := range []string{dynamicTool, dynamicPrompt} {
		sh.follow(ctx, e, name)
	}
	return func() { stop(); leaveServer() }, nil
}

// dynamicTopic is the bus topic on which a replica that toggled a dynamic
// entry names it, for the others to follow.
const dynamicTopic = busTopic + ":dynamic"

// dynamicKey is the counter of a dynamic entry's toggles: odd means listed.
func dynamicKey(name string) string { return "everything:dynamic:" + name }

// toggle flips a dynamic entry for every replica: it counts the toggle in
// Redis, lists or unlists the entry here as the count says, and names the
// entry on the bus for the others to read the count too.
func (sh *shared) toggle(ctx context.Context, e *everything, name string) (present bool, err error) {
	n, err := sh.client.Incr(ctx, dynamicKey(name)).Result()
	if err != nil {
		return false, fmt.Errorf("toggle %s: redis: %w", name, err)
	}
	present = n%2 == 1
	if err := e.setDynamic(name, present); err != nil {
		return false, err
	}
	if err := sh.bus.Publish(ctx, dynamicTopic, []byte(name)); err != nil {
		return false, fmt.Errorf("toggle %s: tell the other replicas: %w", name, err)
	}
	return present, nil
}

// follow lists or unlists a dynamic entry as its count in Redis says. It
// reads the count rather than trusting the message, so that toggles
// crossing on the bus still leave every replica as Redis says.
func (sh *shared) follow(ctx context.Context, e *everything, name string) {
	if name != dynamicTool && name != dynamicPrompt {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	n, err := sh.client.Get(ctx, dynamicKey(name)).Int64()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return // Redis is down; the next toggle's message tries again
	}
	e.setDynamic(name, n%2 == 1)
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
