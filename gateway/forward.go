package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The forwards: one request to the upstream that owns what it names, on
// the upstream's session, with the downstream call tracked so that what
// the upstream sends about it (progress, log messages, requests for
// input) reaches the right client.
//
// What crosses, by the eras of the two ends:
//
//   - a round of input: a 2026-07-28 upstream's InputRequiredResult goes
//     to a 2026-07-28 client as it came (its keys, all its questions at
//     once), with its requestState sealed inside the gateway's own, so
//     that the retry is checked here and the upstream gets its state
//     back; a legacy client is asked each question with a request of its
//     session instead. A legacy upstream's request goes to a legacy
//     client as it is, and to a 2026-07-28 client as a round of input
//     while the upstream's call waits (bridge.go).
//   - progress: the client's progressToken is replaced by one of the
//     gateway's, whose notifications go back under the client's token.
//   - log messages: the upstream is asked for the level the client hears
//     (per request in 2026-07-28; debug for a legacy session, filtered
//     downstream), and a message goes to the one call in flight that hears
//     log messages.
//   - tasks: a 2026-07-28 client's call of a tool that runs as a task on
//     a 2026-07-28 upstream is the upstream's task, whose tasks/* requests
//     go back to it (tasks.go); any other task runs here, its handler
//     waiting for the upstream's call.
//   - cancellation: the downstream request's ctx bounds the upstream's,
//     whose end the client tells the upstream.

// answered reports whether a forward's error is an answer of another
// kind rather than a failure: a round of input handed on to the client
// (server.ErrInputRequired), or the upstream's task handle
// (server.ErrRelayed). Observation and governance count neither as an
// error.
func answered(err error) bool {
	return errors.Is(err, server.ErrInputRequired) || errors.Is(err, server.ErrRelayed)
}

// upcall is what the forwards share: the upstream request's _meta, the
// tracking of the downstream call, and how rounds of input cross.
type upcall struct {
	u *upstream
	s *client.Session
	// relay says the upstream's rounds of input go to the downstream
	// client as they came: both ends speak 2026-07-28 and the downstream
	// request can end a round.
	relay bool
	// wants says the downstream client hears log messages or progress,
	// which the upstream may send ahead of its result.
	wants bool
	t     *tracked
	done  func()
}

// begin prepares a forward for the downstream request ctx serves, whose
// _meta is down: it returns the ctx of the upstream request and its
// _meta. bridge is the call's parked state when it crosses the era bridge
// for questions (bridge.go), else nil.
func (u *upstream) begin(ctx context.Context, down *mcp.RequestMetaObject, bridge *parked) (context.Context, *upcall, *mcp.RequestMetaObject, error) {
	s, err := u.session()
	if err != nil {
		return nil, nil, nil, err
	}
	c := &upcall{u: u, s: s}
	meta := upstreamMeta(ctx)
	level, listens := server.LogLevel(ctx)
	tok := ""
	if down != nil && !down.ProgressToken.IsZero() {
		tok = "gw-" + strconv.FormatInt(u.tokens.Add(1), 10)
	}
	modern := s.Era() == mcp.EraModern
	if tok != "" || (listens && modern) {
		m := mcp.RequestMetaObject{}
		if meta != nil {
			m = *meta
		}
		if tok != "" {
			m.ProgressToken = mcp.ProgressTokenFromString(tok)
		}
		if listens && modern {
			m.LogLevel = level
		}
		meta = &m
	}
	c.wants = listens || tok != ""
	c.relay = modern && server.CanRequireInput(ctx)
	ctx, c.t, c.done = u.track(ctx, listens, tok, bridge)
	if modern {
		// The upstream may ask for what the downstream client handles, no
		// more: the gateway hands every question on.
		ctx = client.WithCapabilities(ctx, server.ClientCapabilitiesJSON(ctx))
	}
	if c.relay {
		ctx = client.ManualInput(ctx)
	}
	return ctx, c, meta, nil
}

