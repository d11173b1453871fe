package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// caller is the mcp.Caller of a Session: the typed API's requests go
// through it, in the Session's era, and their results through the checks
// of received.
type caller struct{ s *Session }

func (c caller) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	s := c.s
	if raw := s.cache.get(method, params); raw != nil {
		return raw, nil
	}
	raw, task, err := s.roundTrip(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if task {
		t, err := s.taskOf(params, raw)
		if err != nil {
			return nil, err
		}
		return t.follow(ctx)
	}
	return s.received(method, params, raw)
}

// roundTrip sends a request in the Session's era and returns its raw
// result, which a tools/call that may become a task has not yet checked,
// and whether the result is a task handle (taskOf reads it).
func (s *Session) roundTrip(ctx context.Context, method string, params []byte) (raw []byte, task bool, err error) {
	if s.modern {
		return s.callModern(ctx, method, params)
	}
	if method != mcp.MethodCallTool {
		raw, err = s.send(ctx, method, params)
		return raw, false, err
	}
	raw, err = s.send(ctx, method, s.askForTask(ctx, params))
	return raw, err == nil && memberOf(raw, "task") != nil, err
}

// send sends one request on the Conn, under Options.RequestTimeout when
// one is set. A request gets a progress token of its own when the
// timeout needs one, or when OnProgress is there to hear of it and the
// caller does not bring its own tokens.
func (s *Session) send(ctx context.Context, method string, params []byte) ([]byte, error) {
	opts := &s.client.opts
	hear := opts.OnProgress != nil && !opts.CallerProgressTokens && method != mcp.MethodInitialize && method != mcp.MethodDiscover
	if opts.RequestTimeout <= 0 && !hear {
		return s.conn.Call(ctx, method, params)
	}
	var w *watch
	if opts.RequestTimeout > 0 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		w = newWatch(method, opts.RequestTimeout, opts.MaxRequestTimeout, cancel)
		defer w.stop()
	}
	if method != mcp.MethodInitialize {
		tok := mcp.ProgressTokenFromInteger(s.nextToken.Add(1))
		p, tok, err := withProgressToken(params, tok)
		if err != nil {
			return nil, fmt.Errorf("client: %s: params: %w", method, err)
		}
		params = p
		if w != nil && !tok.IsZero() && s.watch(tok, w) {
			defer s.unwatch(tok)
		}
	}
	result, err := s.conn.Call(ctx, method, params)
	if err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrRequestTimeout) {
			return nil, cause
		}
	}
	return result, err
}

// watch registers w to hear of progress on tok, unless another request
// already uses tok.
func (s *Session) watch(tok mcp.ProgressToken, w *watch) bool {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if _, dup := s.watches[tok]; dup {
		return false
	}
	s.watches[tok] = w
	return true
}

func (s *Session) unwatch(tok mcp.ProgressToken) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	delete(s.watches, tok)
}

// progressed restarts the timeout of the request that tok belongs to.
func (s *Session) progressed(tok mcp.ProgressToken) {
	s.watchMu.Lock()
	w := s.watches[tok]
	s.watchMu.Unlock()
	if w != nil {
		w.reset()
	}
}

// watch times one request out: after timeout without a response or
// progress, or at limit whatever the progress.
type watch struct {
	method  string
	timeout time.Duration
	max     time.Duration
	limit   time.Time // zero for no limit
	cancel  context.CancelCauseFunc

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

func newWatch(method string, timeout, maxTimeout time.Duration, cancel context.CancelCauseFunc) *watch {
	w := &watch{method: method, timeout: timeout, max: maxTimeout, cancel: cancel}
	if maxTimeout > 0 {
		w.limit = time.Now().Add(maxTimeout)
	}
	w.mu.Lock()
	w.timer = time.AfterFunc(w.next(), w.fire)
	w.mu.Unlock()
	return w
}

// next returns how long to wait from now: the timeout, cut short by the
// limit.
func (w *watch) next() time.Duration {
	d := w.timeout
	if !w.limit.IsZero() {
		d = min(d, time.Until(w.limit))
	}
	return max(d, 0)
}

func (w *watch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.timer.Reset(w.next())
	}
}

func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}

func (w *watch) fire() {
	if !w.limit.IsZero() && !time.Now().Before(w.limit) {
		w.cancel(fmt.Errorf("client: %s: no response within the MaxRequestTimeout of %v: %w", w.method, w.max, ErrRequestTimeout))
		return
	}
	w.cancel(fmt.Errorf("client: %s: no response or progress within the RequestTimeout of %v: %w", w.method, w.timeout, ErrRequestTimeout))
}

// withProgressToken returns params with _meta.progressToken set to tok,
// params being a JSON object or nil for none. If params already carry a
// progress token, it returns them as they are with that token; if their
// _meta is not an object, it returns them as they are with the zero token.
func withProgressToken(params []byte, tok mcp.ProgressToken) ([]byte, mcp.ProgressToken, error) {
	tokJSON, err := tok.MarshalJSON()
	if err != nil {
		return nil, mcp.ProgressToken{}, err
	}
	member := append([]byte(`"progressToken":`), tokJSON...)
	if len(params) == 0 {
		out := append([]byte(`{"_meta":{`), member...)
		return append(out, "}}"...), tok, nil
	}
	var s jsonrpc.Scanner
	s.Reset(params)
	if err := s.ObjectStart(); err != nil {
		return nil, mcp.ProgressToken{}, err
	}
	at, empty := s.Offset(), true
	for {
		key, ok, err := s.NextKey()
		if err != nil {
			return nil, mcp.ProgressToken{}, err
		}
		if !ok {
			break
		}
		empty = false
		if string(key) != "_meta" {
			if err := s.Skip(); err != nil {
				return nil, mcp.ProgressToken{}, err
			}
			continue
		}
		if s.Peek() != jsonrpc.KindObject {
			return params, mcp.ProgressToken{}, nil
		}
		if err := s.ObjectStart(); err != nil {
			return nil, mcp.ProgressToken{}, err
		}
		metaAt, metaEmpty := s.Offset(), true
		for {
			key, ok, err := s.NextKey()
			if err != nil {
				return nil, mcp.ProgressToken{}, err
			}
			if !ok {
				break
			}
			metaEmpty = false
			if string(key) != "progressToken" {
				if err := s.Skip(); err != nil {
					return nil, mcp.ProgressToken{}, err
				}
				continue
			}
			raw, err := s.Raw()
			if err != nil {
				return nil, mcp.ProgressToken{}, err
			}
			var own mcp.ProgressToken
			if json.Unmarshal(raw, &own) != nil {
				own = mcp.ProgressToken{}
			}
			return params, own, nil
		}
		if !metaEmpty {
			member = append(member, ',')
		}
		return insert(params, metaAt, member), tok, nil
	}
	meta := append(append([]byte(`"_meta":{`), member...), '}')
	if !empty {
		meta = append(meta, ',')
	}
	return insert(params, at, meta), tok, nil
}

// insert returns a new slice holding b with s inserted at i.
func insert(b []byte, i int, s []byte) []byte {
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:i]...)
	out = append(out, s...)
	return append(out, b[i:]...)
}
