package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// ErrNoSession is returned by the helpers below when ctx does not belong
// to a request a Server is handling.
var ErrNoSession = errors.New("server: ctx does not belong to a request of an MCP session")

// ErrNotInitialized is returned when a helper would send the client of a
// legacy session a request before it said it is initialized.
var ErrNotInitialized = errors.New("server: the client has not finished initializing")

// CapabilityError is returned when the client did not declare the
// capability a helper needs. Returned by a tool handler, it becomes an
// isError result in legacy sessions and the MissingRequiredClientCapability
// error (-32021) in 2026-07-28, as that version requires.
type CapabilityError struct {
	Capability string
}

func (e *CapabilityError) Error() string {
	return "server: the client does not support " + e.Capability
}

// SessionFrom returns the legacy session that the request ctx belongs to,
// or nil: a 2026-07-28 request belongs to no session.
func SessionFrom(ctx context.Context) *Session {
	if r := requestOf(ctx); r != nil {
		return r.session
	}
	return nil
}

// Progress reports progress on the current request, when the client asked
// for it with a progress token; otherwise it does nothing. total and
// message are left out when zero.
func Progress(ctx context.Context, progress, total float64, message string) error {
	r := requestOf(ctx)
	if r == nil {
		return ErrNoSession
	}
	if r.progressToken == nil {
		return nil
	}
	p := make([]byte, 0, 96)
	p = append(p, `{"progressToken":`...)
	p = append(p, r.progressToken...)
	p = append(p, `,"progress":`...)
	var err error
	if p, err = jsonrpc.AppendFloatChecked(p, progress); err != nil {
		return err
	}
	if total != 0 {
		p = append(p, `,"total":`...)
		if p, err = jsonrpc.AppendFloatChecked(p, total); err != nil {
			return err
		}
	}
	if message != "" {
		p = append(p, `,"message":`...)
		p = jsonrpc.AppendString(p, message)
	}
	p = append(p, '}')
	return r.notify(ctx, mcp.MethodProgressNotification, p)
}

// Log sends a log message to the client of the current request, when the
// client asked for messages of that level: with logging/setLevel in a
// legacy session, with _meta's logLevel on each 2026-07-28 request (which
// hears none without it). data is encoded as JSON.
func Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	r := requestOf(ctx)
	if r == nil {
		return ErrNoSession
	}
	if r.session != nil {
		return r.session.Log(ctx, level, logger, data)
	}
	idx := levelIndex(level)
	if idx < 0 {
		return errors.New("server: unknown logging level " + string(level))
	}
	if r.logLevel < 0 || idx < r.logLevel {
		return nil
	}
	params, err := logParams(level, logger, data)
	if err != nil {
		return err
	}
	return r.notify(ctx, mcp.MethodLoggingMessageNotification, params)
}

func logParams(level mcp.LoggingLevel, logger string, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return (&mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: raw}).MarshalJSON()
}

// Elicit asks the user, through the client, for input. In a legacy
// session it sends elicitation/create and waits for the answer; in
// 2026-07-28 it returns the answer the client gave with its retry, or
// ErrInputRequired (see the replay rule in the package documentation of
// multi round-trip requests, mrtr.go, and InputKey).
func Elicit(ctx context.Context, params *mcp.ElicitRequestParams, opts ...InputOption) (*mcp.ElicitResult, error) {
	return ask(ctx, "elicitation", func(c *mcp.ClientCapabilities) bool { return c.Elicitation != nil },
		func() mcp.InputRequestVariant { return &mcp.ElicitRequest{Params: *params} },
		func(api *mcp.ClientAPI) (*mcp.ElicitResult, error) { return api.Elicit(ctx, params) },
		opts)
}

// CreateMessage asks the client to sample its language model, in either
// era as Elicit does.
func CreateMessage(ctx context.Context, params *mcp.CreateMessageRequestParams, opts ...InputOption) (*mcp.CreateMessageResult, error) {
	return ask(ctx, "sampling", func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil },
		func() mcp.InputRequestVariant { return &mcp.CreateMessageRequest{Params: *params} },
		func(api *mcp.ClientAPI) (*mcp.CreateMessageResult, error) { return api.CreateMessage(ctx, params) },
		opts)
}

// ListRoots asks the client for its roots, in either era as Elicit does.
func ListRoots(ctx context.Context, opts ...InputOption) (*mcp.ListRootsResult, error) {
	return ask(ctx, "roots", func(c *mcp.ClientCapabilities) bool { return c.Roots != nil },
		func() mcp.InputRequestVariant { return &mcp.ListRootsRequest{Params: &mcp.ListRootsRequestParams{}} },
		func(api *mcp.ClientAPI) (*mcp.ListRootsResult, error) { return api.ListRoots(ctx, nil) },
		opts)
}

// answer is implemented by the results a client answers questions with.
type answer[R any] interface {
	*R
	UnmarshalJSON([]byte) error
	ValidateVersion(mcp.ProtocolVersion) error
}

// ask is the one path of Elicit, CreateMessage and ListRoots: the
// capability check, then a request to the client of a legacy session, or
// a question of the current round in 2026-07-28.
func ask[R any, PR answer[R]](ctx context.Context, capability string, has func(*mcp.ClientCapabilities) bool,
	question func() mcp.InputRequestVariant, call func(*mcp.ClientAPI) (PR, error), opts []InputOption) (PR, error) {
	r := requestOf(ctx)
	if r == nil {
		return nil, ErrNoSession
	}
	if r.session != nil {
		if r.session.state.Load() != stateInitialized {
			return nil, ErrNotInitialized
		}
	}
	if !has(r.capabilities()) {
		return nil, &CapabilityError{Capability: capability}
	}
	if r.session != nil {
		return call(&mcp.ClientAPI{Caller: r.session.conn})
	}
	if r.task != nil {
		return askTask[R, PR](ctx, r.task, r, capability, question, opts)
	}
	if r.input == nil {
		return nil, errNoRounds
	}
	q := question()
	key, raw, err := r.input.exchange(capability, q, opts)
	if err != nil {
		return nil, err
	}
	res := PR(new(R))
	if err := res.UnmarshalJSON(raw); err != nil || res.ValidateVersion(r.version) != nil {
		// The client answered with something this question does not
		// take: ask it again rather than fail the call.
		r.input.reask(key, q)
		return nil, ErrInputRequired
	}
	return res, nil
}
