package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// The list caches of a virtual server.
//
// Upstream side: the virtual server's tables are the cache of what its
// upstreams listed. An upstream of the legacy era tells the gateway when
// a list changed (list_changed), and is listed again then. One of the
// 2026-07-28 era sends nothing unless asked through subscriptions/listen,
// so its listing is kept for the ttlMs its list results give (the
// shortest of them), never less than MinRelist, and listed again by the
// first downstream list request, of any kind, that finds it expired, or
// else within IdleRelist of expiring (relistIdle). The
// upstream's cacheScope needs no bookkeeping here: the gateway lists
// every upstream under its own single credential, so even a private
// result is the one authorization context the gateway has there, and
// what each caller sees of it is decided by the gateway's own rules.
//
// Downstream side: the 2026-07-28 list results of the virtual server say
// what its cache section says (ServerConfig.caching).
//
// Order and cursors: the merged lists hold the upstreams in configuration
// order and each upstream's entries in its own order, which stays so when
// an upstream lists again (listedLocked). A downstream cursor carries the
// generation of the virtual server's tables it was given for; once an
// upstream's entries change, a cursor of an older generation is refused
// with an invalid-params error saying to list again from the start,
// instead of a page that skips or repeats entries.

// MinRelist is the least time a 2026-07-28 upstream's listing is kept
// before a downstream list request lists the upstream again, whatever
// its ttlMs: an upstream that says its lists are stale at once (ttlMs 0)
// is listed at most once per MinRelist, not once per downstream request.
var MinRelist = time.Second

// IdleRelist is how often a 2026-07-28 upstream whose listing expired is
// listed again when no downstream list request did it first: the clients
// that list once and then wait for list_changed, as legacy clients do,
// learn of its changes that late at most.
var IdleRelist = 30 * time.Second

// maxListPages bounds the pages of one upstream list; an upstream that
// keeps giving new cursors past it fails the listing.
const maxListPages = 1000

// listState is what a virtual server keeps of its upstreams' listings.
type listState struct {
	// Guarded by the virtual server's mu:
	listed  map[*upstream]*listing  // what each upstream's registered entries came from
	expires map[*upstream]time.Time // when a 2026-07-28 upstream is to be listed again

	// gen counts the changes of the registered entries, for cursors.
	gen atomic.Uint64

	busyMu sync.Mutex
	busy   map[*upstream]chan struct{} // a re-list under way, closed when done
}

func newListState() *listState {
	return &listState{listed: map[*upstream]*listing{}, expires: map[*upstream]time.Time{}, busy: map[*upstream]chan struct{}{}}
}

// page is one list result of an upstream.
type page[T any] struct {
	items []T
	next  string
	ttlMs int64
}

// allPages iterates over the items of every page of one list method of
// an upstream, noting in l the shortest ttlMs of the pages.
func allPages[T any](ctx context.Context, method string, l *listing, fetch func(ctx context.Context, cursor string) (page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		cursor := ""
		for n := 0; ; n++ {
			if n == maxListPages {
				yield(zero, fmt.Errorf("%s: more than %d pages", method, maxListPages))
				return
			}
			p, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			if l.ttl != nil {
				if d := time.Duration(max(p.ttlMs, 0)) * time.Millisecond; *l.ttl < 0 || d < *l.ttl {
					*l.ttl = d
				}
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if p.next == "" {
				return
			}
			if seen[p.next] {
				yield(zero, fmt.Errorf("%s: the upstream repeated cursor %q", method, p.next))
				return
			}
			seen[p.next] = true
			cursor = p.next
		}
	}
}

func allTools(ctx context.Context, s *client.Session, l *listing) iter.Seq2[mcp.Tool, error] {
	return allPages(ctx, mcp.MethodListTools, l, func(ctx context.Context, cursor string) (page[mcp.Tool], error) {
		r, err := s.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return page[mcp.Tool]{}, err
		}
		return page[mcp.Tool]{r.Tools, r.NextCursor, r.TTLMs}, nil
	})
}

func allPrompts(ctx context.Context, s *client.Session, l *listing) iter.Seq2[mcp.Prompt, error] {
	return allPages(ctx, mcp.MethodListPrompts, l, func(ctx context.Context, cursor string) (page[mcp.Prompt], error) {
		r, err := s.ListPrompts(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return page[mcp.Prompt]{}, err
		}
		return page[mcp.Prompt]{r.Prompts, r.NextCursor, r.TTLMs}, nil
	})
}

