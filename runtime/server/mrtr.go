package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Multi round-trip requests (2026-07-28, SEP-2322).
//
// A 2026-07-28 server never sends its client a request. A handler that
// needs input (Elicit, CreateMessage, ListRoots) ends its round instead:
// the engine answers the request with an InputRequiredResult that lists
// what it asked for and a sealed requestState, and the client retries the
// request with the answers. The engine serves the retry by running the
// handler again from the start; the calls that now have answers return
// them at once, so the same handler code serves both eras.
//
// The replay rule for handler authors: a handler that asks for input may
// run more than once for one call, each time up to the first question
// that has no answer yet. Work done before its questions is done again,
// so it should be repeatable (reads, computations), or be done after the
// last question, or be guarded with RoundState/SetRoundState. Questions
// are matched to answers by key: InputKey names one; without it the key
// is derived from the kind and the params, so a question asked with other
// params is a new question.

// ErrInputRequired is returned by Elicit, CreateMessage and ListRoots
// while serving a 2026-07-28 request whose client has not answered them
// yet. The handler should return it (or any error); the engine then ends
// the round with an InputRequiredResult holding every question the
// handler asked, whatever the handler returns. A handler may ask several
// questions before returning, to ask them in one round.
var ErrInputRequired = errors.New("server: the client must answer before the request can go on")

// errNoRounds is the error of a question asked while serving a 2026-07-28
// request that cannot end with an InputRequiredResult.
var errNoRounds = errors.New("server: in 2026-07-28 a handler can ask its client for input only while serving tools/call, prompts/get or resources/read")

// InputOption adjusts one question a handler asks its client.
type InputOption func(*inputOptions)

type inputOptions struct {
	key string
}

// InputKey names a question: the key of its entry in the inputRequests of
// a 2026-07-28 InputRequiredResult, and of the client's answer. Keys must
// be unique among the questions one call asks. Without it the engine
// derives the key from the kind of question and its params. Legacy
// sessions ignore it.
func InputKey(key string) InputOption {
	return func(o *inputOptions) { o.key = key }
}

// RoundState returns what the handler saved with SetRoundState in an
// earlier round of the current 2026-07-28 request, or nil in the first
// round, in legacy sessions, and outside tools/call, prompts/get and
// resources/read. It lets a handler carry its own state across rounds
// instead of redoing work on every replay.
func RoundState(ctx context.Context) []byte {
	r := requestOf(ctx)
	if r == nil || r.input == nil {
		return nil
	}
	return r.input.handlerState()
}

// SetRoundState saves state for the handler's next round: it travels,
// sealed, in the requestState of the InputRequiredResult the round ends
// with, and comes back from RoundState when the client retries. It is
// kept until replaced. Outside a 2026-07-28 request that can have rounds
// it does nothing and returns an error saying so.
func SetRoundState(ctx context.Context, state []byte) error {
	r := requestOf(ctx)
	if r == nil {
		return ErrNoSession
	}
	if r.input == nil {
		return errNoRounds
	}
	r.input.setHandlerState(state)
	return nil
}

// inputRequired ends a round: returned by the engine's handlers through
// the generated dispatch, which cannot return a result of another type,
// and turned back into the result by Server.dispatch.
type inputRequired struct {
	result *mcp.InputRequiredResult
}

func (e *inputRequired) Error() string { return "server: the request needs input from the client" }

// roundState is what a requestState holds, sealed: the binding to the
// request it was issued for, and the answers the handler has used so far.
type roundState struct {
	Principal string                     `json:"p,omitempty"` // digest of the principal
	Method    string                     `json:"m"`
	Target    string                     `json:"t"` // the tool or prompt name, or the resource URI
	Args      string                     `json:"a"` // digest of the arguments
	Round     int                        `json:"r"`
	Answers   map[string]json.RawMessage `json:"i,omitempty"`
	Handler   []byte                     `json:"h,omitempty"`
}

// stateSealPurpose binds sealed requestStates to their use.
const stateSealPurpose = "mcpgen requestState v1"

