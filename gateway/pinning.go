package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/gateway/pin"
	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// pinning checks upstream tool definitions against the lock file (package
// pin says why). Each sync of an upstream checks its tools: a quarantined
// tool is not registered on the virtual server, so it is neither listed
// nor callable, and pinGuard answers a call to it with the quarantine
// error instead of "unknown tool". Without a lock key only hidden
// characters quarantine a tool (pin.Scan).
//
// The lock file is re-read when it changes: its identity and mtime are
// checked at every sync, and, while something is quarantined, at every
// tools/list and every refused call; a changed lock re-checks the
// listings already held, without asking the upstreams again, so that
// `mcpgen-gateway approve` takes effect on a running gateway.
type pinning struct {
	path string // the lock file; "" when pinning is off

	// repin serializes re-checks after the lock changed, so that one
	// request does them and the others wait for the result.
	repin sync.Mutex

	mu    sync.Mutex
	lock  *pin.Lock
	stamp os.FileInfo // of the file lock was read from
	gen   int         // counts the locks read
	bad   os.FileInfo // the file last found unreadable, logged once
	gone  bool        // the file was missing at the last look, logged once
	held  map[*virtual]map[*upstream]*checked
	// logged holds, per tool, what its quarantine was last logged as,
	// so that each change is logged once.
	logged map[toolKey]string
}

// checked is what the last sync of one upstream listed and which of its
// tools are quarantined.
type checked struct {
	l           *listing
	gen         int              // the lock generation l was checked with
	quarantined map[string]error // by downstream name
}

type toolKey struct{ server, upstream, tool string }

// LockPath is the lock file the configuration names, relative to the
// configuration file's folder; "" when pinning is off.
func (c *Config) LockPath() string {
	if c.Lock == "" || filepath.IsAbs(c.Lock) || c.file == "" {
		return c.Lock
	}
	return filepath.Join(filepath.Dir(c.file), c.Lock)
}

func newPinning(cfg *Config) (*pinning, error) {
	p := &pinning{path: cfg.LockPath(), held: map[*virtual]map[*upstream]*checked{}, logged: map[toolKey]string{}}
	if p.path == "" {
		return p, nil
	}
	fi, err := os.Stat(p.path)
	if err == nil {
		p.lock, err = pin.Read(p.path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (the lock key of %s); run `mcpgen-gateway lock --config %s` to pin the tools the upstreams list now",
			pin.ErrNoLock, p.path, cfg.file, cfg.file)
	}
	if err != nil {
		return nil, fmt.Errorf("pinning: %w", err)
	}
	p.stamp, p.gen = fi, 1
	return p, nil
}

// currentLocked returns the lock and its generation, first re-reading
// the file if it changed. A lock that cannot be read now is logged once
// and the last good one kept. p.mu is held.
func (p *pinning) currentLocked(log *slog.Logger) (*pin.Lock, int) {
	fi, err := os.Stat(p.path)
	if err != nil {
		if !p.gone {
			log.Error("lock file cannot be read; the last lock read stays in force", "lock", p.path, "err", err)
			p.gone = true
		}
		return p.lock, p.gen
	}
	p.gone = false
	if sameFile(fi, p.stamp) || sameFile(fi, p.bad) {
		return p.lock, p.gen
	}
	l, err := pin.Read(p.path)
	if err != nil {
		log.Error("lock file changed but cannot be read; the last lock read stays in force", "lock", p.path, "err", err)
		p.bad = fi
		return p.lock, p.gen
	}
	p.lock, p.stamp, p.bad = l, fi, nil
	p.gen++
	log.Info("lock file re-read", "lock", p.path)
	return p.lock, p.gen
}

