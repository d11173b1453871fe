package server

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Rate limits shared by replicas.
//
// The token buckets of a Server live in its process: replicas behind one
// endpoint each keep their own, so that a limit of 10 calls a second
// admits 30 with three of them. Options.RateLimitStore moves the buckets
// out of the process, into a store every replica asks (store/redis has
// one in Redis). Without it nothing changes: the buckets stay in memory
// and a check costs no round trip.
//
// A store is asked once for each tools/call the limits apply to, with
// both of the call's buckets (WithRateLimit's and Options.ToolCallLimit's)
// in one RateCheck, so that it can take from both or from neither in one
// step, as the buckets in memory do.
//
// When the store fails (it cannot be reached, or the call's context ends
// first) the call is refused: a limit that let calls through whenever its
// store was down would not bind at the moment it matters most, when
// something is wrong. The client gets a -32603 internal error saying the
// rate limit store is unreachable, with no detail of the store, and the
// Server's Logger gets the store's error. How long a call waits for the
// store is the store's affair, bounded by the call's context; the Redis
// store bounds it with a timeout of its own.

// RateLimitStore keeps the token buckets of the rate limits (WithRateLimit,
// Options.ToolCallLimit) where every replica of a server sees them. Its
// methods are called concurrently, from the handlers of tools/call.
type RateLimitStore interface {
	// Take takes one token from each bucket c names, in one step: from
	// the caller's bucket for c.Tool under c.ToolLimit and from its bucket
	// of all tool calls under c.CallLimit, a zero RateLimit meaning no
	// bucket. When either holds less than a token it takes from neither
	// and returns how long until both would hold one (at least a
	// nanosecond), and whether the tool's bucket is the one that needs
	// the longest (on a tie it is). wait is zero when the tokens were
	// taken. A bucket never used is full. A non-nil error means the store
	// could not answer, and the call is refused.
	Take(ctx context.Context, c RateCheck) (wait time.Duration, perTool bool, err error)
}

// RateCheck is what a RateLimitStore is asked for one tools/call. At
// least one of its limits is set, and a limit that is set has a finite
// positive Rate and a Burst of at least 1.
type RateCheck struct {
	// Caller names who is charged, as the buckets in memory key it (see
	// ratelimit.go): "a" for the anonymous 2026-07-28 requests, "l:"
	// and the legacy session's owner name for a legacy session with no
	// principal, "s:" and a string principal, "t:" and what a principal's
	// String method says, "d:" and a digest of any other principal or of
	// a long one. It is never empty and at most 66 bytes long; a
	// principal may hold any byte.
	Caller string
	// Tool is the name of the tool called.
	Tool string
	// ToolLimit is the tool's limit (WithRateLimit); zero for none.
	ToolLimit RateLimit
	// CallLimit is the limit on all of the caller's tool calls
	// (Options.ToolCallLimit); zero for none.
	CallLimit RateLimit
}

// callerName is the RateCheck.Caller of a caller key.
func callerName(kind uint8, id string) string {
	switch kind {
	case callerSession:
		return "l:" + id
	case callerString:
		return "s:" + id
	case callerStringer:
		return "t:" + id
	case callerDigest:
		return "d:" + id
	}
	return "a"
}

// errRateLimitStore answers a tools/call whose rate limits could not be
// checked.
func errRateLimitStore(tool string) *jsonrpc.Error {
	return jsonrpc.ErrInternal("internal error: the rate limit store is unreachable, so the call of tool " +
		strconv.Quote(tool) + " was refused; retry later")
}

// limitCallStored is limitCall for a Server with a RateLimitStore.
func (s *Server) limitCallStored(ctx context.Context, r *request, t *tool, toolLimit, callLimit RateLimit) error {
	kind, id := callerKey(r)
	wait, perTool, err := s.opts.RateLimitStore.Take(ctx, RateCheck{
		Caller: callerName(kind, id), Tool: t.def.Name, ToolLimit: toolLimit, CallLimit: callLimit,
	})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("rate limit store failed: tool call refused", slog.String("tool", t.def.Name), slog.Any("error", err))
		}
		return errRateLimitStore(t.def.Name)
	}
	if wait > 0 {
		return newRateLimitError(t.def.Name, wait, perTool)
	}
	return nil
}

// MemoryRateLimitStore is a RateLimitStore in the memory of one process,
// with the token buckets a Server keeps when Options.RateLimitStore is
// nil (and bounded the same way). Servers in one process that share one
// share their limits; it serves tests and gives a measure to compare
// other stores with. A Server without a store uses its buckets directly,
// without building RateCheck.Caller.
type MemoryRateLimitStore struct {
	rates *rateLimits
}

var _ RateLimitStore = (*MemoryRateLimitStore)(nil)

// NewMemoryRateLimitStore returns a store of at most maxKeys buckets, as
// Options.MaxRateLimitKeys bounds a Server's.
func NewMemoryRateLimitStore(maxKeys int) *MemoryRateLimitStore {
	return &MemoryRateLimitStore{rates: newRateLimits(maxKeys)}
}

// Take implements RateLimitStore. It never fails.
func (m *MemoryRateLimitStore) Take(_ context.Context, c RateCheck) (time.Duration, bool, error) {
	caller := bucketKey{kind: callerNamed, id: c.Caller}
	tool := caller
	tool.tool = c.Tool
	wait, perTool := m.rates.take(m.rates.now(), tool, c.ToolLimit.normal(), caller, c.CallLimit.normal())
	return wait, perTool, nil
}
