package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// CacheConfig says how long a virtual server's list results may be kept
// by the clients of 2026-07-28 and the caches between them and the
// gateway (the ttlMs of its list results).
type CacheConfig struct {
	// TTLMs is the ttlMs of the list results, in milliseconds; nil or 0
	// says they are stale at once.
	TTLMs *int64 `yaml:"ttlMs"`
}

// maxCacheTTL bounds cache.ttlMs: a list kept longer would outlive most
// changes a reload makes.
const maxCacheTTL = 24 * time.Hour

// validateCache checks a virtual server's cache section.
func (s *ServerConfig) validateCache(where string, bad badFunc) error {
	if s.Cache == nil || s.Cache.TTLMs == nil {
		return nil
	}
	if ms := *s.Cache.TTLMs; ms < 0 || ms > maxCacheTTL.Milliseconds() {
		return bad(0, "%s.cache.ttlMs: %d: give milliseconds from 0 to %d", where, ms, maxCacheTTL.Milliseconds())
	}
	return nil
}

// Reload makes the running gateway serve cfg, without dropping the
// downstream sessions of the virtual servers that stay:
//
//   - an upstream that is new is connected, listed and registered; one
//     that is gone is disconnected and unregistered; one whose settings
//     changed is reconnected with the new ones. The clients get
//     list_changed notifications for each.
//   - a virtual server that is new is served at once; one that is gone
//     answers 404 and its sessions end.
//   - a virtual server whose list results would say something else about
//     caching (its cache section, or authorization rules appearing or
//     going away, which turn its lists private or public) is built anew:
//     its sessions end, as a client may hold lists cached under the old
//     terms.
//   - the authorization and policy of a virtual server that stays are
//     replaced in place.
//   - the API keys (auth.keys) are read anew, values included, so that a
//     key added, rotated in its file or variable, or revoked takes effect
//     at once, and the sessions opened with a key that is gone end; keys
//     that cannot be read fail the reload before anything changes.
//
// listen, lock, the rest of auth (adding or removing the section, oauth,
// maxSessionsPerPrincipal), rest, audit, telemetry and watch take effect
// on restart only; a change to them is logged and otherwise ignored.
//
// An upstream that cannot be connected does not stop the reload: it is
// retried in the background as after a disconnection, and the errors of
// all such upstreams are returned.
func (g *Gateway) Reload(cfg *Config) error {
	if cfg == nil {
		return errors.New("gateway: Reload: nil config")
	}
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.closed {
		return errors.New("gateway: Reload after Close")
	}
	if g.ctx == nil {
		return errors.New("gateway: Reload before Start")
	}
	old := g.cfg
	revoked, err := g.door.reloadKeys(cfg)
	if err != nil {
		return err
	}
	g.endSessionsOf(revoked)
	g.logRestartOnly(old, cfg)
	var errs []error
	for _, name := range old.ServerNames() {
		if cfg.Servers[name] == nil {
			g.log.Info("config: virtual server removed", "server", name)
			g.removeServer(name)
		}
	}
	for _, name := range cfg.ServerNames() {
		sc := cfg.Servers[name]
		osc := old.Servers[name]
		switch {
		case osc == nil:
			g.log.Info("config: virtual server added", "server", name)
			errs = append(errs, g.addServer(name, sc))
		case osc.caching() != sc.caching():
			g.log.Warn("config: what the lists of the virtual server say about caching changed; its sessions end", "server", name)
			g.removeServer(name)
			errs = append(errs, g.addServer(name, sc))
		default:
			errs = append(errs, g.updateServer(g.virtuals[name], sc))
		}
	}
	g.mu.Lock()
	g.cfg = cfg
	g.mu.Unlock()
	return errors.Join(errs...)
}

// logRestartOnly logs the changes of cfg that Reload does not apply.
func (g *Gateway) logRestartOnly(old, cfg *Config) {
	for _, k := range []struct {
		key      string
		old, new any
	}{
		{"listen", old.Listen, cfg.Listen},
		{"lock", old.Lock, cfg.Lock},
		{"auth", restartAuth(old.Auth), restartAuth(cfg.Auth)},
		{"rest", old.REST, cfg.REST},
		{"audit", old.Audit, cfg.Audit},
		{"telemetry", old.Telemetry, cfg.Telemetry},
		{"watch", old.Watch, cfg.Watch},
	} {
		if !reflect.DeepEqual(k.old, k.new) {
			g.log.Warn("config: "+k.key+" changed, which needs a restart; the running value stays", "key", k.key)
		}
	}
}

