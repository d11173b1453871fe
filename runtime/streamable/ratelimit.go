package streamable

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/server"
)

// Rate limits on the endpoint.
//
// The engine refuses a tools/call beyond a rate limit (server.WithRateLimit,
// server.Options.ToolCallLimit) with the JSON-RPC error
// server.CodeRateLimited, whose data says in milliseconds when to come back.
// A 2026-07-28 request refused so is answered 429 Too Many Requests, with
// that error as its body and a Retry-After header giving the wait in whole
// seconds, rounded up, for HTTP clients and proxies that know nothing of
// JSON-RPC.
//
// A request of a legacy session gets the JSON-RPC error alone. Its answer
// shares the response with the other requests of its POST (a batch) or goes
// out on an SSE stream whose 200 may have been written already, so the
// HTTP status cannot speak for it.

// headerRetryAfter is the header of RFC 9110, section 10.2.3.
const headerRetryAfter = "Retry-After"

// setRetryAfter sets the Retry-After header of the response that answers
// err, when err is a rate limit's refusal.
func setRetryAfter(h http.Header, err error) {
	wait, ok := server.RetryAfter(err)
	if !ok {
		return
	}
	h.Set(headerRetryAfter, strconv.FormatInt(retryAfterSeconds(wait), 10))
}

// retryAfterSeconds is a wait in whole seconds, rounded up and at least
// one: a client that waits that long finds its token there.
func retryAfterSeconds(wait time.Duration) int64 {
	s := int64(wait / time.Second)
	if wait%time.Second != 0 {
		s++
	}
	return max(s, 1)
}
