package gateway

import (
	"bytes"
	"context"
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

	mu   sync.Mutex
	sess *client.Session // nil while disconnected
	proc *client.Process // the stdio upstream's process, when there is one
	// calls are the downstream contexts of calls in flight, for server
	// requests that arrive without one (a legacy upstream's).
	calls map[*int]context.Context
	// listening are the calls in flight whose downstream client hears
	// log messages: the upstream's log messages name no request, so one
	// goes to the one call that can hear it, if there is only one.
	listening map[*int]context.Context
	// progress maps the progress tokens the gateway gave the upstream to
	// the downstream calls whose clients asked for progress.
	progress map[string]context.Context
	tokens   atomic.Int64
	// pending are the calls of a legacy upstream parked on a question a
	// 2026-07-28 downstream client must answer in a round of its own
	// (bridge.go), by the id its requestState carries.
	pending map[string]*parked

	// taskKey binds the ids of the upstream's tasks, as the gateway hands
	// them out, to the caller they were created for (tasks.go).
	taskKeyOnce sync.Once
	taskKey     []byte
}

type callKey struct{}

func (u *upstream) session() (*client.Session, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess == nil {
		return nil, fmt.Errorf("upstream %s is not connected", u.cfg.Name)
	}
	return u.sess, nil
}

// track records ctx as a call in flight until the returned func runs:
// one whose client hears log messages when listens, and one whose client
// asked for progress under the gateway's token tok when tok is not "".
func (u *upstream) track(ctx context.Context, listens bool, tok string) (context.Context, func()) {
	k := new(int)
	u.mu.Lock()
	u.calls[k] = ctx
	if listens {
		if u.listening == nil {
			u.listening = map[*int]context.Context{}
		}
		u.listening[k] = ctx
	}
	if tok != "" {
		if u.progress == nil {
			u.progress = map[string]context.Context{}
		}
		u.progress[tok] = ctx
	}
	u.mu.Unlock()
	return context.WithValue(ctx, callKey{}, k), func() {
		u.mu.Lock()
		delete(u.calls, k)
		delete(u.listening, k)
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
		return // a token the client made up for itself: nobody downstream asked
	}
	u.mu.Lock()
	d := u.progress[tok]
	u.mu.Unlock()
	if d != nil {
		_ = server.Progress(d, p.Progress, p.Total, p.Message)
	}
}

// onLog hands a log message on to the one call in flight that hears log
// messages; with several, the message cannot be attributed and is
// dropped, as with none.
func (u *upstream) onLog(p *mcp.LoggingMessageNotificationParams) {
	var d context.Context
	u.mu.Lock()
	if len(u.listening) == 1 {
		for _, c := range u.listening {
			d = c
		}
	}
	u.mu.Unlock()
	if d != nil {
		_ = server.Log(d, p.Level, p.Logger, p.Data)
	}
}

// downstream returns the downstream call's context for a server request
// the upstream sent: ctx itself when it came through a call (2026-07-28
// input rounds), else the one call in flight; with none or several, a
// legacy upstream's request cannot be attributed and gets an error.
func (u *upstream) downstream(ctx context.Context) (context.Context, error) {
	if ctx.Value(callKey{}) != nil {
		return ctx, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.calls) == 1 {
		for _, c := range u.calls {
			return c, nil
		}
	}
	return nil, fmt.Errorf("upstream %s: request outside a single call in flight cannot be forwarded", u.cfg.Name)
}

func (u *upstream) clientOptions(resync func()) *client.Options {
	return &client.Options{
		Logger: u.log,
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			d, err := u.downstream(ctx)
			if err != nil {
				return nil, err
			}
			return server.Elicit(d, p)
		},
		CreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			d, err := u.downstream(ctx)
			if err != nil {
				return nil, err
			}
			return server.CreateMessage(d, p)
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			d, err := u.downstream(ctx)
			if err != nil {
				return nil, err
			}
			r, err := server.ListRoots(d)
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
	u.mu.Lock()
	u.sess = s
	u.mu.Unlock()
	if err := u.v.sync(ctx, u, s); err != nil {
		u.disconnect()
		return nil, err
	}
	go func() {
		for {
			select {
			case <-resync:
				if err := u.v.sync(ctx, u, s); err != nil {
					u.log.Warn("re-list failed", "err", err)
				}
			case <-ctx.Done():
				return
			case <-u.done(s):
				return
			}
		}
	}()
	return s, nil
}

func (u *upstream) done(s *client.Session) <-chan struct{} {
	ch := make(chan struct{})
	go func() { _ = s.Wait(); close(ch) }()
	return ch
}

// disconnect closes the session and unregisters everything it listed.
func (u *upstream) disconnect() {
	u.mu.Lock()
	s := u.sess
	u.sess = nil
	u.mu.Unlock()
	if s != nil {
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
