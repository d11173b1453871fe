package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Rate limits of tool calls.
//
// The MCP tools page asks servers to rate-limit tool invocations. A Server
// does it with token buckets (golang.org/x/time/rate), one per caller and
// limit: Options.ToolCallLimit gives every caller one bucket for all its
// tools/call requests, and WithRateLimit gives every caller one bucket
// for one tool. A call takes a token from each bucket that applies, or,
// when one of them is empty, is refused before anything else happens to
// it: no argument is checked, no handler runs and no task is created. The
// refusal takes no token from any bucket. Only tools/call is limited, and
// only calls of registered tools: a call of an unknown tool is refused
// anyway, for less than the check would cost.
//
// Each tools/call request counts, in either era: the rounds of a
// 2026-07-28 call that asks for input are requests of their own and each
// runs the handler, so each takes a token.
//
// The caller is the principal the transport authenticated (see
// WithPrincipal), with the identity the engine binds state and tasks to:
// a string principal is itself, one with a String method what it says,
// anything else its Go syntax representation. A request with no principal
// is charged to its legacy session, so that the clients of a stdio server
// or of separate Streamable HTTP sessions do not slow each other down;
// 2026-07-28 requests with no principal, which belong to no session, all
// share one anonymous bucket, since nothing tells their clients apart
// (an address would name a proxy as often as a client). An anonymous
// client over HTTP that opens a new legacy session gets new buckets with
// it, so the limits hold a client to account only as far as its principal
// does: a server whose limits must bind authenticates its clients.
//
// The buckets are kept in a structure of bounded size
// (Options.MaxRateLimitKeys): a bucket that has refilled to its burst
// says nothing a new bucket would not, so such idle buckets are dropped
// as calls come to their part of the structure, with no goroutine to do
// it; and when the bound is reached the least recently used bucket is
// dropped even if it is not full, which hands its caller a full burst
// again. The bound should therefore be well above the number of callers
// active within the time a bucket takes to refill.

// CodeRateLimited is the JSON-RPC error code of a tools/call refused by a
// rate limit; its data is {"retryAfterMs":N}, the milliseconds after
// which the call would be accepted, and Streamable HTTP answers a
// 2026-07-28 request refused so with 429 Too Many Requests and a
// Retry-After header.
//
// The code lies outside -32768..-32000 on purpose. 2026-07-28 divides the
// server-error range of JSON-RPC: -32020 to -32099 is for codes the MCP
// specification defines (implementations must not send others, and the
// engine turns them into -32603), and -32000 to -32019 holds codes
// implementations allocated before that rule, where new codes must not be
// allocated. It asks for new codes outside the reserved range; -31429
// echoes HTTP's 429 and is used for nothing else in mcpgen.
const CodeRateLimited = -31429

// DefaultMaxRateLimitKeys is the bound on the token buckets a Server
// keeps when Options.MaxRateLimitKeys is zero. A bucket takes about 250
// bytes, so the buckets take at most about 4 MiB.
const DefaultMaxRateLimitKeys = 1 << 14

// RateLimit is a token bucket's settings: calls may come Burst at once,
// and Rate a second on average. Rate zero or negative, or rate.Inf, sets
// no limit.
type RateLimit struct {
	// Rate is the bucket's refill rate, in calls a second; rate.Every
	// converts an interval: rate.Every(2*time.Second) is one call every
	// two seconds.
	Rate rate.Limit
	// Burst is the bucket's size, the calls that may follow one another
	// without a pause. Below 1 it is 1.
	Burst int
}

func (l RateLimit) limits() bool { return l.Rate > 0 && l.Rate != rate.Inf }

// normal returns the settings with Burst at least 1, and the zero
// RateLimit for no limit.
func (l RateLimit) normal() RateLimit {
	if !l.limits() {
		return RateLimit{}
	}
	return RateLimit{Rate: l.Rate, Burst: max(l.Burst, 1)}
}

