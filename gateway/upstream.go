package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// MaxMessageSize bounds one message from a stdio upstream; a bigger one
// ends the connection with an error instead of growing without bound.
var MaxMessageSize = 16 << 20

// maxStderrLine bounds one line of an upstream's stderr in the log.
const maxStderrLine = 4096

// Restart backoff for a stdio upstream that exited.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// upstream is one connection from a virtual server to an MCP server: it
// connects, lists, registers what it lists on the virtual server, and on
// exit unregisters it all and connects again.
type upstream struct {
	cfg *UpstreamConfig
	v   *virtual
	log *slog.Logger

	// sess is the session, nil while disconnected: read on every call,
	// without the lock.
	sess atomic.Pointer[client.Session]
	mu   sync.Mutex
	proc *client.Process // the stdio upstream's process, when there is one
	// calls are the downstream calls in flight, for what the upstream
	// sends without naming its request: a legacy upstream's requests, and
	// log messages, which go to the one call that can hear them (one of
	// listening), if there is only one.
	calls     map[*tracked]struct{}
	listening int
	// progress maps the progress tokens the gateway gave the upstream to
	// the downstream calls whose clients asked for progress.
	progress map[string]*tracked
	tokens   atomic.Int64
	// parked are the calls of a legacy upstream waiting on a question a
	// 2026-07-28 downstream client answers in a round of its own
	// (bridge.go), by the id the round's requestState carries.
	parked map[string]*parked

	// taskKey binds the ids of the upstream's tasks, as the gateway hands
	// them out, to the caller they were created for (tasks.go).
	taskKeyOnce sync.Once
	taskKey     []byte
}

// tracked is one downstream call in flight on an upstream.
type tracked struct {
	listens bool // the downstream client hears log messages
	// bridge is the legacy upstream's call a 2026-07-28 client answers
	// the questions of in rounds (bridge.go); nil for other calls.
	bridge *parked

	mu  sync.Mutex
	ctx context.Context // the downstream request's; nil while the call waits for a retry
}

// current returns the ctx of the downstream request that the call serves
// now, nil when none does.
func (t *tracked) current() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ctx
}

func (t *tracked) serve(ctx context.Context) {
	t.mu.Lock()
	t.ctx = ctx
	t.mu.Unlock()
}

type callKey struct{}

func (u *upstream) session() (*client.Session, error) {
	s := u.sess.Load()
	if s == nil {
		return nil, fmt.Errorf("upstream %s is not connected", u.cfg.Name)
	}
	return s, nil
}

// track records ctx as a call in flight until the returned func runs:
// one whose client hears log messages when listens, and one whose client
// asked for progress under the gateway's token tok when tok is not "".
func (u *upstream) track(ctx context.Context, listens bool, tok string, bridge *parked) (context.Context, *tracked, func()) {
	t := &tracked{ctx: ctx, listens: listens, bridge: bridge}
	u.mu.Lock()
	if u.calls == nil {
		u.calls = map[*tracked]struct{}{}
	}
	u.calls[t] = struct{}{}
	if listens {
		u.listening++
	}
	if tok != "" {
		if u.progress == nil {
			u.progress = map[string]*tracked{}
		}
		u.progress[tok] = t
	}
	u.mu.Unlock()
	return context.WithValue(ctx, callKey{}, t), t, func() {
		u.mu.Lock()
		delete(u.calls, t)
		if listens {
			u.listening--
		}
		if tok != "" {
			delete(u.progress, tok)
		}
		u.mu.Unlock()
	}
}

// onProgress hands the upstream's progress on to the downstream call it
// belongs to, under the downstream client's own token.
func (u *upstream) onProgress(p *mcp.ProgressNotificationParams) {
	tok, ok := p.ProgressToken.AsString()
	if !ok {
		return // not a token of begin's: nobody downstream asked
	}
	u.mu.Lock()
	t := u.progress[tok]
	u.mu.Unlock()
	if t == nil {
		return
	}
	if d := t.current(); d != nil {
		_ = server.Progress(d, p.Progress, p.Total, p.Message)
	}
}

// onLog hands a log message on to the one call in flight that hears log
// messages; with several, the message cannot be attributed and is
// dropped, as with none.
func (u *upstream) onLog(p *mcp.LoggingMessageNotificationParams) {
	var t *tracked
	u.mu.Lock()
	if u.listening == 1 {
		for c := range u.calls {
			if c.listens {
				t = c
			}
		}
	}
	u.mu.Unlock()
	if t == nil {
		return
	}
	if d := t.current(); d != nil {
		_ = server.Log(d, p.Level, p.Logger, p.Data)
	}
}

