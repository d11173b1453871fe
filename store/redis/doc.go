// Package redis keeps mcpgen's shared state in Redis, so that several
// replicas of one server see the same tasks, sessions and stored events:
// [TaskStore] implements tasks.Store, [SessionStore] implements
// streamable.SessionStore, [EventStore] implements
// streamable.EventStore and [RateLimitStore] implements
// server.RateLimitStore. [Bus] implements bus.Bus over Redis pub/sub, on
// which replicas tell each other of the changes their clients must hear
// of (server.JoinBus) and relay the messages of the legacy sessions they
// all serve (streamable.HandlerOptions.Bus).
//
// It lives in its own module so that the core module, and every server
// that keeps its state in memory, never depends on a Redis client.
//
// Every store takes a go-redis client the caller built and owns: its
// DialTimeout, ReadTimeout and WriteTimeout, with the context of each call,
// bound how long a method waits when Redis is down, and the client
// reconnects by itself when Redis comes back. A method that could not
// reach Redis returns an error wrapping the client's; it never hangs on a
// context without a deadline longer than the client's timeouts allow.
//
// A Bus's subscriptions reconnect and subscribe again by themselves when
// Redis comes back, missing what was published meanwhile, as pub/sub
// does.
//
// Every key of a store starts with its prefix, and every channel of a Bus
// with its own ("mcpgen:bus:" by default). The keys one operation
// touches share a hash tag (the task store's prefix, "{mcpgen:tasks}:" by
// default, or an event store's session id), so in a cluster they sit in
// one slot.
package redis
