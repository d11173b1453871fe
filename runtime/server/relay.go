package server

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/generated/mcp"
)

// Relaying: a handler that forwards its request to another MCP server (a
// gateway, a proxy) hands that server's answer on as it came, even when
// the answer is not of the handler's own result type: a task handle, or
// the questions of a round of input.

// relayed ends a request with a result of another type than the handler
// returns: turned back into the result by Server.dispatch, as
// inputRequired and taskCreated are.
type relayed struct {
	result mcp.Message
}

func (e *relayed) Error() string { return ErrRelayed.Error() }

// Is makes errors.Is(err, ErrRelayed) report a RelayResult.
func (e *relayed) Is(target error) bool { return target == ErrRelayed }

// ErrRelayed is what errors.Is finds in the error of RelayResult: for
// middleware and wrappers that tell a relayed answer from a failure.
var ErrRelayed = errors.New("server: the handler relays another server's result")

// RelayResult returns the error that ends the current tools/call,
// prompts/get or resources/read with msg as its result, whatever the
// handler's own result type is: for a handler that hands on the answer of
// another server, such as a 2026-07-28 task handle (an mcp.Result with
// resultType "task"). The handler must return the error as it is, not
// wrapped. The engine sends msg as it comes, completing only what it
// completes on every result of the request's era.
func RelayResult(msg mcp.Message) error {
	if msg == nil {
		return errors.New("server: RelayResult: nil result")
	}
	return &relayed{result: msg}
}

// RequireInput ends the current round of a 2026-07-28 request with the
// questions of reqs, under their keys as given and with no answer looked
// up: for a handler that relays the InputRequiredResult of another
// server, whose keys its client must answer. It may be called with
// SetRoundState, whose state comes back from RoundState on the client's
// retry, and whose answers the handler reads from its params'
// inputResponses. It returns ErrInputRequired, for the handler to return;
// outside a request that can have rounds, the error saying so.
func RequireInput(ctx context.Context, reqs mcp.InputRequests) error {
	r := requestOf(ctx)
	if r == nil {
		return ErrNoSession
	}
	if r.input == nil {
		return errNoRounds
	}
	rs := r.input
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.asked == nil {
		rs.asked = make(mcp.InputRequests, len(reqs))
	}
	for k, q := range reqs {
		rs.asked[k] = q
	}
	return ErrInputRequired
}

// CanRequireInput reports whether the request ctx serves can end a round
// with an InputRequiredResult: a 2026-07-28 tools/call, prompts/get or
// resources/read served synchronously, not as a task.
func CanRequireInput(ctx context.Context) bool {
	r := requestOf(ctx)
	return r != nil && r.input != nil && r.task == nil
}

// LogLevel returns the lowest level of the log messages the client of the
// current request hears: the level its legacy session set with
// logging/setLevel (debug until it does), or the logLevel in the _meta of
// a 2026-07-28 request. ok is false when the client hears none: a
// 2026-07-28 request that asked for none, or a ctx that serves no request.
func LogLevel(ctx context.Context) (level mcp.LoggingLevel, ok bool) {
	r := requestOf(ctx)
	if r == nil {
		return "", false
	}
	if r.session != nil {
		r.session.mu.Lock()
		i := r.session.minLevel
		r.session.mu.Unlock()
		return levels[i], true
	}
	if r.logLevel < 0 {
		return "", false
	}
	return levels[r.logLevel], true
}