func allResources(ctx context.Context, s *client.Session, l *listing) iter.Seq2[mcp.Resource, error] {
	return allPages(ctx, mcp.MethodListResources, l, func(ctx context.Context, cursor string) (page[mcp.Resource], error) {
		r, err := s.ListResources(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return page[mcp.Resource]{}, err
		}
		return page[mcp.Resource]{r.Resources, r.NextCursor, r.TTLMs}, nil
	})
}

func allTemplates(ctx context.Context, s *client.Session, l *listing) iter.Seq2[mcp.ResourceTemplate, error] {
	return allPages(ctx, mcp.MethodListResourceTemplates, l, func(ctx context.Context, cursor string) (page[mcp.ResourceTemplate], error) {
		r, err := s.ListResourceTemplates(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return page[mcp.ResourceTemplate]{}, err
		}
		return page[mcp.ResourceTemplate]{r.ResourceTemplates, r.NextCursor, r.TTLMs}, nil
	})
}

// unknownTTL is the ttl of a 2026-07-28 upstream's listing before its
// first list result: below any a result can give.
func unknownTTL() *time.Duration {
	d := time.Duration(-1)
	return &d
}

// expiry is when a listing is to be listed again; zero for never (an
// upstream that says when its lists change).
func (l *listing) expiry(now time.Time) time.Time {
	if l.ttl == nil {
		return time.Time{}
	}
	return now.Add(max(*l.ttl, MinRelist))
}

// sameEntries reports whether two listings offer the same entries, with
// the same definitions, in the same order.
func sameEntries(a, b *listing) bool {
	return reflect.DeepEqual(a.tools, b.tools) && reflect.DeepEqual(a.prompts, b.prompts) &&
		reflect.DeepEqual(a.resources, b.resources) && reflect.DeepEqual(a.templates, b.templates)
}

// unchangedLocked reports whether l offers what u's registered entries
// already are; then only the listing's expiry moves, and nothing is
// registered again or notified.
func (v *virtual) unchangedLocked(u *upstream, l *listing) bool {
	prev := v.lists.listed[u]
	if !v.synced[u] || prev == nil || !sameEntries(prev, l) {
		return false
	}
	v.lists.listed[u] = l
	v.setExpiryLocked(u, l.expiry(time.Now()))
	return true
}

func (v *virtual) setExpiryLocked(u *upstream, t time.Time) {
	if t.IsZero() {
		delete(v.lists.expires, u)
	} else {
		v.lists.expires[u] = t
	}
}

// listedLocked records that u's entries are now those of l. The server
// keeps entries in the order they were added, so the entries of the
// upstreams after u in configuration order are added again behind u's:
// the merged lists stay in configuration order.
func (v *virtual) listedLocked(u *upstream, l *listing) {
	v.lists.listed[u] = l
	v.setExpiryLocked(u, l.expiry(time.Now()))
	v.lists.gen.Add(1)
	if i := slices.Index(v.ups, u); i >= 0 {
		v.reorderLocked(i + 1)
	}
}

// reorderLocked adds the entries of the upstreams from v.ups[i] on again,
// in configuration order, which puts them behind those of the upstreams
// before v.ups[i] in the server's lists.
func (v *virtual) reorderLocked(i int) {
	for _, w := range v.ups[i:] {
		if lw := v.lists.listed[w]; lw != nil && v.synced[w] {
			if err := v.registerLocked(w, lw, false); err != nil {
				w.log.Warn("re-adding entries to keep the configuration order", "err", err)
			}
			v.lists.gen.Add(1)
		}
	}
}

// forgetLocked forgets u's listing, as its entries are dropped.
func (v *virtual) forgetLocked(u *upstream) {
	if len(v.owned[u]) > 0 {
		v.lists.gen.Add(1)
	}
	delete(v.lists.listed, u)
	delete(v.lists.expires, u)
}

// listMethods are the downstream list requests the virtual server's
// middleware looks at.
var listMethods = map[string]bool{
	mcp.MethodListTools: true, mcp.MethodListPrompts: true,
	mcp.MethodListResources: true, mcp.MethodListResourceTemplates: true,
}