// end runs once the upstream has answered: the callbacks of what the
// upstream sent ahead of its answer run first, so that its progress and
// log messages reach the client ahead of the result.
func (c *upcall) end(ctx context.Context) {
	if c.wants {
		_ = c.s.Flush(ctx)
	}
	c.done()
}

// state returns the requestState to send the upstream: the one the
// gateway's own requestState carries on a relayed round's retry, else
// none, as the downstream client's is the gateway's own.
func (c *upcall) state(ctx context.Context) string {
	if !c.relay {
		return ""
	}
	return string(server.RoundState(ctx))
}

// answers returns the inputResponses to send the upstream: the
// downstream client's on a relayed round's retry, but for the answer to
// the gateway's own question (govern_approval.go), else none.
func (c *upcall) answers(r mcp.InputResponses) mcp.InputResponses {
	if !c.relay {
		return nil
	}
	if _, ok := r[approvalKey]; ok {
		r = maps.Clone(r)
		delete(r, approvalKey)
	}
	return r
}

// failed turns the upstream's error into the downstream's: a round of
// input relayed, or the error wrapped with where it came from.
func (c *upcall) failed(ctx context.Context, method, name string, err error) error {
	if ir, ok := errors.AsType[*client.InputRequiredError](err); ok && c.relay {
		if err := server.SetRoundState(ctx, []byte(ir.Result.RequestState)); err != nil {
			return err
		}
		return server.RequireInput(ctx, ir.Result.InputRequests)
	}
	if errors.Is(err, server.ErrInputRequired) {
		return err // a question of the bridge (bridge.go), ending the round
	}
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
		if e.Code != jsonrpc.CodeInternalError {
			return e // the upstream's protocol error is the client's, as it came
		}
		// An internal error, the upstream's or the transport's on the way
		// back: the client learns which upstream failed, under the same code.
		named := *e
		named.Message = "upstream " + c.u.cfg.Name + ": " + e.Message
		return &named
	}
	return fmt.Errorf("upstream %s: %s %s: %w", c.u.cfg.Name, method, name, err)
}

func (u *upstream) callTool(ctx context.Context, name string, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if u.runsHere(ctx, p) {
		// A task the gateway runs itself: the call goes on as the task.
		_ = server.StartTask(ctx)
	}
	if u.bridges(ctx) {
		return bridge(ctx, u, p.Meta, p.InputResponses, "tools/call", name, func(uctx context.Context, c *upcall, meta *mcp.RequestMetaObject) (*mcp.CallToolResult, error) {
			q := *p
			q.Name, q.Meta, q.Task, q.RequestState, q.InputResponses = name, meta, nil, "", nil
			return c.s.CallTool(uctx, &q)
		})
	}
	uctx, c, meta, err := u.begin(ctx, p.Meta, nil)
	if err != nil {
		return nil, err
	}
	defer c.end(ctx)
	q := *p
	q.Name, q.Meta, q.Task = name, meta, nil
	q.RequestState, q.InputResponses = c.state(ctx), c.answers(p.InputResponses)
	if c.relay && declaresTasks(p.Meta) {
		return u.callAsTask(ctx, uctx, c, &q)
	}
	if server.TaskID(ctx) != "" && c.s.Era() == mcp.EraModern {
		return u.followTask(uctx, c, &q)
	}
	r, err := c.s.CallTool(uctx, &q)
	if err != nil {
		return nil, c.failed(ctx, "tools/call", name, err)
	}
	return r, nil
}

func (u *upstream) getPrompt(ctx context.Context, name string, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	return forwardRounds(ctx, u, p.Meta, p.InputResponses, "prompts/get", name, func(uctx context.Context, c *upcall, meta *mcp.RequestMetaObject, state string, answers mcp.InputResponses) (*mcp.GetPromptResult, error) {
		q := *p
		q.Name, q.Meta, q.RequestState, q.InputResponses = name, meta, state, answers
		return c.s.GetPrompt(uctx, &q)
	})
}

