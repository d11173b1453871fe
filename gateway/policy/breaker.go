package policy

import (
	"fmt"
	"sync"
	"time"
)

// BreakerConfig sets when a Breaker opens and for how long.
type BreakerConfig struct {
	// Failures is the consecutive failures that open it; zero means no
	// such trigger.
	Failures int `yaml:"failures,omitempty"`
	// FailureRatio opens it when, within one Window, at least MinCalls
	// calls were made and this share of them failed; zero means no such
	// trigger. With neither trigger the breaker is disabled.
	FailureRatio float64 `yaml:"failureRatio,omitempty"`
	// Window is the length of the fixed windows FailureRatio counts in;
	// zero means one minute.
	Window time.Duration `yaml:"window,omitempty"`
	// MinCalls is the calls a window needs before FailureRatio applies;
	// zero means 10.
	MinCalls int `yaml:"minCalls,omitempty"`
	// Cooldown is how long it stays open before one probe is let
	// through; zero means 30s.
	Cooldown time.Duration `yaml:"cooldown,omitempty"`
}

// State is a Breaker's state.
type State int

// The states.
const (
	Closed   State = iota // calls go through
	Open                  // calls are refused until the cooldown ends
	HalfOpen              // one probe call is in flight
)

// UnavailableError refuses a call to an upstream whose breaker is open.
type UnavailableError struct {
	// Upstream is the upstream's name.
	Upstream string
	// Until is when a probe call will be let through.
	Until time.Time
}

// Error names the upstream and when it will be tried again.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("upstream %s is unavailable until %s after repeated failures", e.Upstream, e.Until.UTC().Format(time.RFC3339))
}

// Breaker is the circuit breaker of one upstream: closed, it opens after
// Failures consecutive failures, or when FailureRatio of a window's calls
// failed; open, it refuses calls until the
// cooldown ends; then it lets one probe through (half-open), and closes
// when the probe succeeds or opens again when it fails. A nil *Breaker
// never opens.
type Breaker struct {
	upstream string
	cfg      BreakerConfig
	now      func() time.Time
	mu       sync.Mutex
	state    State
	failures int       // consecutive
	winStart time.Time // the current window's start
	winCalls int
	winFails int
	until    time.Time
}

// NewBreaker returns the Breaker of upstream, nil when c disables it; now
// nil means time.Now.
func NewBreaker(upstream string, c BreakerConfig, now func() time.Time) *Breaker {
	if c.Failures <= 0 && c.FailureRatio <= 0 {
		return nil
	}
	if c.Window <= 0 {
		c.Window = time.Minute
	}
	if c.MinCalls <= 0 {
		c.MinCalls = 10
	}
	if c.Cooldown <= 0 {
		c.Cooldown = 30 * time.Second
	}
	if now == nil {
		now = time.Now
	}
	return &Breaker{upstream: upstream, cfg: c, now: now}
}

// Allow says whether a call may go to the upstream now: nil, after which
// the caller must report its outcome with Done, or an *UnavailableError.
func (b *Breaker) Allow() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Open:
		if b.now().Before(b.until) {
			return &UnavailableError{Upstream: b.upstream, Until: b.until}
		}
		// The probe has a cooldown to report; a probe that never
		// reports (its caller gave up) does not hold the breaker
		// half-open for ever: the next call after it becomes the probe.
		b.state, b.until = HalfOpen, b.now().Add(b.cfg.Cooldown)
		return nil
	case HalfOpen:
		if now := b.now(); !now.Before(b.until) {
			b.until = now.Add(b.cfg.Cooldown)
			return nil
		}
		return &UnavailableError{Upstream: b.upstream, Until: b.until}
	}
	return nil
}

// Done reports the outcome of a call Allow let through; failed means the
// upstream failed (not that the tool reported an error).
func (b *Breaker) Done(failed bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if now.Sub(b.winStart) >= b.cfg.Window {
		b.winStart, b.winCalls, b.winFails = now, 0, 0
	}
	b.winCalls++
	if !failed {
		b.state, b.failures = Closed, 0
		return
	}
	b.failures++
	b.winFails++
	consecutive := b.cfg.Failures > 0 && b.failures >= b.cfg.Failures
	ratio := b.cfg.FailureRatio > 0 && b.winCalls >= b.cfg.MinCalls &&
		float64(b.winFails) >= b.cfg.FailureRatio*float64(b.winCalls)
	if b.state == HalfOpen || consecutive || ratio {
		b.state, b.until = Open, now.Add(b.cfg.Cooldown)
		b.winStart, b.winCalls, b.winFails = now, 0, 0
	}
}

// State returns the breaker's state.
func (b *Breaker) State() State {
	if b == nil {
		return Closed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}