// rounds is the input state of one round of a 2026-07-28 request: the
// answers the client has given (sealed in requestState from earlier
// rounds, or fresh in inputResponses) and the questions the handler
// asked this round. A handler may ask from several goroutines.
type rounds struct {
	srv     *Server
	binding roundState // Principal and Args are filled in only when needed: see bind
	// Who asked, and the request's arguments, for the binding's digests:
	// raw JSON (tools/call), or a prompt's map (prompts/get).
	principal  any
	args       []byte
	promptArgs map[string]string

	mu       sync.Mutex
	carried  map[string]json.RawMessage // answers from the requestState
	fresh    mcp.InputResponses         // answers given with this retry
	used     map[string]json.RawMessage // answers the handler read this round
	asked    mcp.InputRequests          // questions without answers
	auto     map[string]int             // occurrences of each derived key
	handler  []byte                     // the handler's own state
	explicit map[string]bool            // keys named with InputKey this round
}

// openRounds starts the rounds of a request that may ask for input,
// checking the requestState the client echoed, if any. The rounds live in
// the request itself: most calls never ask, and should not pay for them.
// The state is bound to args, or to promptArgs for a prompt.
func (s *Server) openRounds(r *request, target string, args []byte, promptArgs map[string]string, state string, fresh mcp.InputResponses) error {
	rs := &r.rounds
	*rs = rounds{
		srv:        s,
		principal:  r.principal,
		fresh:      fresh,
		args:       args,
		promptArgs: promptArgs,
		binding: roundState{
			Method: r.method,
			Target: target,
			Round:  1,
		},
	}
	r.input = rs
	if state == "" {
		return nil // most calls: nothing to check, and no digest to pay for
	}
	rs.bind()
	payload, err := s.sealer().Open(stateSealPurpose, state, time.Now())
	switch {
	case errors.Is(err, seal.ErrExpired):
		return jsonrpc.ErrInvalidParams("invalid params: requestState: expired; call again without it to start over")
	case err != nil:
		return jsonrpc.ErrInvalidParams("invalid params: requestState: not a state this server issued")
	}
	var st roundState
	if err := json.Unmarshal(payload, &st); err != nil {
		return jsonrpc.ErrInvalidParams("invalid params: requestState: not a state this server issued")
	}
	if st.Principal != rs.binding.Principal || st.Method != rs.binding.Method || st.Target != rs.binding.Target || st.Args != rs.binding.Args {
		return jsonrpc.ErrInvalidParams("invalid params: requestState: issued for another request; echo it only on the retry of the request it came with")
	}
	if st.Round >= s.opts.maxInputRounds() {
		return jsonrpc.ErrInvalidParams("invalid params: requestState: the request has used all of its " + strconv.Itoa(s.opts.maxInputRounds()) + " rounds of input")
	}
	rs.binding.Round = st.Round + 1
	rs.carried = st.Answers
	rs.handler = st.Handler
	return nil
}

// bind computes the digests of the principal and the arguments that a
// requestState is bound to: only for a round that checks a state or
// issues one, as they cost hashing, and for a prompt an encode.
func (rs *rounds) bind() {
	if rs.binding.Args == "" {
		rs.binding.Principal = principalDigest(rs.principal)
		args := rs.args
		if rs.promptArgs != nil {
			args, _ = json.Marshal(rs.promptArgs)
		}
		rs.binding.Args = argsDigest(args)
	}
}