// WithRateLimit limits the calls of the tool each caller may make: burst
// at once, and r a second on average (rate.Every(time.Minute/30) is 30 a
// minute). Every caller has a bucket of its own for the tool; see
// Options.ToolCallLimit for the limit across tools, which applies as
// well. r must be positive (rate.Inf sets no limit) and burst at least 1:
// AddTool refuses the tool otherwise.
func WithRateLimit(r rate.Limit, burst int) ToolOption {
	return func(t *tool) { t.rateLimit = &RateLimit{Rate: r, Burst: burst} }
}

// checkRateLimit says what is wrong with the settings of WithRateLimit.
func (t *tool) checkRateLimit() error {
	switch l := t.rateLimit; {
	case l == nil:
	case l.Rate == rate.Inf:
		t.rateLimit = nil
	case l.Rate <= 0 || math.IsNaN(float64(l.Rate)):
		return fmt.Errorf("rate limit: the rate must be positive, not %v", float64(l.Rate))
	case l.Burst < 1:
		return fmt.Errorf("rate limit: the burst must be at least 1, not %d", l.Burst)
	}
	return nil
}

// RateLimitError is the error of a tools/call refused by a rate limit:
// a *jsonrpc.Error with the code CodeRateLimited underneath, which is
// what the client receives. Transports read RetryAfter from it
// (errors.As) to tell HTTP clients when to come back.
type RateLimitError struct {
	// Tool is the tool that was called.
	Tool string
	// RetryAfter is how long the caller must wait before the call would
	// be accepted, if nothing else takes the token first.
	RetryAfter time.Duration
	// PerTool says that the tool's own limit (WithRateLimit) refused the
	// call; otherwise the limit on all tool calls did
	// (Options.ToolCallLimit).
	PerTool bool
	rpc     *jsonrpc.Error
}

func newRateLimitError(tool string, wait time.Duration, perTool bool) *RateLimitError {
	e := &RateLimitError{Tool: tool, RetryAfter: wait, PerTool: perTool}
	ms := retryAfterMs(wait)
	what := "calls of tool " + strconv.Quote(tool)
	if !perTool {
		what = "tool calls (tool " + strconv.Quote(tool) + ")"
	}
	shown := time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
	e.rpc = jsonrpc.NewError(CodeRateLimited, "rate limit exceeded for "+what+": retry after "+shown.String())
	e.rpc.Data = strconv.AppendInt([]byte(`{"retryAfterMs":`), ms, 10)
	e.rpc.Data = append(e.rpc.Data, '}')
	return e
}

// retryAfterMs is a wait in whole milliseconds, rounded up: a client that
// waits that long finds the token there.
func retryAfterMs(wait time.Duration) int64 {
	ms := int64(wait / time.Millisecond)
	if wait%time.Millisecond != 0 {
		ms++
	}
	return ms
}

func (e *RateLimitError) Error() string { return e.rpc.Error() }

// Unwrap returns the JSON-RPC error the client receives.
func (e *RateLimitError) Unwrap() error { return e.rpc }

