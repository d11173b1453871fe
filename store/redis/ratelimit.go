package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/server"
)

// DefaultRateLimitPrefix starts every key of a RateLimitStore whose
// options give no Prefix.
const DefaultRateLimitPrefix = "mcpgen:rate:"

// DefaultRateLimitTimeout bounds one check when RateLimitOptions give no
// Timeout. A check is on the path of every limited tool call, so it gives
// up well before a client would.
const DefaultRateLimitTimeout = time.Second

// RateLimitOptions configure a RateLimitStore.
type RateLimitOptions struct {
	// Prefix starts every key; empty means DefaultRateLimitPrefix.
	// Servers whose stores share a prefix share their limits.
	Prefix string
	// Timeout bounds each check, on top of the call's context; zero or
	// less means DefaultRateLimitTimeout. The client gives up on the
	// check at that deadline when it dials or between its retries, and
	// within a read or write too when the client was built with
	// ContextTimeoutEnabled; otherwise its ReadTimeout and WriteTimeout
	// bound each attempt.
	Timeout time.Duration
}

// RateLimitStore is a server.RateLimitStore in Redis: the replicas of a
// server that share one (and its prefix) share their rate limits.
//
// Each check is one round trip, a Lua script that takes from both of the
// call's buckets or from neither. A bucket is kept in the form of the
// generic cell rate algorithm: one string key holding the theoretical
// arrival time, the moment the bucket would be full again, in
// microseconds by the Redis server's clock (TIME), so that the clocks of
// the replicas do not matter. A key expires when its bucket is full
// again, so idle callers cost nothing.
//
// When Redis cannot be reached Take returns the client's error and the
// Server refuses the call (see server.RateLimitStore).
type RateLimitStore struct {
	client goredis.UniversalClient
	opts   RateLimitOptions
}

var _ server.RateLimitStore = (*RateLimitStore)(nil)

// NewRateLimitStore returns a RateLimitStore that keeps its buckets
// through client. The caller owns client and closes it after the store's
// last use.
func NewRateLimitStore(client goredis.UniversalClient, opts RateLimitOptions) *RateLimitStore {
	if opts.Prefix == "" {
		opts.Prefix = DefaultRateLimitPrefix
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultRateLimitTimeout
	}
	return &RateLimitStore{client: client, opts: opts}
}

// takeScript: KEYS the buckets; ARGV for each key its emission interval
// (microseconds a token takes to refill) and burst. Replies {0, 0} when a
// token was taken from every bucket, or {wait, i}: the microseconds until
// all would hold one, rounded up, and the index of the bucket that needs
// the longest (the first of equals).
//
// A bucket with theoretical arrival time tat holds burst - (tat - now) /
// interval tokens (burst once tat has passed); taking one moves tat on by
// an interval. The script writes after reading TIME, which Redis allows
// as it replicates a script's effects, not the script.
var takeScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tats = {}
local wait, by = 0, 0
for i, key in ipairs(KEYS) do
  local interval, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  tat = tat + interval
  local w = tat - burst * interval - now
  if w > wait then wait, by = w, i end
  tats[i] = tat
end
if wait > 0 then return {math.ceil(wait), by} end
for i, key in ipairs(KEYS) do
  local ttl = math.max(1, math.ceil((tats[i] - now) / 1000))
  redis.call('SET', key, string.format('%.17g', tats[i]), 'PX', string.format('%.0f', ttl))
end
return {0, 0}
`)

// Take implements server.RateLimitStore.
func (s *RateLimitStore) Take(ctx context.Context, c server.RateCheck) (time.Duration, bool, error) {
	keys := make([]string, 0, 2)
	args := make([]any, 0, 4)
	caller := s.opts.Prefix + "{" + keyPart(c.Caller) + "}:"
	toolFirst := false
	if limits(c.ToolLimit) {
		keys = append(keys, caller+"t:"+keyPart(c.Tool))
		args = appendBucket(args, c.ToolLimit)
		toolFirst = true
	}
	if limits(c.CallLimit) {
		keys = append(keys, caller+"all")
		args = appendBucket(args, c.CallLimit)
	}
	if len(keys) == 0 {
		return 0, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	reply, err := takeScript.Run(ctx, s.client, keys, args...).Int64Slice()
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return 0, false, fmt.Errorf("rate limit of %s for %s: redis did not answer in time (RateLimitOptions.Timeout %v, or the call's deadline): %w", c.Tool, c.Caller, s.opts.Timeout, err)
	}
	if err != nil {
		return 0, false, fmt.Errorf("rate limit of %s for %s: redis: %w", c.Tool, c.Caller, err)
	}
	if len(reply) != 2 {
		return 0, false, fmt.Errorf("rate limit of %s for %s: malformed reply %v", c.Tool, c.Caller, reply)
	}
	if reply[0] <= 0 {
		return 0, false, nil
	}
	wait := time.Duration(reply[0]) * time.Microsecond
	if reply[0] > int64(time.Duration(1<<63-1)/time.Microsecond) {
		wait = time.Duration(1<<63 - 1)
	}
	return wait, toolFirst && reply[1] == 1, nil
}

// limits says whether l sets a limit: the Server sends the zero
// RateLimit for none.
func limits(l server.RateLimit) bool { return l.Rate > 0 }

// maxInterval caps the emission interval, in microseconds: about 31
// years a token, which is no refill at all, and keeps the script's
// arithmetic finite for a rate near zero.
const maxInterval = 1e15

// appendBucket appends a bucket's script arguments: its emission interval
// in microseconds and its burst, at least 1.
func appendBucket(args []any, l server.RateLimit) []any {
	interval := min(1e6/float64(l.Rate), maxInterval)
	return append(args, strconv.FormatFloat(interval, 'g', -1, 64), max(l.Burst, 1))
}

// keyPartMax is the longest caller or tool name kept as it is in a key.
const keyPartMax = 128

// keyPart is s as a part of a key: itself when it is short and made of
// letters, digits and _-.:/@=+ only, which keeps keys readable; otherwise
// "~" and a digest. No part kept as it is holds a brace, which would
// move the caller's hash tag, nor '~', so the two forms cannot meet.
func keyPart(s string) string {
	if len(s) <= keyPartMax && s != "" {
		plain := true
		for i := 0; i < len(s) && plain; i++ {
			switch b := s[i]; {
			case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
			case b == '_', b == '-', b == '.', b == ':', b == '/', b == '@', b == '=', b == '+':
			default:
				plain = false
			}
		}
		if plain {
			return s
		}
	}
	sum := sha256.Sum256([]byte(s))
	return "~" + hex.EncodeToString(sum[:16])
}
