package redis

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/bus"
)

// DefaultBusPrefix starts the Redis channel of every topic of a Bus whose
// options give no Prefix.
const DefaultBusPrefix = "mcpgen:bus:"

// DefaultBusQueue is how many messages a subscription may have waiting
// for its deliver when BusOptions give no Queue.
const DefaultBusQueue = 1024

// busSubscribeTimeout bounds the wait for Redis to confirm a
// subscription.
const busSubscribeTimeout = 10 * time.Second

// BusOptions configure a Bus.
type BusOptions struct {
	// Prefix starts the Redis channel of every topic; empty means
	// DefaultBusPrefix.
	Prefix string
	// Queue bounds the messages each subscription holds while its
	// deliver is busy; zero or less means DefaultBusQueue.
	Queue int
}

// Bus is a bus.Bus over Redis pub/sub: a topic is the channel Prefix+topic,
// Publish is one PUBLISH, and each Subscribe holds one connection of its
// own in SUBSCRIBE mode. Redis pub/sub is fire and forget, as bus.Bus
// promises no more: a replica that is cut off misses what is published
// meanwhile.
//
// A subscription survives Redis going away: the client reconnects and
// subscribes again by itself once Redis is back, and delivery resumes,
// without what was published in between. Each subscription has two
// goroutines, one taking messages off the connection into a queue of at
// most Queue messages (a message that finds it full is dropped and
// counted, see Dropped) and one calling deliver; both end with the
// subscription's ctx or its stop.
type Bus struct {
	client  goredis.UniversalClient
	opts    BusOptions
	dropped atomic.Int64
}

var _ bus.Counter = (*Bus)(nil)

// NewBus returns a Bus that publishes and subscribes through client. The
// caller owns client and closes it after the last subscription stopped.
func NewBus(client goredis.UniversalClient, opts BusOptions) *Bus {
	if opts.Prefix == "" {
		opts.Prefix = DefaultBusPrefix
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultBusQueue
	}
	return &Bus{client: client, opts: opts}
}

func (b *Bus) channel(topic string) string { return b.opts.Prefix + topic }

// Publish implements bus.Bus. With Redis down it fails as soon as the
// client's dial and write timeouts, or ctx, allow, with an error wrapping
// the client's.
func (b *Bus) Publish(ctx context.Context, topic string, msg []byte) error {
	_, err := b.PublishCount(ctx, topic, msg)
	return err
}

// PublishCount implements bus.Counter with the count PUBLISH returns: the
// subscriptions on the channel, each a connection of its own. In a Redis
// Cluster that is the subscriptions on the node the client published to.
func (b *Bus) PublishCount(ctx context.Context, topic string, msg []byte) (int, error) {
	n, err := b.client.Publish(ctx, b.channel(topic), msg).Result()
	if err != nil {
		return 0, fmt.Errorf("bus: publish on %s: redis: %w", topic, err)
	}
	return int(n), nil
}

// Subscribe implements bus.Bus. It returns once Redis confirmed the
// subscription, or fails when Redis does not confirm it within ctx and
// ten seconds.
func (b *Bus) Subscribe(ctx context.Context, topic string, deliver func(msg []byte)) (func(), error) {
	ps := b.client.Subscribe(ctx, b.channel(topic))
	rctx, cancel := context.WithTimeout(ctx, busSubscribeTimeout)
	_, err := ps.Receive(rctx)
	cancel()
	if err != nil {
		ps.Close()
		return nil, fmt.Errorf("bus: subscribe to %s: redis: %w", topic, err)
	}
	// The client's goroutine behind ch reconnects and subscribes again
	// after Redis went away; ch closes once ps is closed.
	ch := ps.Channel()
	queue := make(chan []byte, b.opts.Queue)
	stopping := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(queue)
		for m := range ch {
			select {
			case queue <- []byte(m.Payload):
			default:
				b.dropped.Add(1)
			}
		}
	})
	wg.Go(func() {
		ended := func() bool {
			select {
			case <-stopping:
				return true
			case <-ctx.Done():
				return true
			default:
				return false
			}
		}
		in := queue // nil once closed: the client was closed under the subscription
		for !ended() {
			select {
			case msg, ok := <-in:
				if !ok {
					in = nil
				} else if !ended() {
					deliver(msg)
				}
			case <-stopping:
			case <-ctx.Done():
			}
		}
		ps.Close()
		for range queue {
		}
	})
	var once sync.Once
	stop := func() {
		once.Do(func() { close(stopping) })
		wg.Wait()
	}
	return stop, nil
}

// Dropped returns how many messages subscriptions dropped because their
// queue was full.
func (b *Bus) Dropped() int64 { return b.dropped.Load() }