// restartAuth is what of an auth section takes a restart to change:
// everything but the keys.
func restartAuth(a *AuthConfig) *AuthConfig {
	if a == nil {
		return nil
	}
	out := *a
	out.Keys = nil
	return &out
}

// addServer builds the virtual server, connects its upstreams and serves
// it.
func (g *Gateway) addServer(name string, sc *ServerConfig) error {
	v, h, err := g.newServer(name, sc)
	if err != nil {
		return err
	}
	var errs []error
	for _, u := range v.upstreams() {
		errs = append(errs, g.startUpstream(u))
	}
	g.mu.Lock()
	g.virtuals[name] = v
	g.handlers[name] = h
	g.mu.Unlock()
	return errors.Join(errs...)
}

// removeServer stops serving the virtual server, ends its sessions and
// disconnects its upstreams.
func (g *Gateway) removeServer(name string) {
	g.mu.Lock()
	v, h := g.virtuals[name], g.handlers[name]
	delete(g.virtuals, name)
	delete(g.handlers, name)
	g.mu.Unlock()
	if h != nil {
		_ = h.close()
	}
	if v != nil {
		v.end()
		for _, u := range v.upstreams() {
			g.stopRun(u)
		}
	}
}

// updateServer gives the virtual server v the upstreams and governance
// of sc, keeping the upstreams whose settings did not change.
func (g *Gateway) updateServer(v *virtual, sc *ServerConfig) error {
	old := v.upstreams()
	byName := map[string]*upstream{}
	for _, u := range old {
		byName[u.cfg.Name] = u
	}
	var next, start []*upstream
	kept := map[*upstream]bool{}
	for _, uc := range sc.Upstreams {
		if u := byName[uc.Name]; u != nil && sameUpstream(u.cfg, uc) {
			next = append(next, u)
			kept[u] = true
			continue
		}
		u := g.newUpstream(v, uc)
		next = append(next, u)
		start = append(start, u)
	}
	for _, u := range old {
		if kept[u] {
			continue
		}
		if slices.ContainsFunc(sc.Upstreams, func(uc *UpstreamConfig) bool { return uc.Name == u.cfg.Name }) {
			g.log.Info("config: upstream changed; reconnecting", "server", v.name, "upstream", u.cfg.Name)
		} else {
			g.log.Info("config: upstream removed", "server", v.name, "upstream", u.cfg.Name)
		}
		g.stopRun(u)
	}
	inOrder := func(ups []*upstream) []*upstream {
		return slices.DeleteFunc(slices.Clone(ups), func(u *upstream) bool { return !kept[u] })
	}
	v.mu.Lock()
	v.ups = next
	if !slices.Equal(inOrder(old), inOrder(next)) {
		v.reorderLocked(0) // the upstreams that stay were put in another order
	}
	v.mu.Unlock()
	var errs []error
	for _, u := range start {
		if byName[u.cfg.Name] == nil {
			g.log.Info("config: upstream added", "server", v.name, "upstream", u.cfg.Name)
		}
		errs = append(errs, g.startUpstream(u))
	}
	if err := v.setGovern(sc); err != nil {
		errs = append(errs, fmt.Errorf("virtual server %s: %w", v.name, err))
	}
	return errors.Join(errs...)
}

// startUpstream connects u and keeps it connected. When the first
// connection fails, the error is returned and the loop keeps trying.
func (g *Gateway) startUpstream(u *upstream) error {
	ctx, cancel := context.WithCancel(g.ctx)
	s, err := u.connect(ctx)
	if err != nil {
		u.log.Warn("upstream not connected; retrying", "err", err)
		err = fmt.Errorf("virtual server %s: upstream %s: %w", u.v.name, u.cfg.Name, err)
	}
	g.startRun(ctx, cancel, u, s)
	return err
}

// sameUpstream reports whether two upstream configs have the same
// settings.
func sameUpstream(a, b *UpstreamConfig) bool {
	x, y := *a, *b
	x.includeRe, x.excludeRe, x.line = nil, nil, 0
	y.includeRe, y.excludeRe, y.line = nil, nil, 0
	return reflect.DeepEqual(x, y)
}

