package gateway

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The era bridge for questions: a legacy upstream asks its client with a
// request in the middle of a call (elicitation/create, sampling/createMessage,
// roots/list) and waits for the answer, while a 2026-07-28 client can only
// be asked in the result of its request (an InputRequiredResult) and
// answers with a new request. So the upstream's call runs on its own,
// outliving the downstream request: when the upstream asks, the call is
// parked, under a random id the round's sealed requestState carries, and
// the downstream request ends with the question; the client's retry finds
// the call by that id, hands the answer to the upstream, and waits for
// the result or the next question. A call left parked longer than
// ParkTimeout is cancelled, and so is one whose client's retry is
// cancelled; an upstream parks MaxParked calls at most.

// ParkTimeout is how long a legacy upstream's call waits for the
// 2026-07-28 client's answer to its question before it is cancelled.
var ParkTimeout = 2 * time.Minute

// MaxParked bounds the calls one upstream keeps waiting for answers.
const MaxParked = 256

// question is one request of the upstream's, waiting for its answer.
type question struct {
	key    string
	req    mcp.InputRequestVariant
	answer chan json.RawMessage // buffered: the retry never waits on it
}

// parked is a legacy upstream's call that a 2026-07-28 client answers the
// questions of in rounds.
type parked struct {
	id     string
	t      *tracked
	cancel context.CancelFunc
	ctx    context.Context // the upstream call's; ends with it
	asks   chan *question  // the upstream's questions, for the waiting round
	done   chan struct{}   // closed once res and err are set
	res    any
	err    error

	mu    sync.Mutex
	n     int       // questions asked so far, for their keys
	q     *question // the question the client has yet to answer
	timer *time.Timer
}

// ask puts a question of the upstream's to the client in a round, and
// waits for the answer the client's retry brings.
func (p *parked) ask(ctx context.Context, kind string, req mcp.InputRequestVariant) (json.RawMessage, error) {
	p.mu.Lock()
	p.n++
	q := &question{key: kind + "-" + strconv.Itoa(p.n), req: req, answer: make(chan json.RawMessage, 1)}
	p.mu.Unlock()
	select {
	case p.asks <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, context.Cause(p.ctx)
	}
	select {
	case raw := <-q.answer:
		return raw, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, context.Cause(p.ctx)
	}
}

// bridges reports whether the call ctx serves crosses the era bridge for
// questions: a legacy upstream and a 2026-07-28 request that can end a
// round.
func (u *upstream) bridges(ctx context.Context) bool {
	s, err := u.session()
	return err == nil && s.Era() != mcp.EraModern && server.CanRequireInput(ctx)
}

// bridge serves a downstream request of 2026-07-28 on a legacy upstream:
// the first round starts the upstream's call with send, a retry resumes
// the call its requestState names with the client's answers.
func bridge[R any](ctx context.Context, u *upstream, down *mcp.RequestMetaObject, answers mcp.InputResponses,
	method, name string, send func(ctx context.Context, c *upcall, meta *mcp.RequestMetaObject) (R, error)) (R, error) {
	var zero R
	var p *parked
	if st := server.RoundState(ctx); len(st) > 0 {
		if p = u.unpark(string(st)); p == nil {
			return zero, jsonrpc.ErrInvalidParams("invalid params: requestState: the upstream's call it belongs to has ended; call again without it to start over")
		}
		p.t.serve(ctx)
		raw, ok := answerOf(answers, p.q.key)
		if !ok {
			return zero, u.repark(ctx, p, p.q)
		}
		p.q.answer <- raw
	} else {
		// The upstream's call outlives this request, whose values it
		// keeps; p is whole before the call can reach it.
		pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		p = &parked{id: parkID(), ctx: pctx, cancel: cancel, asks: make(chan *question), done: make(chan struct{})}
		uctx, c, meta, err := u.begin(pctx, down, p)
		if err != nil {
			cancel()
			return zero, err
		}
		p.t = c.t
		c.t.serve(ctx)
		go func() {
			defer cancel()
			r, err := send(uctx, c, meta)
			if c.wants {
				_ = c.s.Flush(uctx)
			}
			// Untracked before the round sees the result: the client's
			// next call may follow at once, and a request or log message
			// of the upstream's is forwarded only while a single call is
			// in flight.
			c.done()
			p.res, p.err = r, err
			close(p.done)
		}()
	}
	select {
	case <-p.done:
		p.t.serve(nil)
		if p.err != nil {
			return zero, p.failed(ctx, u, method, name)
		}
		return p.res.(R), nil
	case q := <-p.asks:
		return zero, u.repark(ctx, p, q)
	case <-ctx.Done():
		p.cancel()
		return zero, ctx.Err()
	}
}

// failed is the downstream error of the upstream call's error.
func (p *parked) failed(ctx context.Context, u *upstream, method, name string) error {
	c := &upcall{u: u}
	return c.failed(ctx, method, name, p.err)
}

// repark parks the call until the client answers q, and ends the round
// with q.
func (u *upstream) repark(ctx context.Context, p *parked, q *question) error {
	p.t.serve(nil)
	p.mu.Lock()
	p.q = q
	p.mu.Unlock()
	if !u.park(p) {
		p.cancel()
		return jsonrpc.ErrInternal("upstream " + u.cfg.Name + " has too many calls waiting for their clients' answers")
	}
	if err := server.SetRoundState(ctx, []byte(p.id)); err != nil {
		u.unpark(p.id)
		p.cancel()
		return err
	}
	return server.RequireInput(ctx, mcp.InputRequests{q.key: mcp.InputRequest{Value: q.req}})
}

// park keeps p until its client's retry or ParkTimeout; false when the
// upstream parks MaxParked calls already.
func (u *upstream) park(p *parked) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.parked) >= MaxParked {
		return false
	}
	if u.parked == nil {
		u.parked = map[string]*parked{}
	}
	u.parked[p.id] = p
	p.timer = time.AfterFunc(ParkTimeout, func() {
		if u.unpark(p.id) != nil {
			p.cancel()
		}
	})
	return true
}

// unpark takes the parked call of id, nil when there is none.
func (u *upstream) unpark(id string) *parked {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.parked[id]
	if p == nil {
		return nil
	}
	delete(u.parked, id)
	p.timer.Stop()
	return p
}

// parkID is a fresh id of a parked call: sealed in the requestState, it
// is never seen by the client, only unguessable to it.
func parkID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// answerOf returns the raw JSON of the client's answer under key.
func answerOf(answers mcp.InputResponses, key string) (json.RawMessage, bool) {
	a, ok := answers[key]
	if !ok {
		return nil, false
	}
	raw, err := a.MarshalJSON()
	if err != nil {
		return nil, false
	}
	return raw, true
}