// caller returns the downstream call a server request of the upstream's
// belongs to: the one ctx names when it came through a call (2026-07-28
// input rounds), else the one call in flight; with none or several, a
// legacy upstream's request cannot be attributed and gets an error.
func (u *upstream) caller(ctx context.Context) (*tracked, error) {
	if t, ok := ctx.Value(callKey{}).(*tracked); ok {
		return t, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.calls) == 1 {
		for t := range u.calls {
			return t, nil
		}
	}
	return nil, fmt.Errorf("upstream %s: a request outside a single call in flight cannot be forwarded", u.cfg.Name)
}

// declares reports whether a client with caps handles the questions of
// kind ("elicitation", "sampling" or "roots", as ask names them).
func declares(caps *mcp.ClientCapabilities, kind string) bool {
	if caps == nil {
		return false
	}
	switch kind {
	case "elicitation":
		return caps.Elicitation != nil
	case "sampling":
		return caps.Sampling != nil
	case "roots":
		return caps.Roots != nil
	}
	return false
}

// idle reports whether a request of the upstream's came outside any
// downstream call: none is in flight, and ctx names none.
func (u *upstream) idle(ctx context.Context) bool {
	if _, ok := ctx.Value(callKey{}).(*tracked); ok {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.calls) == 0
}

// ask hands a question of the upstream's on to the downstream client of
// the call it belongs to: as a request of its legacy session, a question
// of its 2026-07-28 task, or of a bridged call's round (bridge.go).
func ask[R any, PR interface {
	*R
	UnmarshalJSON([]byte) error
}](ctx context.Context, u *upstream, kind string, q mcp.InputRequestVariant, direct func(d context.Context) (PR, error)) (PR, error) {
	t, err := u.caller(ctx)
	if err != nil {
		return nil, err
	}
	if d := t.current(); d != nil && !declares(server.ClientCapabilities(d), kind) {
		// Neither a request nor a round may ask a client for what it did
		// not declare.
		return nil, &server.CapabilityError{Capability: kind}
	}
	if t.bridge != nil {
		raw, err := t.bridge.ask(ctx, kind, q)
		if err != nil {
			return nil, err
		}
		res := PR(new(R))
		if err := res.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("the client's answer to %s does not decode: %w", kind, err)
		}
		return res, nil
	}
	d := t.current()
	if d == nil {
		return nil, fmt.Errorf("upstream %s: the call's client is not connected", u.cfg.Name)
	}
	return direct(d)
}

func (u *upstream) clientOptions(resync func()) *client.Options {
	return &client.Options{
		Logger: u.log,
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return ask(ctx, u, "elicitation", &mcp.ElicitRequest{Params: *p}, func(d context.Context) (*mcp.ElicitResult, error) {
				return server.Elicit(d, p)
			})
		},
		CreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return ask(ctx, u, "sampling", &mcp.CreateMessageRequest{Params: *p}, func(d context.Context) (*mcp.CreateMessageResult, error) {
				return server.CreateMessage(d, p)
			})
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			if u.idle(ctx) {
				// Asked outside any call (some servers ask at start):
				// the gateway itself has no roots to give.
				return []mcp.Root{}, nil
			}
			r, err := ask(ctx, u, "roots", &mcp.ListRootsRequest{Params: &mcp.ListRootsRequestParams{}}, func(d context.Context) (*mcp.ListRootsResult, error) {
				return server.ListRoots(d)
			})
			var capErr *server.CapabilityError
			if errors.As(err, &capErr) {
				return []mcp.Root{}, nil // a client without roots has none to give
			}
			if err != nil {
				return nil, err
			}
			return r.Roots, nil
		},
		OnLog:                  u.onLog,
		OnProgress:             u.onProgress,
		OnToolsListChanged:     resync,
		OnPromptsListChanged:   resync,
		OnResourcesListChanged: resync,
		// Only a downstream request's own token (made "gw-…" by
		// begin) is worth asking the upstream for progress on.
		CallerProgressTokens: true,
	}
}

