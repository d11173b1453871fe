// Package gateway puts one MCP endpoint in front of many MCP servers: each
// virtual server of the configuration aggregates the tools, prompts and
// resources of its upstreams under namespaced names and routes every call
// back to the upstream that offers it.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// Gateway serves the virtual servers of a Config. Reload, or the file
// watcher of a config with watch: true, changes them while it runs.
type Gateway struct {
	log *slog.Logger

	gov  *governance // govern.go
	obs  *observer   // observe.go
	pins *pinning    // pinning.go
	door *front      // front.go

	// mu guards cfg, virtuals, handlers and runs. They change only under
	// reloadMu as well, so a reload reads them without mu.
	mu       sync.Mutex
	cfg      *Config
	virtuals map[string]*virtual
	handlers map[string]*endpoint
	runs     map[*upstream]*run // the run loop of each started upstream

	// reloadMu serializes Start, Reload and Close.
	reloadMu sync.Mutex
	ctx      context.Context // Start's; the parent of every upstream's loop
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the upstreams' run loops and the watcher
	serving  sync.WaitGroup // the sessions of Serve
	closed   bool
}

// run is the loop that keeps one upstream connected.
type run struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the loop has returned
}

// New builds the gateway of cfg; Start connects it. log may be nil.
func New(cfg *Config, log *slog.Logger) (_ *Gateway, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{cfg: cfg, log: log, virtuals: map[string]*virtual{}, handlers: map[string]*endpoint{}, runs: map[*upstream]*run{}}
	defer func() {
		if err == nil {
			return
		}
		for _, e := range g.handlers {
			_ = e.close()
		}
		if g.obs != nil {
			_ = g.obs.close()
		}
		if g.gov != nil {
			_ = g.gov.close()
		}
	}()
	if g.gov, err = newGovernance(cfg, log); err != nil {
		return nil, err
	}
	if g.obs, err = newObserver(g); err != nil {
		return nil, err
	}
	if g.pins, err = newPinning(cfg); err != nil {
		return nil, err
	}
	if g.door, err = newFront(cfg, log, g.endpointOf); err != nil {
		return nil, err
	}
	for _, name := range cfg.ServerNames() {
		v, h, err := g.newServer(name, cfg.Servers[name])
		if err != nil {
			return nil, err
		}
		g.virtuals[name] = v
		g.handlers[name] = h
	}
	return g, nil
}

// newServer builds the virtual server name of sc, with its upstreams
// not yet connected, and the handler that serves it.
func (g *Gateway) newServer(name string, sc *ServerConfig) (*virtual, *endpoint, error) {
	srv := server.New(mcp.Implementation{Name: "mcpgen-gateway/" + name, Version: "0.1.0"}, &server.Options{
		Logger:  g.log.With("server", name),
		Caching: sc.caching(),
	})
	v := newVirtual(g, name, srv)
	for _, uc := range sc.Upstreams {
		v.ups = append(v.ups, g.newUpstream(v, uc))
	}
	// The middleware, outermost first: the audit, which must see each
	// request's final answer; the lists' cursors and expiry (cache.go);
	// the callers' views, which setGovern adds (govern.go), so that what
	// a caller may not see answers as unknown before anything inside
	// tells more; pinning's quarantine errors (pinning.go); and tasks/*
	// routed to the upstream that runs the task (tasks.go).
	srv.Use(v.auditRequests, v.listMiddleware)
	if err := v.setGovern(sc); err != nil {
		return nil, nil, fmt.Errorf("virtual server %s: %w", name, err)
	}
	srv.Use(v.pinGuard, v.relayTasks)
	e := g.door.serve(name, srv)
	e.tool = v.visibleTool
	return v, e, nil
}

func (g *Gateway) newUpstream(v *virtual, uc *UpstreamConfig) *upstream {
	return &upstream{cfg: uc, v: v, log: g.log.With("server", v.name, "upstream", uc.Name)}
}

// Start connects every upstream, in configuration order, and lists them.
// An upstream that cannot be reached or lists a name another upstream
// already offers fails the start, and what was started is stopped. Once
// started, each upstream reconnects by itself until ctx ends or Close;
// with watch: true in the config, its file is watched from then on.
func (g *Gateway) Start(ctx context.Context) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.ctx != nil || g.closed {
		return errors.New("gateway: Start called twice, or after Close")
	}
	g.ctx, g.cancel = context.WithCancel(ctx)
	type started struct {
		u      *upstream
		s      *client.Session
		ctx    context.Context
		cancel context.CancelFunc
	}
	var ok []started
	for _, name := range g.cfg.ServerNames() {
		for _, u := range g.virtuals[name].upstreams() {
			uctx, cancel := context.WithCancel(g.ctx)
			s, err := u.connect(uctx)
			if err != nil {
				cancel()
				for _, st := range ok {
					st.cancel()
					st.u.disconnect()
				}
				g.cancel()
				return fmt.Errorf("virtual server %s: upstream %s: %w", name, u.cfg.Name, err)
			}
			ok = append(ok, started{u, s, uctx, cancel})
		}
	}
	if g.cfg.Lock == "" {
		g.log.Info("pinning is off: the config has no lock key")
	}
	for _, st := range ok {
		g.startRun(st.ctx, st.cancel, st.u, st.s)
	}
	if g.cfg.Watch {
		if err := g.watch(g.ctx); err != nil {
			g.log.Warn("config: not watched", "err", err)
		}
	}
	return nil
}