// listMiddleware serves the virtual server's list requests: the first
// page lists again the upstreams whose listing expired, and cursors are
// tied to the generation of the tables they page through.
func (v *virtual) listMiddleware(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		if !listMethods[req.Method] {
			return next(ctx, req)
		}
		params, cursor, err := cursorOf(req.Params)
		if err != nil {
			return nil, err
		}
		if cursor == "" {
			v.refreshExpired(ctx)
		}
		gen := v.lists.gen.Load()
		if cursor != "" {
			g, inner, ok := strings.Cut(cursor, ".")
			if !ok || g != strconv.FormatUint(gen, 10) {
				return nil, jsonrpc.ErrInvalidParams("invalid params: cursor: the list changed since this cursor was given (or it is not one of this server's); list again from the start")
			}
			params["cursor"], _ = json.Marshal(inner)
			q := *req
			if q.Params, err = json.Marshal(params); err != nil {
				return nil, err
			}
			req = &q
		}
		msg, err := next(ctx, req)
		if err != nil {
			return msg, err
		}
		tag := func(c *string) {
			if *c != "" {
				*c = strconv.FormatUint(gen, 10) + "." + *c
			}
		}
		switch r := msg.(type) {
		case *mcp.ListToolsResult:
			tag(&r.NextCursor)
		case *mcp.ListPromptsResult:
			tag(&r.NextCursor)
		case *mcp.ListResourcesResult:
			tag(&r.NextCursor)
		case *mcp.ListResourceTemplatesResult:
			tag(&r.NextCursor)
		}
		return msg, nil
	}
}

// cursorOf decodes a list request's params and returns them with its
// cursor.
func cursorOf(raw []byte) (map[string]json.RawMessage, string, error) {
	params := map[string]json.RawMessage{}
	if len(raw) == 0 || string(raw) == "null" {
		return params, "", nil
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, "", jsonrpc.ErrInvalidParams("invalid params: " + err.Error())
	}
	var cursor string
	if c, ok := params["cursor"]; ok {
		if err := json.Unmarshal(c, &cursor); err != nil {
			return nil, "", jsonrpc.ErrInvalidParams("invalid params: cursor: not a string")
		}
	}
	return params, cursor, nil
}

// refreshExpired lists again, at once, every upstream whose listing
// expired, and waits for them (or for ctx).
func (v *virtual) refreshExpired(ctx context.Context) {
	now := time.Now()
	var due []*upstream
	for _, u := range v.upstreams() {
		if v.expired(u, now) {
			due = append(due, u)
		}
	}
	var wg sync.WaitGroup
	for _, u := range due {
		wg.Go(func() { v.refresh(ctx, u) })
	}
	wg.Wait()
}

// expired reports whether u's listing is to be listed again by now.
func (v *virtual) expired(u *upstream, now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	t, ok := v.lists.expires[u]
	return ok && !now.Before(t)
}

// relistIdle lists u again every IdleRelist that finds its listing
// expired, until ctx ends.
func (v *virtual) relistIdle(ctx context.Context, u *upstream) {
	tick := time.NewTicker(IdleRelist)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if v.expired(u, now) {
				v.refresh(ctx, u)
			}
		}
	}
}

// refresh lists u again; a refresh already under way is waited for
// instead of started twice.
func (v *virtual) refresh(ctx context.Context, u *upstream) {
	ls := v.lists
	ls.busyMu.Lock()
	if done, ok := ls.busy[u]; ok {
		ls.busyMu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
		}
		return
	}
	done := make(chan struct{})
	ls.busy[u] = done
	ls.busyMu.Unlock()
	defer func() {
		ls.busyMu.Lock()
		delete(ls.busy, u)
		ls.busyMu.Unlock()
		close(done)
	}()
	s, err := u.session()
	if err == nil {
		err = v.sync(ctx, u, s)
	}
	if err != nil {
		u.log.Warn("re-list after the ttl failed; the entries listed before stay", "err", err)
		v.mu.Lock()
		if _, ok := v.lists.expires[u]; ok {
			v.lists.expires[u] = time.Now().Add(MinRelist)
		}
		v.mu.Unlock()
	}
}

// caching is what the virtual server's 2026-07-28 list results say about
// caching them: the ttl of the cache section, and public only while no
// authorization rule makes lists depend on the caller.
func (sc *ServerConfig) caching() server.Caching {
	c := server.Caching{Public: !sc.filtersPerCaller()}
	if sc.Cache != nil && sc.Cache.TTLMs != nil {
		c.TTL = time.Duration(*sc.Cache.TTLMs) * time.Millisecond
	}
	return c
}