// RetryAfter returns how long the caller of a tools/call that err
// answered must wait, and whether err is such a refusal: a
// *RateLimitError, or the *jsonrpc.Error it sends, which middleware may
// have returned in its place.
func RetryAfter(err error) (time.Duration, bool) {
	if e, ok := errors.AsType[*RateLimitError](err); ok {
		return e.RetryAfter, true
	}
	e, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok || e.Code != CodeRateLimited {
		return 0, false
	}
	var data struct {
		RetryAfterMs int64 `json:"retryAfterMs"`
	}
	if json.Unmarshal(e.Data, &data) != nil || data.RetryAfterMs <= 0 {
		return 0, false
	}
	return time.Duration(min(data.RetryAfterMs, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond, true
}

// limitCall takes a token for a call of t from each of the caller's
// buckets that applies, or returns the *RateLimitError that refuses the
// call, or an error saying that the rate limit store could not be asked.
func (s *Server) limitCall(ctx context.Context, r *request, t *tool) error {
	perTool := t.rateLimit
	all := s.opts.ToolCallLimit.normal()
	if perTool == nil && !all.limits() {
		return nil
	}
	var toolLimit RateLimit
	if perTool != nil {
		toolLimit = *perTool
	}
	if s.opts.RateLimitStore != nil {
		return s.limitCallStored(ctx, r, t, toolLimit, all)
	}
	kind, id := callerKey(r)
	var toolKey bucketKey
	if perTool != nil {
		toolKey = bucketKey{tool: t.def.Name, kind: kind, id: id}
	}
	wait, byTool := s.rates.take(s.rates.now(), toolKey, toolLimit, bucketKey{kind: kind, id: id}, all)
	if wait > 0 {
		return newRateLimitError(t.def.Name, wait, byTool)
	}
	return nil
}

// The kinds of caller a bucket belongs to, so that no two kinds share a
// key: a string principal "x" and a principal whose String method says
// "x" are different callers, as they are to principalDigest.
const (
	callerAnonymous uint8 = iota // one bucket for everyone with neither
	callerSession                // id: the legacy session's random owner name
	callerString                 // id: the string principal itself
	callerStringer               // id: what the principal's String method says
	callerDigest                 // id: principalDigest of the principal
	callerNamed                  // id: a RateCheck.Caller (MemoryRateLimitStore)
)

// keyInline is the longest principal kept as it is in a bucket's key;
// longer ones are kept as their digest, so that the bound on keys bounds
// memory too.
const keyInline = 64

// callerKey names the caller of a request as its buckets are keyed. For
// the principals transports usually set (a short string, a value with a
// String method that returns a stored name) it costs no allocation.
func callerKey(r *request) (uint8, string) {
	switch p := r.principal.(type) {
	case nil:
		if r.session != nil {
			return callerSession, r.session.taskOwner
		}
		return callerAnonymous, ""
	case string:
		if len(p) <= keyInline {
			return callerString, p
		}
	case fmt.Stringer:
		if s := p.String(); len(s) <= keyInline {
			return callerStringer, s
		}
	}
	return callerDigest, principalDigest(r.principal)
}

// bucketKey names a bucket: a caller's bucket for one tool, or, with no
// tool, for all of its tool calls (a tool always has a name).
type bucketKey struct {
	tool string
	kind uint8
	id   string
}

// bucket is one caller's token bucket for one limit, and its place in
// its shard's list of buckets from the most to the least recently used.
type bucket struct {
	key        bucketKey
	lim        *rate.Limiter
	limit      RateLimit // what lim was set to
	prev, next *bucket
}

// rateShards is how many parts the buckets are divided into, each with a
// lock of its own, so that concurrent calls seldom wait for each other.
const rateShards = 16

// rateLimits holds the token buckets of a Server's callers. It is safe
// for concurrent use. Every bucket is read and changed with its shard's
// lock held, which makes a check and its take one step.
type rateLimits struct {
	seed   maphash.Seed
	shards []rateShard
	// now is the clock; tests set their own.
	now func() time.Time
}

type rateShard struct {
	mu         sync.Mutex
	buckets    map[bucketKey]*bucket
	head, tail *bucket // the most and the least recently used
	max        int
}

// newRateLimits returns buckets bounded to maxKeys in all (zero means
// DefaultMaxRateLimitKeys); below 32 the bound is 32, two a shard, since
// one call may need two buckets of one shard.
func newRateLimits(maxKeys int) *rateLimits {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxRateLimitKeys
	}
	maxKeys = max(maxKeys, 2*rateShards)
	rl := &rateLimits{seed: maphash.MakeSeed(), shards: make([]rateShard, rateShards), now: time.Now}
	for i := range rl.shards {
		rl.shards[i].max = maxKeys / rateShards
		if i < maxKeys%rateShards {
			rl.shards[i].max++
		}
	}
	return rl
}

func (rl *rateLimits) shard(k bucketKey) int {
	var h maphash.Hash
	h.SetSeed(rl.seed)
	h.WriteString(k.tool)
	h.WriteByte(k.kind)
	h.WriteString(k.id)
	return int(h.Sum64() % rateShards)
}

// take takes a token at now from the bucket of key a under limit la and
// from that of b under lb, a zero limit meaning no bucket. When either
// bucket has less than a token it takes none and returns the longer wait
// until both would have one, and whether that wait is a's.
func (rl *rateLimits) take(now time.Time, a bucketKey, la RateLimit, b bucketKey, lb RateLimit) (wait time.Duration, isA bool) {
	// Both shards are locked, the lower first, so that the two buckets
	// are checked and taken from in one step.
	ia, ib := -1, -1
	if la.limits() {
		ia = rl.shard(a)
	}
	if lb.limits() {
		ib = rl.shard(b)
	}
	lo, hi := min(ia, ib), max(ia, ib)
	if lo < 0 || lo == hi {
		lo = -1
	}
	if lo >= 0 {
		rl.shards[lo].mu.Lock()
		defer rl.shards[lo].mu.Unlock()
	}
	if hi >= 0 {
		rl.shards[hi].mu.Lock()
		defer rl.shards[hi].mu.Unlock()
	}
	var ba, bb *bucket
	var waitA, waitB time.Duration
	if ia >= 0 {
		ba = rl.shards[ia].get(now, a, la)
		waitA = ba.wait(now)
	}
	if ib >= 0 {
		bb = rl.shards[ib].get(now, b, lb)
		waitB = bb.wait(now)
	}
	if lo >= 0 {
		rl.shards[lo].dropIdle(now, ba, bb)
	}
	if hi >= 0 {
		rl.shards[hi].dropIdle(now, ba, bb)
	}
	if waitA > 0 || waitB > 0 {
		return max(waitA, waitB), waitA >= waitB
	}
	if ba != nil {
		ba.lim.AllowN(now, 1)
	}
	if bb != nil {
		bb.lim.AllowN(now, 1)
	}
	return 0, false
}

// wait is how long from now until the bucket holds a token; zero when it
// holds one.
func (b *bucket) wait(now time.Time) time.Duration {
	missing := 1 - b.lim.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	d := math.Ceil(missing / float64(b.limit.Rate) * float64(time.Second))
	if d >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return max(time.Duration(d), 1)
}

// get returns the bucket of key, made full when there was none, as the
// most recently used. Its shard is locked.
func (sh *rateShard) get(now time.Time, key bucketKey, limit RateLimit) *bucket {
	b := sh.buckets[key]
	if b == nil {
		if sh.buckets == nil {
			sh.buckets = make(map[bucketKey]*bucket)
		}
		if len(sh.buckets) >= sh.max {
			sh.remove(sh.tail)
		}
		b = &bucket{key: key, lim: rate.NewLimiter(limit.Rate, limit.Burst), limit: limit}
		sh.buckets[key] = b
		sh.pushFront(b)
		return b
	}
	if b.limit != limit {
		// The tool was registered again with other settings.
		b.lim.SetLimitAt(now, limit.Rate)
		b.lim.SetBurstAt(now, limit.Burst)
		b.limit = limit
	}
	if sh.head != b {
		sh.unlink(b)
		sh.pushFront(b)
	}
	return b
}

// dropIdle drops the least recently used buckets if they have refilled:
// a full bucket is what a new one would be. Two at most, so that the cost
// of a call stays constant while idle buckets still go faster than a call
// can make new ones; never the buckets the call uses (in use), which it
// would only have to make again. The shard is locked.
func (sh *rateShard) dropIdle(now time.Time, inUse ...*bucket) {
	for range 2 {
		b := sh.tail
		if b == nil || slices.Contains(inUse, b) || b.lim.TokensAt(now) < float64(b.limit.Burst) {
			return
		}
		sh.remove(b)
	}
}

func (sh *rateShard) remove(b *bucket) {
	delete(sh.buckets, b.key)
	sh.unlink(b)
}

func (sh *rateShard) unlink(b *bucket) {
	if b.prev != nil {
		b.prev.next = b.next
	} else {
		sh.head = b.next
	}
	if b.next != nil {
		b.next.prev = b.prev
	} else {
		sh.tail = b.prev
	}
	b.prev, b.next = nil, nil
}

func (sh *rateShard) pushFront(b *bucket) {
	b.next = sh.head
	if sh.head != nil {
		sh.head.prev = b
	}
	sh.head = b
	if sh.tail == nil {
		sh.tail = b
	}
}

// len returns how many buckets the limits hold.
func (rl *rateLimits) len() int {
	n := 0
	for i := range rl.shards {
		rl.shards[i].mu.Lock()
		n += len(rl.shards[i].buckets)
		rl.shards[i].mu.Unlock()
	}
	return n
}