// connect dials, negotiates the era and registers the upstream's lists.
// It returns the session, or an error with nothing left registered.
func (u *upstream) connect(ctx context.Context) (*client.Session, error) {
	t, err := u.dial()
	if err != nil {
		return nil, err
	}
	resync := make(chan struct{}, 1)
	c := client.New(mcp.Implementation{Name: "mcpgen-gateway", Version: "0.1.0"}, u.clientOptions(func() {
		select {
		case resync <- struct{}{}:
		default:
		}
	}))
	s, err := c.Connect(ctx, t)
	if err != nil {
		_ = t.Close()
		return nil, err
	}
	if err := u.hearLogs(ctx, s); err != nil {
		_ = s.Close()
		return nil, err
	}
	u.sess.Store(s)
	if err := u.v.sync(ctx, u, s); err != nil {
		u.disconnect()
		return nil, err
	}
	done := u.done(s)
	changes := u.listen(ctx, s, done)
	go func() {
		for {
			select {
			case <-resync:
			case <-changes:
			case <-ctx.Done():
				return
			case <-done:
				return
			}
			if err := u.v.sync(ctx, u, s); err != nil {
				u.log.Warn("re-list failed", "err", err)
			}
		}
	}()
	return s, nil
}

// listenForChanges turns the subscription of listen on; tests turn it
// off to see the idle re-list that serves upstreams refusing it.
var listenForChanges = true

// listenTimeout bounds the wait for a 2026-07-28 upstream to acknowledge
// the gateway's subscriptions/listen.
const listenTimeout = 10 * time.Second

// listen asks a 2026-07-28 upstream, which sends list changes only on a
// subscriptions/listen stream, for those of the lists it says change,
// and returns a channel that receives when one did. It gives nil (a
// channel that never receives) for a legacy upstream, which notifies its
// session anyway, or when the upstream refuses. Either way a 2026-07-28
// upstream's lists are also listed again as their ttlMs says (cache.go). The subscription ends with
// the session; the goroutine that reads it, with ctx or done.
func (u *upstream) listen(ctx context.Context, s *client.Session, done <-chan struct{}) <-chan struct{} {
	caps := s.ServerCapabilities()
	if !listenForChanges || s.Era() != mcp.EraModern || caps == nil {
		return nil
	}
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, listenTimeout)
	sub, err := s.Listen(wait, f)
	cancel()
	if err != nil {
		u.log.Warn("list changes not heard: its lists are listed again when they expire", "err", err)
		return nil
	}
	changed := make(chan struct{}, 1)
	go func() {
		defer sub.Close()
		for {
			if _, err := sub.Next(ctx); err != nil {
				return // the session or ctx ended
			}
			select {
			case changed <- struct{}{}:
			default: // a re-list is already due
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return changed
}

func (u *upstream) done(s *client.Session) <-chan struct{} {
	ch := make(chan struct{})
	go func() { _ = s.Wait(); close(ch) }()
	return ch
}

// disconnect closes the session and unregisters everything it listed.
func (u *upstream) disconnect() {
	if s := u.sess.Swap(nil); s != nil {
		_ = s.Close()
	}
	u.v.drop(u)
}

// run keeps the upstream connected until ctx ends, reconnecting with
// backoff after the connection ends. s is the first session.
func (u *upstream) run(ctx context.Context, s *client.Session) {
	backoff := minBackoff
	for {
		if s != nil {
			select {
			case <-u.done(s):
			case <-ctx.Done():
				u.disconnect()
				return
			}
			u.log.Warn("upstream disconnected")
			u.disconnect()
			backoff = minBackoff
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		var err error
		s, err = u.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			u.log.Warn("reconnect failed", "err", err, "retry_in", backoff)
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		u.log.Info("upstream reconnected")
	}
}

// lineLog writes an upstream's stderr into the log a line at a time, each
// line cut to maxStderrLine bytes.
type lineLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	buf  []byte
	skip bool // the current line was already logged cut short
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !l.skip {
			room := maxStderrLine - len(l.buf)
			if len(chunk) > room {
				l.buf = append(l.buf, chunk[:room]...)
				l.log.Info("stderr", "line", string(l.buf), "truncated", true)
				l.buf = l.buf[:0]
				l.skip = true
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !l.skip {
			l.log.Info("stderr", "line", string(l.buf))
		}
		l.buf = l.buf[:0]
		l.skip = false
		p = p[i+1:]
	}
	return n, nil
}