// exchange asks one question, or returns its answer when the client has
// given one: the question's key and the raw JSON of the answer, or
// ErrInputRequired.
func (rs *rounds) exchange(kind string, req mcp.InputRequestVariant, opts []InputOption) (key string, answer []byte, err error) {
	var o inputOptions
	for _, opt := range opts {
		opt(&o)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	key = o.key
	if key != "" {
		if len(key) > 256 {
			return "", nil, errors.New("server: an input key may be 256 bytes long at most")
		}
		if rs.explicit[key] {
			return "", nil, fmt.Errorf("server: input key %q is used for two questions of one call", key)
		}
		if rs.explicit == nil {
			rs.explicit = map[string]bool{}
		}
		rs.explicit[key] = true
	} else {
		raw, err := req.(mcp.Message).MarshalJSON()
		if err != nil {
			return "", nil, fmt.Errorf("server: the question does not encode: %w", err)
		}
		key = derivedKey(kind, raw)
		if rs.auto == nil {
			rs.auto = map[string]int{}
		}
		rs.auto[key]++
		if n := rs.auto[key]; n > 1 {
			key += "-" + strconv.Itoa(n)
		}
	}
	if raw, ok := rs.carried[key]; ok {
		rs.use(key, raw)
		return key, raw, nil
	}
	if ans, ok := rs.fresh[key]; ok {
		raw, err := ans.MarshalJSON()
		if err == nil {
			rs.use(key, raw)
			return key, raw, nil
		}
	}
	if rs.asked == nil {
		rs.asked = mcp.InputRequests{}
	}
	rs.asked[key] = mcp.InputRequest{Value: req}
	return key, nil, ErrInputRequired
}

// reask forgets an answer that did not fit its question, and asks it again.
func (rs *rounds) reask(key string, req mcp.InputRequestVariant) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.used, key)
	if rs.asked == nil {
		rs.asked = mcp.InputRequests{}
	}
	rs.asked[key] = mcp.InputRequest{Value: req}
}

func (rs *rounds) use(key string, raw []byte) {
	if rs.used == nil {
		rs.used = map[string]json.RawMessage{}
	}
	rs.used[key] = raw
}

func (rs *rounds) handlerState() []byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.handler
}

func (rs *rounds) setHandlerState(b []byte) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.handler = bytes.Clone(b)
}

// pending reports whether the handler asked a question this round that
// has no answer.
func (rs *rounds) pending() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.asked) > 0
}

// end ends the round with the InputRequiredResult of its questions and a
// requestState that carries the answers used so far to the next round.
func (rs *rounds) end() (*inputRequired, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.bind()
	st := rs.binding
	st.Answers = rs.used
	st.Handler = rs.handler
	payload, err := json.Marshal(&st)
	if err != nil {
		return nil, jsonrpc.ErrInternal("cannot encode the requestState: " + err.Error())
	}
	token := rs.srv.sealer().Seal(stateSealPurpose, payload, time.Now().Add(rs.srv.opts.stateTTL()))
	return &inputRequired{result: &mcp.InputRequiredResult{
		ResultType:    "input_required",
		InputRequests: rs.asked,
		RequestState:  token,
	}}, nil
}

// derivedKey is the key of a question asked without InputKey: its kind
// and a digest of its params, so that a replay asking the same question
// finds the same answer, and one asking another does not.
func derivedKey(kind string, params []byte) string {
	sum := sha256.Sum256(params)
	return kind + "-" + hex.EncodeToString(sum[:6])
}

// argsDigest is a digest of a request's arguments that does not depend on
// how the client spelled them: key order, spacing and number formatting
// differ between encoders, and a retry need not reuse the first bytes.
func argsDigest(args []byte) string {
	canonical := args
	if len(bytes.TrimSpace(args)) != 0 {
		var v any
		if err := json.Unmarshal(args, &v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				canonical = b
			}
		}
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:16])
}

// principalDigest is the binding of a state to the principal that got it.
// A principal that is a string is itself; one with a String method is
// what it says; anything else is its Go syntax representation, which is
// stable for the value types identities usually are.
// principalAttr is the principal for a log line: what it says of itself
// (a string, or its String method: runtime/auth's Principal writes its
// issuer and subject, never a credential), or for any other value only
// its digest, since its fields may hold secrets; nothing when there is
// none.
func principalAttr(p any) slog.Attr {
	switch v := p.(type) {
	case nil:
		return slog.Attr{}
	case string:
		return slog.String("principal", v)
	case fmt.Stringer:
		return slog.String("principal", v.String())
	}
	return slog.String("principal", "digest:"+principalDigest(p))
}

func principalDigest(p any) string {
	if p == nil {
		return ""
	}
	var s string
	switch v := p.(type) {
	case string:
		s = "s:" + v
	case fmt.Stringer:
		s = "t:" + v.String()
	default:
		s = fmt.Sprintf("g:%#v", v)
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