// sameFile reports whether a and b describe the same version of a file:
// the same file (an atomic replace makes a new one), size and mtime.
func sameFile(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// toolDefinition is the tool object pinning hashes: the definition as the
// upstream named it, in the JSON the virtual server would list it as, so
// that lock and serve hash the same bytes.
func toolDefinition(t mcp.Tool) (json.RawMessage, error) {
	return json.Marshal(t)
}

// check decides which of the tools in l the virtual server must hold
// back, records it for u, and logs each quarantine once per change. It
// returns one error per tool of l, nil for a tool to serve. v.mu is held.
func (p *pinning) check(v *virtual, u *upstream, l *listing) []error {
	if p == nil { // a gateway built without New
		return make([]error, len(l.tools))
	}
	log := v.g.log
	p.mu.Lock()
	defer p.mu.Unlock()
	var results []pin.Result
	gen := 0
	if p.path == "" {
		results = pin.Scan(u.cfg.Name, l.raw)
	} else {
		var lock *pin.Lock
		lock, gen = p.currentLocked(log)
		results = lock.Check(u.cfg.Name, l.raw)
	}
	errs := make([]error, len(l.tools))
	c := &checked{l: l, gen: gen, quarantined: map[string]error{}}
	seen := map[toolKey]bool{}
	for _, r := range results {
		if r.Index < 0 {
			continue // Removed: nothing to serve or hold back
		}
		served := l.tools[r.Index].Name
		k := toolKey{v.name, u.cfg.Name, served}
		seen[k] = true
		err := r.Error(served)
		errs[r.Index] = err
		if err != nil {
			c.quarantined[served] = err
			why := r.Status.String() + " " + r.Hash + " " + r.Reason()
			if p.logged[k] != why {
				p.logged[k] = why
				log.Warn("tool quarantined", "server", v.name, "upstream", u.cfg.Name,
					"tool", logName(served), "status", r.Status.String(), "reason", r.Reason())
			}
		} else if _, was := p.logged[k]; was {
			delete(p.logged, k)
			log.Info("tool released from quarantine", "server", v.name, "upstream", u.cfg.Name, "tool", logName(served))
		}
	}
	for k := range p.logged {
		if k.server == v.name && k.upstream == u.cfg.Name && !seen[k] {
			delete(p.logged, k)
		}
	}
	if p.held[v] == nil {
		p.held[v] = map[*upstream]*checked{}
	}
	p.held[v][u] = c
	return errs
}

// logName is a tool name fit for a log line: as it is, or quoted with
// escapes when it holds a character a reader would not see.
func logName(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// forget drops what the last sync of u recorded, as its tools are
// unregistered. v.mu is held.
func (p *pinning) forget(v *virtual, u *upstream) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held[v], u)
	if len(p.held[v]) == 0 {
		delete(p.held, v)
	}
}

// refresh re-reads the lock if it changed and re-checks every listing
// held that was checked against an older one.
func (p *pinning) refresh(log *slog.Logger) {
	if p.path == "" {
		return
	}
	p.repin.Lock()
	defer p.repin.Unlock()
	type stale struct {
		v *virtual
		u *upstream
		l *listing
	}
	var todo []stale
	p.mu.Lock()
	_, gen := p.currentLocked(log)
	for v, ups := range p.held {
		for u, c := range ups {
			if c.gen != gen {
				todo = append(todo, stale{v, u, c.l})
			}
		}
	}
	p.mu.Unlock()
	for _, s := range todo {
		s.v.repin(s.u, s.l)
	}
}

// anyQuarantined reports whether some tool of v is held back.
func (p *pinning) anyQuarantined(v *virtual) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.held[v] {
		if len(c.quarantined) > 0 {
			return true
		}
	}
	return false
}

// quarantined returns the error a call of the tool name (as the virtual
// server lists it) gets while its definition is quarantined, nil when it
// is not.
func (v *virtual) quarantined(name string) error {
	p := v.g.pins
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.held[v] {
		if err := c.quarantined[name]; err != nil {
			return err
		}
	}
	return nil
}

// quarantinedCount is how many tools are quarantined across the gateway.
func (g *Gateway) quarantinedCount() int {
	p := g.pins
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, ups := range p.held {
		for _, c := range ups {
			n += len(c.quarantined)
		}
	}
	return n
}

// repin applies l again for u, after the lock changed, unless u has
// synced since (or disconnected).
func (v *virtual) repin(u *upstream, l *listing) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p := v.g.pins
	p.mu.Lock()
	c := p.held[v][u]
	p.mu.Unlock()
	if !v.synced[u] || c == nil || c.l != l {
		return
	}
	if err := v.applyLocked(u, l); err != nil {
		u.log.Warn("re-check against the changed lock failed", "err", err)
	}
}

// pinGuard is the virtual server's middleware for pinning: a call of a
// quarantined tool, which the server does not know, fails with the
// quarantine error instead of "unknown tool"; and while something is
// quarantined, tools/list and such a call first pick up a changed lock
// file. Calls of tools the server knows pay nothing.
func (v *virtual) pinGuard(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		p := v.g.pins
		if p == nil {
			return next(ctx, req)
		}
		if req.Method == mcp.MethodListTools && p.path != "" && p.anyQuarantined(v) {
			p.refresh(v.g.log)
		}
		msg, err := next(ctx, req)
		if err == nil || req.Method != mcp.MethodCallTool {
			return msg, err
		}
		var call struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(req.Params, &call) != nil || v.quarantined(call.Name) == nil {
			return msg, err
		}
		p.refresh(v.g.log)
		q := v.quarantined(call.Name)
		if q == nil {
			return next(ctx, req) // approved meanwhile
		}
		return nil, jsonrpc.ErrInvalidParams(q.Error())
	}
}