func (u *upstream) readResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return forwardRounds(ctx, u, p.Meta, p.InputResponses, "resources/read", p.URI, func(uctx context.Context, c *upcall, meta *mcp.RequestMetaObject, state string, answers mcp.InputResponses) (*mcp.ReadResourceResult, error) {
		q := *p
		q.Meta, q.RequestState, q.InputResponses = meta, state, answers
		return c.s.ReadResource(uctx, &q)
	})
}

// forwardRounds forwards a request that may take rounds of input: across
// the era bridge (bridge.go) when the call needs it, else with the
// requestState and inputResponses of a relayed round's retry. send sends
// it to the upstream with the _meta, state and answers given; down and
// responses are the downstream request's _meta and inputResponses.
func forwardRounds[R any](ctx context.Context, u *upstream, down *mcp.RequestMetaObject, responses mcp.InputResponses, method, name string,
	send func(uctx context.Context, c *upcall, meta *mcp.RequestMetaObject, state string, answers mcp.InputResponses) (R, error)) (R, error) {
	var zero R
	if u.bridges(ctx) {
		return bridge(ctx, u, down, responses, method, name, func(uctx context.Context, c *upcall, meta *mcp.RequestMetaObject) (R, error) {
			return send(uctx, c, meta, "", nil)
		})
	}
	uctx, c, meta, err := u.begin(ctx, down, nil)
	if err != nil {
		return zero, err
	}
	defer c.end(ctx)
	r, err := send(uctx, c, meta, c.state(ctx), c.answers(responses))
	if err != nil {
		return zero, c.failed(ctx, method, name, err)
	}
	return r, nil
}

func (u *upstream) complete(ctx context.Context, name string, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	uctx, c, meta, err := u.begin(ctx, p.Meta, nil)
	if err != nil {
		return nil, err
	}
	defer c.end(ctx)
	q := *p
	q.Meta = meta
	r, err := c.s.Complete(uctx, &q)
	if err != nil {
		return nil, c.failed(ctx, "completion/complete", name, err)
	}
	return r, nil
}

// hearLogs asks a legacy upstream that offers logging for every message:
// its level is the session's, for every downstream client at once, which
// Log filters by each client's own level. A 2026-07-28 upstream is asked
// per request instead.
func (u *upstream) hearLogs(ctx context.Context, s *client.Session) error {
	if s.Era() == mcp.EraModern {
		return nil
	}
	if caps := s.ServerCapabilities(); caps == nil || len(caps.Logging) == 0 {
		return nil
	}
	if _, err := s.SetLevel(ctx, &mcp.SetLevelRequestParams{Level: mcp.LoggingLevelDebug}); err != nil {
		return fmt.Errorf("logging/setLevel: %w", err)
	}
	return nil
}

// own makes an upstream's result the gateway's: the upstream's identity
// in _meta and its resultType are dropped, for the engine to put the
// gateway's in a 2026-07-28 client's result and neither in a legacy
// client's. The result is the one the upstream's answer was decoded
// into, which nothing else holds.
func own(res any) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		r.ResultType, r.Meta = "", withoutIdentity(r.Meta)
	case *mcp.GetPromptResult:
		r.ResultType, r.Meta = "", withoutIdentity(r.Meta)
	case *mcp.ReadResourceResult:
		r.ResultType, r.Meta = "", withoutIdentity(r.Meta)
	case *mcp.CompleteResult:
		r.ResultType, r.Meta = "", withoutIdentity(r.Meta)
	}
}

func withoutIdentity(m *mcp.ResultMetaObject) *mcp.ResultMetaObject {
	if m == nil || m.ServerInfo == nil {
		return m
	}
	if len(m.Extra) == 0 {
		return nil
	}
	out := *m
	out.ServerInfo = nil
	return &out
}