// startRun keeps u connected in a loop of its own until ctx ends, and
// lists it again when it goes idle past its listing's expiry; s is its
// first session, or nil to connect in the loop.
func (g *Gateway) startRun(ctx context.Context, cancel context.CancelFunc, u *upstream, s *client.Session) {
	r := &run{cancel: cancel, done: make(chan struct{})}
	g.mu.Lock()
	g.runs[u] = r
	g.mu.Unlock()
	var loops sync.WaitGroup
	loops.Go(func() { u.run(ctx, s) })
	loops.Go(func() { u.v.relistIdle(ctx, u) })
	g.wg.Go(func() {
		loops.Wait()
		close(r.done)
	})
}

// stopRun ends u's loop, disconnects it and unregisters what it listed.
func (g *Gateway) stopRun(u *upstream) {
	g.mu.Lock()
	r := g.runs[u]
	delete(g.runs, u)
	g.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
	u.disconnect()
}

// Close ends every downstream session, disconnects every upstream and
// waits for their loops to end.
func (g *Gateway) Close() error {
	// reloadMu is not held while the loops end: the watcher may be
	// waiting for it, to find the gateway closed.
	g.reloadMu.Lock()
	g.closed = true
	cancel := g.cancel
	g.reloadMu.Unlock()
	if cancel != nil {
		cancel()
	}
	g.wg.Wait()
	g.mu.Lock()
	virtuals, handlers := g.virtuals, g.handlers
	g.runs = map[*upstream]*run{}
	g.mu.Unlock()
	var errs []error
	for _, h := range handlers {
		errs = append(errs, h.close())
	}
	for _, v := range virtuals {
		v.end()
	}
	g.serving.Wait()
	for _, v := range virtuals {
		for _, u := range v.upstreams() {
			u.disconnect()
		}
	}
	return errors.Join(append(errs, g.gov.close(), g.obs.close())...)
}

// ErrServerRemoved is what Serve returns when a reload removed the
// virtual server its session was on, or changed it so that its sessions
// end (see Reload).
var ErrServerRemoved = errors.New("gateway: the virtual server was removed")

// Serve serves one downstream session of the virtual server name over t
// until the client closes it, ctx ends, Close is called or a reload
// removes the server; it returns nil when the client or ctx ended it. It
// is how the gateway serves a client that runs it as a local process
// (ServeStdio), and how a program embedding the gateway serves one over a
// transport of its own. Reloads that keep the server keep the session.
//
// Nothing authenticates such a session, whatever the auth section says:
// its caller is whoever holds the transport. It has no principal, so
// authorization rules see no subject, claims or scopes, and its rate
// limits are the anonymous caller's.
func (g *Gateway) Serve(ctx context.Context, name string, t jsonrpc.Transport) error {
	g.reloadMu.Lock()
	v, err := g.virtuals[name], error(nil)
	switch {
	case g.closed:
		err = errors.New("gateway: Serve after Close")
	case g.ctx == nil:
		err = errors.New("gateway: Serve before Start")
	case v == nil:
		err = fmt.Errorf("gateway: no virtual server %q", name)
	default:
		g.serving.Add(1)
	}
	g.reloadMu.Unlock()
	if err != nil {
		_ = t.Close()
		return err
	}
	defer g.serving.Done()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(v.life, func() { cancel(ErrServerRemoved) })()
	err = v.srv.Serve(ctx, t)
	if errors.Is(context.Cause(ctx), ErrServerRemoved) && !g.isClosed() {
		return ErrServerRemoved
	}
	return err
}

// ServeStdio serves the virtual server name to one client on the
// process's stdin and stdout, as Serve does; the process's own output
// goes to stderr from then on (transport.Stdio).
func (g *Gateway) ServeStdio(ctx context.Context, name string) error {
	t, err := transport.Stdio(transport.StdioOptions{})
	if err != nil {
		return err
	}
	return g.Serve(ctx, name, t)
}

// isClosed reports whether Close was called.
func (g *Gateway) isClosed() bool {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	return g.closed
}

// Server returns the virtual server of that name, or nil.
func (g *Gateway) Server(name string) *server.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	if v := g.virtuals[name]; v != nil {
		return v.srv
	}
	return nil
}

// config returns the configuration in force.
func (g *Gateway) config() *Config {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg
}

// servers returns the virtual servers in force, by name.
func (g *Gateway) servers() map[string]*virtual {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]*virtual, len(g.virtuals))
	for n, v := range g.virtuals {
		out[n] = v
	}
	return out
}

// endpointOf returns what serves the virtual server name downstream, or
// nil.
func (g *Gateway) endpointOf(name string) *endpoint {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.handlers[name]
}

// serveMCP routes a request to the virtual server its path names, looking
// the name up on every request: a server a reload added is served at
// once, and one it removed answers 404. The paths are those front.go
// lists.
func (g *Gateway) serveMCP(w http.ResponseWriter, r *http.Request) {
	name, legacy := "default", false
	switch p := r.URL.Path; p {
	case "/mcp":
	case "/sse", "/message":
		legacy = true
	default:
		rest, ok := strings.CutPrefix(p, "/mcp/")
		if !ok || rest == "" {
			http.NotFound(w, r)
			return
		}
		name = rest
		if n, sub, ok := strings.Cut(rest, "/"); ok {
			if sub != "sse" && sub != "message" {
				http.NotFound(w, r)
				return
			}
			name, legacy = n, true
		}
	}
	e := g.endpointOf(name)
	if e == nil {
		http.NotFound(w, r)
		return
	}
	if legacy {
		e.legacy.ServeHTTP(w, r)
		return
	}
	e.streamable.ServeHTTP(w, r)
}
