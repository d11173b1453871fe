package streamable

import (
	"net/http"
	"reflect"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Defaults for the session caps of HandlerOptions and LegacyOptions left
// zero. Each session costs a goroutine, its records and up to
// DefaultEventBytes of stored events; the defaults keep a server that
// clients open sessions on and never close within a few hundred MB, and
// leave one identity room for many tabs, agents and retries without
// letting it take the server's whole budget.
const (
	DefaultMaxSessions            = 10000
	DefaultMaxSessionsPerIdentity = 64
)

// quota counts a handler's sessions against its caps, in total and per
// identity. It is guarded by the handler's mutex.
//
// Both counts are the process's own, also when replicas share their
// session records (HandlerOptions.Sessions): each replica holds an
// identity to MaxSessionsPerIdentity of the sessions it serves. The
// total cap bounds what one process holds in memory, which only that
// process can count. The per-identity cap is a policy that could be
// counted across replicas, but such a count is taken and given under the
// handler's mutex, where a round trip must not wait, and needs a lease
// each session renews so that a replica that dies does not leave its
// sessions counted; it is left to a later change.
type quota struct {
	max, perIdentity int // negative: no cap
	total            int
	by               map[any]int // sessions per identity, for identities that can be map keys
	peak             int         // the most identities by held, for deleteShrink
}

func newQuota(max, perIdentity int) quota {
	if max == 0 {
		max = DefaultMaxSessions
	}
	if perIdentity == 0 {
		perIdentity = DefaultMaxSessionsPerIdentity
	}
	return quota{max: max, perIdentity: perIdentity, by: make(map[any]int)}
}

// capError refuses a session over a cap.
type capError struct {
	status int
	msg    string
}

func (e *capError) Error() string { return e.msg }

// write answers the request that would have started the session: with
// the error of id when the client sent a request, as initialize is.
func (e *capError) write(w http.ResponseWriter, id jsonrpc.ID) {
	code := int64(jsonrpc.CodeInvalidRequest)
	if e.status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	writeJSON(w, e.status, jsonrpc.AppendError(nil, id, jsonrpc.NewError(code, e.msg)))
}

// take counts a new session of identity, or refuses it, naming the
// options type opts that sets the cap. Over the total
// cap the answer is 503: the server is full, which passes as sessions
// end, and clients and proxies retry a 503 later. Over the identity's cap
// it is 429: this client holds too many, and it is the one that can end
// some.
func (q *quota) take(identity any, opts string) *capError {
	if q.max > 0 && q.total >= q.max {
		return &capError{http.StatusServiceUnavailable, "the server holds " + strconv.Itoa(q.max) +
			" sessions, the limit set by streamable." + opts + ".MaxSessions: try again once some have ended"}
	}
	key, keyed := identityKey(identity)
	if keyed && q.perIdentity > 0 && q.by[key] >= q.perIdentity {
		return &capError{http.StatusTooManyRequests, "this identity holds " + strconv.Itoa(q.perIdentity) +
			" sessions, the limit set by streamable." + opts + ".MaxSessionsPerIdentity: end the sessions it no longer uses"}
	}
	q.total++
	if keyed {
		q.by[key]++
	}
	return nil
}

// give uncounts a session that take counted.
func (q *quota) give(identity any) {
	q.total--
	if key, ok := identityKey(identity); ok {
		if q.by[key] <= 1 {
			q.by = deleteShrink(q.by, key, &q.peak)
		} else {
			q.by[key]--
		}
	}
}

// identityKey returns the map key sessions of identity are counted under:
// the identity itself, when there is one and == can compare it.
// Identities that cannot be keys (a struct holding a slice, say) count
// only toward the total.
func identityKey(identity any) (any, bool) {
	if identity == nil || !reflect.ValueOf(identity).Comparable() {
		return nil, false
	}
	return identity, true
}