// ListTools connects to every upstream of every virtual server of cfg,
// lists its tools (after its filters) as pinning sees them and
// disconnects; nothing is served. The result maps an upstream name to
// its tool objects; an upstream named alike in several virtual servers
// gets the union of what each lists, and the same tool defined
// differently by two of them is an error, since the lock has one entry
// for it. Any upstream that fails fails the whole listing.
func ListTools(ctx context.Context, cfg *Config, log *slog.Logger) (map[string][]json.RawMessage, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out := map[string][]json.RawMessage{}
	type seenTool struct{ server, hash string }
	seen := map[string]map[string]seenTool{} // upstream → tool → where first listed
	for _, sname := range cfg.ServerNames() {
		for _, uc := range cfg.Servers[sname].Upstreams {
			raws, names, err := listOnce(ctx, uc, log.With("server", sname, "upstream", uc.Name))
			if err != nil {
				return nil, fmt.Errorf("virtual server %s: upstream %s: %w", sname, uc.Name, err)
			}
			if seen[uc.Name] == nil {
				seen[uc.Name] = map[string]seenTool{}
				out[uc.Name] = []json.RawMessage{}
			}
			for i, raw := range raws {
				h, err := pin.Hash(raw)
				if err != nil {
					h = "" // Invalid: pin reports it
				}
				if first, ok := seen[uc.Name][names[i]]; ok {
					if first.hash != h {
						return nil, fmt.Errorf("upstream %s lists tool %s differently in virtual servers %s and %s; the lock keeps one definition per upstream name, so name the upstreams apart",
							uc.Name, strconv.QuoteToASCII(names[i]), first.server, sname)
					}
					continue
				}
				seen[uc.Name][names[i]] = seenTool{sname, h}
				out[uc.Name] = append(out[uc.Name], raw)
			}
		}
	}
	return out, nil
}

// listOnce connects to one upstream, lists the tools its filters keep and
// disconnects.
func listOnce(ctx context.Context, uc *UpstreamConfig, log *slog.Logger) ([]json.RawMessage, []string, error) {
	u := &upstream{cfg: uc, log: log}
	t, err := u.dial()
	if err != nil {
		return nil, nil, err
	}
	s, err := client.New(mcp.Implementation{Name: "mcpgen-gateway", Version: "0.1.0"}, u.clientOptions(func() {})).Connect(ctx, t)
	if err != nil {
		_ = t.Close()
		return nil, nil, err
	}
	defer s.Close()
	var raws []json.RawMessage
	var names []string
	if caps := s.ServerCapabilities(); caps != nil && caps.Tools == nil {
		return raws, names, nil
	}
	for tool, err := range s.AllTools(ctx) {
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		if !uc.Keeps(tool.Name) {
			continue
		}
		raw, err := toolDefinition(tool)
		if err != nil {
			return nil, nil, fmt.Errorf("tool %s: %w", strconv.QuoteToASCII(tool.Name), err)
		}
		raws = append(raws, raw)
		names = append(names, tool.Name)
	}
	return raws, names, nil
}

// pinOptions gives approve the prefix of each upstream, so that it takes
// the names clients see. An upstream named alike in several virtual
// servers takes the prefix of the first, by server name; upstream/tool
// names every tool whatever the prefixes.
func pinOptions(cfg *Config, force bool) pin.Options {
	o := pin.Options{Force: force, Prefixes: map[string]string{}}
	for _, sname := range cfg.ServerNames() {
		for _, uc := range cfg.Servers[sname].Upstreams {
			if _, ok := o.Prefixes[uc.Name]; !ok {
				o.Prefixes[uc.Name] = uc.PrefixOf()
			}
		}
	}
	return o
}

// errPinningOff is the lock and approve commands' answer to a
// configuration without a lock key.
func errPinningOff(cfg *Config) error {
	return fmt.Errorf("%s has no lock key, so pinning is off; add `lock: gateway.lock` to pin the upstreams' tools", cfg.file)
}

// WriteLock writes the lock file cfg names, pinning every tool its
// upstreams list now; it is `mcpgen-gateway lock`. It refuses to replace
// an existing lock file (pin.ErrLockExists) unless force is set, and
// writes nothing unless every upstream was listed.
func WriteLock(ctx context.Context, cfg *Config, force bool, log *slog.Logger) (pin.Summary, error) {
	path := cfg.LockPath()
	if path == "" {
		return pin.Summary{}, errPinningOff(cfg)
	}
	if _, err := os.Lstat(path); err == nil && !force {
		return pin.Summary{}, fmt.Errorf("%w: %s; use approve to record changes, or lock --force to pin everything listed now", pin.ErrLockExists, path)
	}
	tools, err := ListTools(ctx, cfg, log)
	if err != nil {
		return pin.Summary{}, err
	}
	return pin.LockFile(path, tools, pinOptions(cfg, force))
}

// ApproveLock records in the lock file cfg names the current definitions
// of the named tools (upstream/tool, or the names clients see), or of
// every changed and new tool when names is empty, and drops the tools
// the upstreams no longer list; it is `mcpgen-gateway approve`. A running
// gateway picks the new lock up (see pinning).
func ApproveLock(ctx context.Context, cfg *Config, names []string, log *slog.Logger) (pin.Summary, error) {
	path := cfg.LockPath()
	if path == "" {
		return pin.Summary{}, errPinningOff(cfg)
	}
	if _, err := pin.Read(path); err != nil {
		return pin.Summary{}, err // before connecting to anything
	}
	tools, err := ListTools(ctx, cfg, log)
	if err != nil {
		return pin.Summary{}, err
	}
	return pin.ApproveFile(path, tools, slices.Clone(names), pinOptions(cfg, false))
}