// reloadDebounce is how long the watcher waits after a change of the
// config's folder for more changes before it reloads: editors write a
// file in several steps.
const reloadDebounce = 100 * time.Millisecond

// watch reloads the configuration when its file changes, until ctx
// ends. It watches the file's folder, not the file, so that a file an
// editor replaces by renaming another over it stays watched; a change of
// anything in the folder leads to a reload only when the file's content
// differs from the last one read. The folders of the API keys read from
// files are watched too: a key rotated in its file alone is put in force
// (reloadKeyFiles).
func (g *Gateway) watch(ctx context.Context) error {
	if g.cfg.file == "" {
		return errors.New("the configuration was not read from a file")
	}
	file, err := filepath.Abs(g.cfg.file)
	if err != nil {
		return err
	}
	last, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	if err := w.Add(filepath.Dir(file)); err != nil {
		_ = w.Close()
		return err
	}
	keys := g.watchKeyFiles(w)
	g.log.Info("config: watching for changes", "file", file)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer w.Close()
		debounce := time.NewTimer(time.Hour)
		debounce.Stop()
		defer debounce.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-w.Events:
				if !ok {
					return
				}
				debounce.Reset(reloadDebounce)
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				g.log.Warn("config: watcher", "err", err)
			case <-debounce.C:
				data, err := os.ReadFile(file)
				switch {
				case err == nil && !bytes.Equal(data, last):
					last = data
					g.reloadFrom(file, data)
					keys = g.watchKeyFiles(w)
				case keys.changed():
					keys = g.watchKeyFiles(w)
					g.reloadKeyFiles()
				}
			}
		}
	}()
	return nil
}

// keyFiles are the files the running configuration reads API keys from,
// each with the digest of its content when last read ("" for one that
// could not be read), so that a change shows without the watcher holding
// a key.
type keyFiles map[string]string

// watchKeyFiles adds the folders of the running configuration's key
// files to w and reads their digests.
func (g *Gateway) watchKeyFiles(w *fsnotify.Watcher) keyFiles {
	g.mu.Lock()
	cfg := g.cfg
	g.mu.Unlock()
	files := keyFiles{}
	if cfg.Auth == nil {
		return files
	}
	for _, k := range cfg.Auth.Keys {
		if k.Key.File == "" {
			continue
		}
		f, err := filepath.Abs(k.Key.File)
		if err != nil {
			continue
		}
		files[f] = digestOf(f)
		if err := w.Add(filepath.Dir(f)); err != nil {
			g.log.Warn("config: cannot watch the folder of an API key file", "err", err)
		}
	}
	return files
}

// changed reports whether a key file's content differs from its digest.
func (k keyFiles) changed() bool {
	for f, d := range k {
		if digestOf(f) != d {
			return true
		}
	}
	return false
}

func digestOf(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return string(sum[:])
}

// reloadKeyFiles puts the API keys of the running configuration in force
// again, their values read anew: for a key rotated in its file.
func (g *Gateway) reloadKeyFiles() {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.closed {
		return
	}
	g.mu.Lock()
	cfg := g.cfg
	g.mu.Unlock()
	revoked, err := g.door.reloadKeys(cfg)
	if err != nil {
		g.log.Error("config: an API key file changed, but the keys cannot be read; the running keys stay", "err", err)
		return
	}
	g.endSessionsOf(revoked)
}

// ReloadFile reloads the configuration from file, as a SIGHUP does to
// mcpgen-gateway serve: a file that cannot be read, or does not parse or
// validate, is logged with its error, and the running configuration
// stays.
func (g *Gateway) ReloadFile(file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		g.log.Error("config: not reloaded; the running configuration stays", "err", err)
		return
	}
	g.reloadFrom(file, data)
}

// reloadFrom reloads the configuration from data, read from file. One
// that does not parse or validate is logged with its error, and the
// running configuration stays.
func (g *Gateway) reloadFrom(file string, data []byte) {
	cfg, err := ParseConfig(file, data)
	if err != nil {
		g.log.Error("config: not reloaded; the running configuration stays", "err", err)
		return
	}
	if err := g.Reload(cfg); err != nil {
		g.log.Warn("config: reloaded, with errors", "err", err)
		return
	}
	g.log.Info("config: reloaded", "file", file)
}
