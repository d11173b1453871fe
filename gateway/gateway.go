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
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// Gateway serves the virtual servers of a Config.
type Gateway struct {
	cfg      *Config
	log      *slog.Logger
	virtuals map[string]*virtual
	handlers map[string]*streamable.Handler

	gov  *governance // govern.go
	obs  *observer   // observe.go
	pins *pinning    // pinning.go
	door *front      // front.go

	wg     sync.WaitGroup // the upstreams' run loops
	cancel context.CancelFunc
}

// New builds the gateway of cfg; Start connects it. log may be nil.
func New(cfg *Config, log *slog.Logger) (*Gateway, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{cfg: cfg, log: log, virtuals: map[string]*virtual{}, handlers: map[string]*streamable.Handler{}}
	var err error
	if g.gov, err = newGovernance(cfg, log); err != nil {
		return nil, err
	}
	if g.obs, err = newObserver(cfg, log); err != nil {
		_ = g.gov.close()
		return nil, err
	}
	if g.pins, err = newPinning(cfg); err != nil {
		_ = g.gov.close()
		_ = g.obs.close()
		return nil, err
	}
	if g.door, err = newFront(cfg, log); err != nil {
		_ = g.gov.close()
		_ = g.obs.close()
		return nil, err
	}
	for _, name := range cfg.ServerNames() {
		srv := server.New(mcp.Implementation{Name: "mcpgen-gateway/" + name, Version: "0.1.0"}, &server.Options{Logger: log.With("server", name)})
		v := newVirtual(g, name, srv)
		for _, uc := range cfg.Servers[name].Upstreams {
			v.ups = append(v.ups, &upstream{cfg: uc, v: v, log: log.With("server", name, "upstream", uc.Name), calls: map[*int]context.Context{}})
		}
		if err := v.setGovern(cfg.Servers[name]); err != nil {
			_ = g.gov.close()
			_ = g.obs.close()
			return nil, err
		}
		g.virtuals[name] = v
		g.handlers[name] = g.door.serve(name, srv)
	}
	return g, nil
}

// Start connects every upstream, in configuration order, and lists them.
// An upstream that cannot be reached or lists a name another upstream
// already offers fails the start, and what was started is stopped. Once
// started, each upstream reconnects by itself until ctx ends or Close.
func (g *Gateway) Start(ctx context.Context) error {
	ctx, g.cancel = context.WithCancel(ctx)
	type started struct {
		u *upstream
		s *client.Session
	}
	var ok []started
	for _, name := range g.cfg.ServerNames() {
		for _, u := range g.virtuals[name].ups {
			s, err := u.connect(ctx)
			if err != nil {
				for _, st := range ok {
					st.u.disconnect()
				}
				g.cancel()
				return fmt.Errorf("virtual server %s: upstream %s: %w", name, u.cfg.Name, err)
			}
			ok = append(ok, started{u, s})
		}
	}
	if g.cfg.Lock == "" {
		g.log.Info("pinning is off: the config has no lock key")
	}
	for _, st := range ok {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			st.u.run(ctx, st.s)
		}()
	}
	return nil
}

// Close disconnects every upstream and waits for their loops to end.
func (g *Gateway) Close() error {
	if g.cancel != nil {
		g.cancel()
	}
	g.wg.Wait()
	for _, v := range g.virtuals {
		for _, u := range v.ups {
			u.disconnect()
		}
	}
	return errors.Join(g.door.close(), g.gov.close(), g.obs.close())
}

// Server returns the virtual server of that name, or nil.
func (g *Gateway) Server(name string) *server.Server {
	if v := g.virtuals[name]; v != nil {
		return v.srv
	}
	return nil
}
