package policy

import (
	"container/list"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxBuckets bounds the buckets a Limiter keeps when MaxBuckets is
// zero.
const DefaultMaxBuckets = 1 << 14

// RateConfig is one token bucket's settings: Burst calls at once, PerMinute
// on average. PerMinute zero sets no limit.
type RateConfig struct {
	PerMinute float64 `yaml:"perMinute,omitempty"`
	Burst     int     `yaml:"burst,omitempty"`
}

// RateLimitError refuses a call over a rate limit.
type RateLimitError struct {
	// Key is the bucket's key: the principal, or principal and tool.
	Key string
	// RetryAfter is how long until the call would be accepted.
	RetryAfter time.Duration
}

// Error names the bucket and the wait.
func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limit exceeded for %s: retry after %s", e.Key, e.RetryAfter)
}

// Limiter keeps one token bucket per key (a principal, or a principal and
// a tool), at most MaxBuckets of them: when full it drops the least
// recently used bucket, which hands its caller a full burst again, so the
// bound should be well above the callers active within a refill.
type Limiter struct {
	limit   rate.Limit
	burst   int
	max     int
	now     func() time.Time
	mu      sync.Mutex
	lru     *list.List // of *bucket, most recent first
	buckets map[string]*list.Element
}

type bucket struct {
	key string
	lim *rate.Limiter
}

// NewLimiter returns a Limiter with c's settings; maxBuckets zero means
// DefaultMaxBuckets, now nil means time.Now. A nil *Limiter (c sets no
// limit) allows everything.
func NewLimiter(c RateConfig, maxBuckets int, now func() time.Time) (*Limiter, error) {
	if c.PerMinute < 0 || c.Burst < 0 {
		return nil, fmt.Errorf("rate limit: perMinute and burst must not be negative")
	}
	if c.PerMinute == 0 {
		return nil, nil
	}
	if maxBuckets <= 0 {
		maxBuckets = DefaultMaxBuckets
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{
		limit: rate.Limit(c.PerMinute / 60), burst: max(c.Burst, 1), max: maxBuckets, now: now,
		lru: list.New(), buckets: make(map[string]*list.Element),
	}, nil
}

// Allow takes a token from key's bucket, or returns a *RateLimitError
// saying when one will be there; a refusal takes nothing.
func (l *Limiter) Allow(key string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var b *bucket
	if e, ok := l.buckets[key]; ok {
		l.lru.MoveToFront(e)
		b = e.Value.(*bucket)
	} else {
		if l.lru.Len() >= l.max {
			old := l.lru.Back()
			l.lru.Remove(old)
			delete(l.buckets, old.Value.(*bucket).key)
		}
		b = &bucket{key: key, lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = l.lru.PushFront(b)
	}
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return &RateLimitError{Key: key, RetryAfter: d}
	}
	return nil
}

// Len returns the number of buckets kept.
func (l *Limiter) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}
